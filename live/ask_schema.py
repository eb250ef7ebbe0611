# Sends a compiled wire schema (the JSON that `tribunal schema compile` prints) to a
# llama.cpp server as a strict response_format and writes the answer text:
#   python3 live/ask_schema.py COMPILED.json "PROMPT" ANSWER.txt
#   tribunal check --schema OWNER.json --target openai|anthropic --strict < ANSWER.txt
import json, sys, urllib.request
wire_file, prompt, out = sys.argv[1], sys.argv[2], sys.argv[3]
wire = json.load(open(wire_file))["wire"]
body = {"model": "qwen", "messages": [{"role": "user", "content": prompt}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "answer", "strict": True, "schema": wire}},
        "max_tokens": 400, "temperature": 0}
req = urllib.request.Request("http://127.0.0.1:18084/v1/chat/completions", data=json.dumps(body).encode(),
                             headers={"Content-Type": "application/json", "Authorization": "Bearer sk-local"})
try:
    r = urllib.request.urlopen(req, timeout=300)
    d = json.load(r)
    content = d["choices"][0]["message"]["content"]
    print("HTTP 200, finish:", d["choices"][0]["finish_reason"], "tokens:", d["usage"])
    open(out, "w").write(content)
    print(content[:600])
except urllib.error.HTTPError as e:
    print("HTTP", e.code, e.read()[:500])
