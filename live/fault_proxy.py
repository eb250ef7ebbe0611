#!/usr/bin/env python3
"""Breaks a real server's streamed answers the way networks do.

A proxy for an OpenAI-compatible or Anthropic server (llama.cpp's llama-server,
see LIVE.md). GETs and unstreamed POSTs pass through. Of the streamed POSTs,
every --every'th is broken: its answer is passed on for --after bytes, then
either the connection is closed (--fault cut: a dropped stream, no end marker)
or nothing more is sent while the connection stays open (--fault stall). The
other streamed answers pass through whole. Each request is logged on stderr.

    python3 live/fault_proxy.py --upstream http://127.0.0.1:18084 --port 18086 \
        --fault cut --every 2 --after 400
"""
import argparse
import http.client
import http.server
import sys
import threading
import time
import urllib.parse

COUNT = {"streamed": 0}
LOCK = threading.Lock()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--port", type=int, default=18086)
    parser.add_argument("--fault", choices=["cut", "stall"], default="cut")
    parser.add_argument("--every", type=int, default=2)
    parser.add_argument("--after", type=int, default=400)
    args = parser.parse_args()
    upstream = urllib.parse.urlsplit(args.upstream)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_):
            pass

        def forward(self, method, body):
            conn = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=600)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
            conn.request(method, self.path, body=body, headers=headers)
            return conn, conn.getresponse()

        def do_GET(self):
            conn, response = self.forward("GET", None)
            data = response.read()
            self.send_response(response.status)
            for k, v in response.getheaders():
                if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(k, v)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            conn.close()

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            streamed = b'"stream":true' in body.replace(b" ", b"")
            broken = False
            if streamed:
                with LOCK:
                    COUNT["streamed"] += 1
                    n = COUNT["streamed"]
                broken = n % args.every == 0
            conn, response = self.forward("POST", body)
            self.send_response(response.status)
            for k, v in response.getheaders():
                if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(k, v)
            self.send_header("connection", "close")
            if not streamed:
                data = response.read()
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                conn.close()
                return
            self.end_headers()
            sent = 0
            while True:
                chunk = response.read1(4096)
                if not chunk:
                    break
                if broken and sent + len(chunk) >= args.after:
                    self.wfile.write(chunk[: max(0, args.after - sent)])
                    self.wfile.flush()
                    print(f"streamed #{n}: {args.fault} after {args.after} bytes", file=sys.stderr, flush=True)
                    if args.fault == "stall":
                        # Hold the connection until the client gives up.
                        while self.rfile.read(1):
                            time.sleep(0.1)
                    conn.close()
                    self.close_connection = True
                    return
                self.wfile.write(chunk)
                self.wfile.flush()
                sent += len(chunk)
            conn.close()
            self.close_connection = True

    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.serve_forever()


if __name__ == "__main__":
    main()
