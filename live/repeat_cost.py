#!/usr/bin/env python3
"""What a run's unavoidable repeat costs, and what an alternative finalize would.

Reads a cassette (`run --record DIR`) and, for every finalize request sent
after a turn that only repeated earlier calls (its last user message says the
calls repeated), prints:

- the repeat turn: the request whose answer was the repeat (input, output);
- today's finalize: that request plus the repeat call, its "not run again"
  result and the finalize message (input, output, cache reads);
- the alternative: the repeat turn's request sent again with the answer tool
  forced instead — its input is the repeat turn's input, every token of it a
  prefix the server has just seen (a prompt cache covers it), so the finalize
  costs that input and the answer's output. Today's finalize offers fewer tools
  (none, or only the answer tool), so its input can be the smaller one; the
  alternative's advantage is that none of its input is new to the cache.

    python3 live/repeat_cost.py CASSETTE.jsonl
"""
import json
import sys

REPEATED = "your last calls repeated earlier ones"


def usage_of(entry):
    turn = entry.get("outcome", {}).get("turn") or {}
    return turn.get("usage") or {}


def main(path):
    exchanges = []
    for line in open(path):
        d = json.loads(line)
        if d.get("type") == "exchange":
            exchanges.append(d)
    by_len = {}
    for e in exchanges:
        msgs = e["request"]["messages"]
        by_len.setdefault(json.dumps(msgs[:1]), []).append(e)
    total_today = total_alt = count = 0
    uncached_today = 0
    for e in exchanges:
        msgs = e["request"]["messages"]
        last = msgs[-1] if msgs else {}
        if last.get("role") != "user" or REPEATED not in last.get("text", ""):
            continue
        # The repeat turn's request: same run (same first message), messages
        # up to before the repeat call (the finalize request minus its last
        # three messages: the repeat call, its result, the finalize message).
        prefix = msgs[:-3]
        repeat = next(
            (x for x in by_len[json.dumps(msgs[:1])] if x["request"]["messages"] == prefix),
            None,
        )
        if repeat is None:
            continue
        fin, rep = usage_of(e), usage_of(repeat)
        today = fin.get("input_tokens", 0) + fin.get("output_tokens", 0)
        alt = rep.get("input_tokens", 0) + fin.get("output_tokens", 0)
        count += 1
        uncached_today += fin.get("input_tokens", 0) - fin.get("cache_read_tokens", 0)
        total_today += today
        total_alt += alt
        print(
            f"{msgs[0]['text'][:40]:40} repeat turn in {rep.get('input_tokens', 0)} out {rep.get('output_tokens', 0)}; "
            f"finalize today in {fin.get('input_tokens', 0)} (cache {fin.get('cache_read_tokens', 0)}) out {fin.get('output_tokens', 0)}; "
            f"alternative in {rep.get('input_tokens', 0)} out {fin.get('output_tokens', 0)}"
        )
    if count:
        print(
            f"{count} finalize requests after repeats: today {total_today} tokens, "
            f"alternative {total_alt} ({total_today - total_alt} fewer, "
            f"{(total_today - total_alt) / count:.0f} per finalize); uncached input: "
            f"today {uncached_today}, alternative ~0 (its whole prompt was just sent)"
        )


if __name__ == "__main__":
    main(sys.argv[1])
