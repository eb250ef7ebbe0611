#!/usr/bin/env python3
"""What `on_nothing_new = "finalize"` would have saved on recorded runs.

Replays the tool results of each transcript (`run --transcripts DIR`) through
the rule the runtime applies (runtime/src/seen_results.rs): a turn whose
calls all ran without error and whose results hold no non-blank line that an
earlier result of the run did not hold ends the tool phase; the next request
is the finalize. Prints, per item, the model requests the run made, the ones
it would have made, and an estimate of the tokens saved (the run's tokens per
request times the requests saved: later requests are longer, so it is low).

    python3 live/nothing_new.py DIR [DIR ...]
"""
import json
import pathlib
import sys


def requests_with_rule(messages):
    """The model requests up to the finalize the rule asks for, or None."""
    seen = set()
    requests = 0
    for m in messages:
        if m.get("role") == "assistant":
            requests += 1
        if m.get("role") != "tool_results":
            continue
        results = m.get("results", [])
        ok = all(not r.get("is_error") for r in results)
        new = False
        for r in results:
            if r.get("is_error"):
                continue
            for line in r.get("content", "").splitlines():
                line = line.strip()
                if line and line not in seen:
                    seen.add(line)
                    new = True
        if results and ok and not new:
            return requests + 1
    return None


def main(dirs):
    total_saved_requests = total_saved_tokens = total_tokens = items = 0
    for d in dirs:
        for path in sorted(pathlib.Path(d).glob("*.json")):
            t = json.loads(path.read_text())
            messages = t["conversation"]["messages"]
            report = t["report"]
            usage = report.get("usage", {})
            tokens = usage.get("input_tokens", 0) + usage.get("output_tokens", 0)
            made = sum(1 for m in messages if m.get("role") == "assistant")
            would = requests_with_rule(messages)
            items += 1
            total_tokens += tokens
            if would is None or would >= made:
                print(f"{path.stem:40} {made} requests, unchanged")
                continue
            saved = made - would
            est = round(tokens / made * saved)
            total_saved_requests += saved
            total_saved_tokens += est
            print(f"{path.stem:40} {made} requests -> {would} (~{est} tokens saved)")
    if items:
        print(
            f"{items} runs: {total_tokens / items:.0f} tokens/item recorded; "
            f"{total_saved_requests} requests and ~{total_saved_tokens} tokens saved "
            f"(~{(total_tokens - total_saved_tokens) / items:.0f} tokens/item)"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
