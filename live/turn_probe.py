#!/usr/bin/env python3
"""Which tool a model reaches for after its first search, as a probability.

A run shows whether a model repeated its search; it does not show how close
it came. This script measures it on llama.cpp's llama-server: for every
second-turn request of a run (one search made, its result back), it renders
the request with the server's own chat template (POST /apply-template), adds
the opening of a tool call in the template's format, and reads the next
token's probabilities (POST /completion, n_probs). The figure per item is
P(search) / (P(search) + P(final_answer)) for the tool name's first token:
the chance that a sampled second turn calls the search again instead of
answering. It needs no model run per variant: a wording or ordering change is
tried on the recorded requests in seconds, item by item.

Record the requests a run sends (a pass-through proxy writing each POST body
as one JSON line), then probe them:

    python3 live/turn_probe.py record --upstream http://127.0.0.1:18084 --port 18090 \
        --out /tmp/bodies.jsonl &
    target/debug/tribunal run arenas/structured_output --backend openai-chat --model qwen \
        --base-url http://127.0.0.1:18090/v1 --concurrency 1 --out /tmp/run.jsonl
    python3 live/turn_probe.py probe /tmp/bodies.jsonl --server http://127.0.0.1:18084 \
        --variants base,search_listed_first -v

Variants are functions of one request body (below); add one to try a change
of what we send before building it. `--variants all` runs every one.
"""
import argparse
import copy
import http.client
import http.server
import json
import math
import threading
import urllib.parse
import urllib.request

# The opening of a tool call in the live chat template's format
# (../shared/live/chatml-tools-codeblock.jinja renders calls this way).
CALL_PREFIX = '```json\n{"name": "'


def tool(body, name):
    return next(t for t in body["tools"] if t["function"]["name"] == name)


def base(body):
    return body


def search_listed_first(body):
    body = copy.deepcopy(body)
    body["tools"].sort(key=lambda t: t["function"]["name"] != "search")
    return body


def answer_described_asap(body):
    body = copy.deepcopy(body)
    tool(body, "final_answer")["function"]["description"] = (
        "Give your final answer as soon as the tool results you have hold it. Its arguments "
        "are the answer and must match its schema; the run ends with this call."
    )
    return body


def answer_described_short(body):
    body = copy.deepcopy(body)
    tool(body, "final_answer")["function"]["description"] = (
        "Give your final answer (the run ends with this call)."
    )
    return body


def search_says_same_query_same_passages(body):
    body = copy.deepcopy(body)
    tool(body, "search")["function"]["description"] += " The same query returns the same passages."
    return body


def result_names_its_query(body):
    body = copy.deepcopy(body)
    messages = body["messages"]
    call = messages[-2]["tool_calls"][0]["function"]
    query = json.loads(call["arguments"]).get("query")
    messages[-1]["content"] = f'Passages for "{query}":\n' + messages[-1]["content"]
    return body


def call_arguments_compact(body):
    body = copy.deepcopy(body)
    call = body["messages"][-2]["tool_calls"][0]["function"]
    call["arguments"] = json.dumps(json.loads(call["arguments"]), separators=(",", ":"))
    return body


def no_strict(body):
    body = copy.deepcopy(body)
    for t in body["tools"]:
        t["function"].pop("strict", None)
    return body


# The other framework's request (../shared/live/probe-1.5b/peer-second-turns.jsonl) differs from
# ours in four ways a template renders; each is a variant, and `peer_shape` is all four. (Its
# `tool_choice` differs too, but a template does not render it: it is the server's grammar, which
# this probe does not see.)


def parameters_bare(body):
    """The search tool's parameters without descriptions or bounds."""
    body = copy.deepcopy(body)
    for prop in tool(body, "search")["function"]["parameters"].get("properties", {}).values():
        for key in ("description", "minimum", "maximum"):
            prop.pop(key, None)
    return body


def answer_named_final_result(body):
    """The answer tool named and described as the other framework does."""
    body = copy.deepcopy(body)
    function = tool(body, "final_answer")["function"]
    function["name"] = "final_result"
    function["description"] = "The final response which ends this conversation"
    return body


def answer_listed_last(body):
    body = copy.deepcopy(body)
    body["tools"].sort(key=lambda t: t["function"]["name"] == "final_answer")
    return body


def peer_shape(body):
    return answer_named_final_result(answer_listed_last(no_strict(parameters_bare(body))))


VARIANTS = {
    f.__name__: f
    for f in (
        base,
        search_listed_first,
        answer_described_asap,
        answer_described_short,
        search_says_same_query_same_passages,
        result_names_its_query,
        call_arguments_compact,
        no_strict,
        parameters_bare,
        answer_named_final_result,
        answer_listed_last,
        peer_shape,
    )
}


def post(server, path, body):
    request = urllib.request.Request(
        server + path, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=900) as answer:
        return json.load(answer)


def second_turns(bodies):
    """The request after the first search of each item, by its user message."""
    turns = {}
    for body in bodies:
        messages = body.get("messages", [])
        assistants = [m for m in messages if m["role"] == "assistant"]
        names = {t["function"]["name"] for t in body.get("tools", [])}
        if (
            messages
            and messages[-1]["role"] == "tool"
            and len(assistants) == 1
            and {"search", "final_answer"} <= names
        ):
            user = next(m["content"] for m in messages if m["role"] == "user")
            turns[user] = body
    return turns


def p_search(server, body):
    prompt = post(server, "/apply-template", {"messages": body["messages"], "tools": body["tools"]})
    answer = post(
        server,
        "/completion",
        {
            "prompt": prompt["prompt"] + CALL_PREFIX,
            "n_predict": 1,
            "n_probs": 20,
            "temperature": 0,
            "cache_prompt": True,
        },
    )
    top = answer["completion_probabilities"][0]["top_logprobs"]
    probs = {t["token"]: math.exp(t["logprob"]) for t in top}
    search = sum(p for t, p in probs.items() if "search".startswith(t) or t.startswith("search"))
    final = sum(p for t, p in probs.items() if "final".startswith(t) or t.startswith("final"))
    return search / (search + final) if search + final > 0 else None


def probe(args):
    bodies = [json.loads(line) for line in open(args.bodies) if line.strip()]
    turns = second_turns(bodies)
    names = list(VARIANTS) if args.variants == "all" else args.variants.split(",")
    for name in names:
        variant = VARIANTS[name]
        figures = [(user, p_search(args.server, variant(body))) for user, body in turns.items()]
        known = [p for _, p in figures if p is not None]
        mean = sum(known) / len(known) if known else float("nan")
        print(f"{name:40} mean P(search) {mean:.3f} over {len(known)} items")
        if args.verbose:
            for user, p in figures:
                print(f"    {user[:60]:60} {'-' if p is None else f'{p:.3f}'}")


def record(args):
    upstream = urllib.parse.urlsplit(args.upstream)
    lock = threading.Lock()

    class Proxy(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def forward(self, body=None):
            conn = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=900)
            headers = {
                k: v
                for k, v in self.headers.items()
                if k.lower() not in ("host", "content-length", "connection", "accept-encoding")
            }
            conn.request(self.command, self.path, body=body, headers=headers)
            answer = conn.getresponse()
            self.send_response(answer.status)
            for k, v in answer.getheaders():
                if k.lower() not in ("content-length", "transfer-encoding", "connection"):
                    self.send_header(k, v)
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            self.end_headers()
            while chunk := answer.read1(65536):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.close_connection = True

        def do_GET(self):
            self.forward()

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            with lock, open(args.out, "a") as out:
                out.write(body.decode() + "\n")
            self.forward(body)

        def log_message(self, *_):
            pass

    http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Proxy).serve_forever()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(required=True)
    rec = sub.add_parser("record", help="a pass-through proxy writing each POST body to --out")
    rec.add_argument("--upstream", required=True)
    rec.add_argument("--port", type=int, default=18090)
    rec.add_argument("--out", required=True)
    rec.set_defaults(run=record)
    pro = sub.add_parser("probe", help="P(search) at each recorded second turn, per variant")
    pro.add_argument("bodies")
    pro.add_argument("--server", default="http://127.0.0.1:18084")
    pro.add_argument("--variants", default="base", help="comma-separated names, or all")
    pro.add_argument("-v", "--verbose", action="store_true")
    pro.set_defaults(run=probe)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
