#!/usr/bin/env python3
"""Summarise a tribunal results file (runs/<arena>.jsonl) of a live run.

Usage: python3 live/summarize.py RESULTS.jsonl [TRANSCRIPTS_DIR]

Prints PASS/FAIL/ERROR, tool calls per item (the answer tool is never one),
repeated calls, calls read from text, turns, seconds per turn and tokens, then one line per item
that did not pass: its error code, or the checks that failed. With the
transcripts folder it also says which items answered through the answer tool,
and whether each item's first tool call came before its answer.
"""
import json
import sys
from collections import Counter
from pathlib import Path


def main() -> None:
    rows = [json.loads(l) for l in Path(sys.argv[1]).read_text().splitlines() if l.strip()]
    transcripts = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    outcomes = Counter(r["outcome"] for r in rows)
    calls = [len(r["tool_calls"]) for r in rows]
    repeated = sum(1 for r in rows for c in r["tool_calls"] if c.get("repeated"))
    from_text = sum(1 for r in rows for c in r["tool_calls"] if c.get("from_text"))
    text_items = sum(1 for r in rows if any(c.get("from_text") for c in r["tool_calls"]))
    turns = sum(r["turns"] for r in rows)
    wall = sum(r["wall_ms"] for r in rows) / 1000
    tokens_in = sum(r["usage"]["input_tokens"] for r in rows)
    tokens_out = sum(r["usage"]["output_tokens"] for r in rows)
    searched = sum(1 for r in rows if any(c["ok"] for c in r["tool_calls"]))
    print(
        f"{len(rows)} items: {outcomes['PASS']} PASS, {outcomes['FAIL']} FAIL, "
        f"{outcomes['ERROR']} ERROR; items with a successful tool call: {searched}/{len(rows)}"
    )
    print(
        f"tool calls per item: mean {sum(calls) / len(rows):.1f}, min {min(calls)}, max {max(calls)}"
        f" ({repeated} repeated, {from_text} read from text in {text_items} items); turns {turns} ({turns / len(rows):.1f} per item); "
        f"{wall / max(turns, 1):.2f} s per turn; tokens in {tokens_in}, out {tokens_out} "
        f"({(tokens_in + tokens_out) / len(rows):.0f} per item); repairs {sum(r['repair_used'] for r in rows)}"
    )
    finalized = Counter(r["finalized_after"] for r in rows if r.get("finalized_after"))
    cached = sum(r["usage"].get("cache_read_tokens", 0) for r in rows)
    print(
        "finalized (answer asked for with tools disabled): "
        + (", ".join(f"{n} after {why}" for why, n in sorted(finalized.items())) or "none")
        + f"; wall {wall:.0f} s; cache-read input tokens {cached} "
        f"({100 * cached / max(tokens_in, 1):.0f}% of input)"
    )
    for r in rows:
        if r["outcome"] == "PASS":
            continue
        why = r.get("error_code") or "; ".join(
            f"{c['type']}: {c.get('detail', '')}" for c in r["checks"] if not c["ok"]
        )
        print(f"  {r['outcome']:5} {r['id']}: {why[:300]}")
    if transcripts:
        via_tool = 0
        for f in sorted(transcripts.glob("*.json")):
            t = json.loads(f.read_text())
            names = [
                c["name"]
                for m in t["conversation"]["messages"]
                if m["role"] == "assistant"
                for c in m.get("tool_calls", [])
            ]
            via_tool += "final_answer" in names
        print(f"answers through the answer tool: {via_tool}")


if __name__ == "__main__":
    main()
