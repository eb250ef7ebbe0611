#!/usr/bin/env python3
"""An OpenAI Batch API in front of an OpenAI-compatible server that has none.

llama.cpp's llama-server answers /v1/chat/completions but has no batch API.
This proxy gives it one, in the documented shapes, so `tribunal run --batch`
can be tried against a real model: POST /v1/files (multipart, purpose batch)
keeps the JSONL; POST /v1/batches runs every line's body against the upstream
server (one at a time, in a thread) and writes the output file; GET
/v1/batches/{id} shows in_progress until that is done, then completed with
output_file_id; GET /v1/files/{id}/content serves a file. Other POSTs are
forwarded unchanged (online requests).

    python3 live/batch_proxy.py --upstream http://127.0.0.1:18084 --port 18086
"""
import argparse
import http.client
import http.server
import json
import re
import threading
import urllib.parse

LOCK = threading.Lock()
FILES = {}
BATCHES = {}
COUNTER = [0]


def next_id(prefix):
    with LOCK:
        COUNTER[0] += 1
        return f"{prefix}{COUNTER[0]:04d}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--port", type=int, default=18086)
    args = parser.parse_args()
    upstream = urllib.parse.urlparse(args.upstream)

    def post_upstream(path, body, headers):
        conn = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=600)
        conn.request("POST", path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()

    def run_batch(batch_id, lines, auth):
        output = []
        for line in lines:
            status, answer = post_upstream(
                line["url"],
                json.dumps(line["body"]).encode(),
                {"content-type": "application/json", "authorization": auth},
            )
            try:
                body = json.loads(answer)
            except ValueError:
                body = {"error": {"type": "not_json", "message": answer[:200].decode("utf8", "replace")}}
            output.append(json.dumps({
                "id": next_id("batch_req_"), "custom_id": line["custom_id"],
                "response": {"status_code": status, "request_id": "", "body": body},
                "error": None,
            }))
        file_id = next_id("file-out-")
        with LOCK:
            FILES[file_id] = ("\n".join(output) + "\n").encode()
            BATCHES[batch_id].update(status="completed", output_file_id=file_id)
            BATCHES[batch_id]["request_counts"]["completed"] = len(lines)

    class Handler(http.server.BaseHTTPRequestHandler):
        def send_json(self, status, value):
            data = json.dumps(value).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            m = re.fullmatch(r"/v1/batches/([\w-]+)", self.path)
            if m and m.group(1) in BATCHES:
                with LOCK:
                    return self.send_json(200, BATCHES[m.group(1)])
            m = re.fullmatch(r"/v1/files/([\w-]+)/content", self.path)
            if m and m.group(1) in FILES:
                data = FILES[m.group(1)]
                self.send_response(200)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                return self.wfile.write(data)
            self.send_json(404, {"error": {"type": "not_found", "message": self.path}})

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            if self.path == "/v1/files":
                boundary = self.headers["content-type"].split("boundary=")[1].strip('"')
                content = None
                for part in body.split(b"--" + boundary.encode()):
                    head, _, rest = part.partition(b"\r\n\r\n")
                    if b'name="file"' in head:
                        content = rest[:-2] if rest.endswith(b"\r\n") else rest
                file_id = next_id("file-")
                FILES[file_id] = content
                return self.send_json(200, {"id": file_id, "object": "file", "purpose": "batch"})
            if self.path == "/v1/batches":
                create = json.loads(body)
                lines = [json.loads(l) for l in FILES[create["input_file_id"]].decode().splitlines() if l.strip()]
                batch_id = next_id("batch_")
                with LOCK:
                    BATCHES[batch_id] = {
                        "id": batch_id, "object": "batch", "endpoint": create["endpoint"],
                        "status": "in_progress", "output_file_id": None, "error_file_id": None,
                        "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
                    }
                auth = self.headers.get("authorization", "")
                threading.Thread(target=run_batch, args=(batch_id, lines, auth), daemon=True).start()
                return self.send_json(200, BATCHES[batch_id])
            status, answer = post_upstream(self.path, body, {
                "content-type": "application/json",
                "authorization": self.headers.get("authorization", ""),
            })
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *a):
            pass

    http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
