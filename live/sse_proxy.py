#!/usr/bin/env python3
"""Records a real server's streamed answers, and the same answers unstreamed.

A proxy for an OpenAI-compatible server (llama.cpp's llama-server, see LIVE.md).
Every POST is forwarded. For a request with "stream": true it writes one JSON
line to OUT: the request body, the raw server-sent events the server streamed
back (passed on to the client as they come), and the server's answer to the
same request sent unstreamed. With --greedy both go out with temperature 0,
so a server that decodes deterministically gives the same answer twice; the
runtime's tests then check that our stream fold reads the streamed answer as
the unstreamed one.

    python3 live/sse_proxy.py --upstream http://127.0.0.1:18084 --port 18085 \
        --out tests/cassettes/embed.stream.qwen.jsonl --greedy
"""
import argparse
import http.client
import http.server
import json
import threading
import urllib.parse

LOCK = threading.Lock()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--port", type=int, default=18085)
    parser.add_argument("--out", required=True)
    parser.add_argument("--greedy", action="store_true")
    args = parser.parse_args()
    upstream = urllib.parse.urlsplit(args.upstream)

    def post(path, body, headers):
        conn = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=600)
        conn.request("POST", path, body=json.dumps(body).encode(), headers=headers)
        return conn, conn.getresponse()

    class Proxy(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            length = int(self.headers.get("content-length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            headers = {"content-type": "application/json"}
            if self.headers.get("authorization"):
                headers["authorization"] = self.headers["authorization"]
            if args.greedy:
                body["temperature"] = 0
            conn, response = post(self.path, body, headers)
            self.send_response(response.status)
            kind = response.getheader("content-type", "application/octet-stream")
            self.send_header("content-type", kind)
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            raw = b""
            while True:
                chunk = response.read1(65536)
                if not chunk:
                    break
                raw += chunk
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            conn.close()
            if not body.get("stream"):
                return
            whole_body = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
            conn, response = post(self.path, whole_body, headers)
            whole = json.loads(response.read())
            conn.close()
            line = {"path": self.path, "request": body, "status": response.status,
                    "sse": raw.decode(), "whole": whole}
            with LOCK, open(args.out, "a") as out:
                out.write(json.dumps(line) + "\n")

        def log_message(self, *_):
            pass

    http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Proxy).serve_forever()


if __name__ == "__main__":
    main()
