#!/usr/bin/env python3
"""The structured_output arena with tribunal and with pydantic-ai, side by side.

Both run against the same OpenAI-compatible server with the same system
prompt, the same `search` tool (same name, description and parameter schema,
and the very text tribunal's tool returns: the hits come from `tribunal search`,
the same BM25, rendered as `tools/src/search.rs` renders them), the same output
schema and the same limits: the arena's `max_tool_calls` tool calls and
`max_turns` requests, its `max_output_tokens` per answer, its run deadline,
temperature 0 and 2 runs at once. Each side's answers are scored with the
arena's checks, and the script prints PASS / FAIL / ERROR, tokens per item,
requests per item and how each run ended, for both.

pydantic-ai keeps its defaults: the output tool (`final_result`), offered on
every request with tool_choice "required", and its own retries (1 per tool and
for the output). A run it ends with an exception (`UsageLimitExceeded`,
`UnexpectedModelBehavior`, ...) reports no usage (`RunTimedOut`, the deadline,
keeps it): such a run's tokens are None, the tokens per item of pydantic-ai are
a lower bound over the runs that reported usage, and the table also shows the
tokens summed from the responses each run had received (captured with
`capture_run_messages`), which counts every run.

Install (a venv outside the repo; PyPI only):

    python3 -m venv /work/venv-sbs
    /work/venv-sbs/bin/pip install -r bench/requirements-side-by-side.txt

Run (from the repo root; the server is already up, see LIVE.md):

    OPENAI_API_KEY=sk-local /work/venv-sbs/bin/python bench/side_by_side.py \\
        --base-url http://127.0.0.1:18084/v1 --model qwen \\
        --tribunal target/release/tribunal --json runs/side-by-side.json

Options: `--limit N` runs the first N items only, `--only tribunal|pydantic`
one side only, `--concurrency`, `--temperature`, `--deadline SECS` (both
sides; tribunal gets a copy of the arena with that `deadline_secs`), `--json
OUT` saves every per-item row of both sides, `--keep DIR` keeps tribunal's
results and report, `--check-search CASSETTE` only checks that the search text
given to pydantic-ai equals the tool results recorded in a tribunal cassette. The tribunal side is
`tribunal run ARENA --backend openai-chat --model M --concurrency C
--temperature T --out FILE` with `OPENAI_BASE_URL` set to `--base-url`; its
terminal report goes to `FILE.report.txt` beside the results.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_ARENA = REPO / "arenas" / "structured_output"

# tools/src/search.rs: the tool's name, description and parameters, verbatim.
SEARCH_NAME = "search"
SEARCH_DESCRIPTION = (
    "Search the reference corpus by keywords (BM25 ranking). Returns the best "
    "passages, one per line, as `[id] title: text`. Cite passages by id."
)
DEFAULT_K = 3
MAX_K = 20
SEARCH_PARAMETERS = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "Keywords to search for."},
        "k": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_K,
            "default": DEFAULT_K,
            "description": "How many passages to return (default 3).",
        },
    },
    "required": ["query"],
    "additionalProperties": False,
}
NO_RESULTS = "no results: no passage matches the query; try other words"


# ---------------------------------------------------------------- the arena


@dataclass
class Arena:
    path: Path
    name: str
    system: str
    schema: dict
    corpus: Path
    items: list[dict]
    max_tool_calls: int
    max_turns: int
    deadline_secs: float | None
    max_output_tokens: int | None


def load_arena(path: Path, limit: int | None) -> Arena:
    toml = tomllib.loads((path / "arena.toml").read_text())
    budget = toml.get("budget", {})
    items = [json.loads(l) for l in (path / "dataset.jsonl").read_text().splitlines() if l.strip()]
    return Arena(
        path=path,
        name=toml["name"],
        system=toml["system"],
        schema=json.loads((path / toml["schema"]).read_text()),
        corpus=path / toml["corpus"],
        items=items[:limit] if limit else items,
        max_tool_calls=budget["max_tool_calls"],
        max_turns=budget["max_turns"],
        deadline_secs=budget.get("deadline_secs"),
        max_output_tokens=toml.get("backend", {}).get("max_output_tokens"),
    )


# ------------------------------------------------ the search tool's text


def joined_lines(s: str) -> str:
    """runtime/src/text.rs `push_joined_lines`: lines trimmed, blank ones
    dropped, joined by one space."""
    return " ".join(line.strip() for line in re.split(r"[\r\n]", s) if line.strip())


def render_hits(hits: list[dict]) -> str:
    """tools/src/search.rs `render`: `[id] title: text`, one line per hit."""
    if not hits:
        return NO_RESULTS
    return "\n".join(
        f"[{joined_lines(h['id'])}] {joined_lines(h['title'])}: {joined_lines(h['text'])}"
        for h in hits
    )


def check_search_args(args: dict) -> tuple[str, int]:
    """The query and k of a call, checked as tools/src/search.rs checks them
    (messages after serde's)."""
    for key in args:
        if key not in ("query", "k"):
            raise ValueError(f"invalid arguments for search: unknown field `{key}`, expected `query` or `k`")
    if "query" not in args:
        raise ValueError("invalid arguments for search: missing field `query`")
    query, k = args["query"], args.get("k")
    if not isinstance(query, str):
        raise ValueError(f"invalid arguments for search: invalid type: {json.dumps(query)}, expected a string")
    if k is None:
        return query, DEFAULT_K
    if isinstance(k, bool) or not isinstance(k, int):
        raise ValueError(f"invalid arguments for search: invalid type: {json.dumps(k)}, expected i64")
    if not 1 <= k <= MAX_K:
        raise ValueError(f"invalid arguments for search: k must be between 1 and {MAX_K}, got {k}")
    return query, k


class TribunalSearch:
    """The hits of `tribunal search CORPUS QUERY -k K` (the same BM25 the
    tool runs), rendered as the tool renders them."""

    def __init__(self, tribunal: str, corpus: Path):
        self.tribunal, self.corpus = tribunal, corpus
        self.cache: dict[tuple[str, int], str] = {}

    async def text(self, query: str, k: int) -> str:
        if (query, k) not in self.cache:
            proc = await asyncio.create_subprocess_exec(
                self.tribunal, "search", str(self.corpus), query, "-k", str(k),
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            )
            out, err = await proc.communicate()
            if proc.returncode != 0:
                raise RuntimeError(f"tribunal search failed ({proc.returncode}): {err.decode()[:300]}")
            self.cache[(query, k)] = render_hits(json.loads(out))
        return self.cache[(query, k)]


async def check_search(search: TribunalSearch, cassette: Path) -> int:
    """Every `search` call recorded in a tribunal cassette, asked again here:
    the text this script gives pydantic-ai must equal the recorded tool
    result. Returns the number of mismatches."""
    pairs = {}
    for line in cassette.read_text().splitlines():
        record = json.loads(line)
        messages = record.get("request", {}).get("messages", [])
        calls = {c["id"]: c for m in messages for c in m.get("tool_calls", []) if c["name"] == SEARCH_NAME}
        for m in messages:
            for r in m.get("results", []):
                if r["id"] in calls and not r["is_error"]:
                    pairs[calls[r["id"]]["arguments"]] = r["content"]
    bad = 0
    for arguments, recorded in pairs.items():
        ours = await search.text(*check_search_args(json.loads(arguments)))
        bad += ours != recorded
        print(f"{'same' if ours == recorded else 'DIFFERENT'}: {json.dumps(json.loads(arguments))}")
    print(f"{len(pairs) - bad} of {len(pairs)} recorded search results reproduced exactly")
    return bad


# ---------------------------------------------------------------- checks


def lookup(root: Any, path: str) -> Any:
    """judge/src/checks.rs `lookup`: a dotted path; numeric parts index arrays.
    Returns a 1-tuple holding the value, or None when absent."""
    path = path.removeprefix("$").removeprefix(".")
    value = root
    for part in path.split(".") if path else []:
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return None
    return (value,)


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def values_equal(actual: Any, expected: Any, tol: float | None) -> bool:
    """judge/src/checks.rs `values_equal`."""
    if is_number(actual) and is_number(expected):
        return abs(actual - expected) <= tol if tol is not None else actual == expected
    if isinstance(actual, str) and isinstance(expected, str):
        return actual.strip().lower() == expected.strip().lower()
    return actual == expected


def check_schema(tribunal: str, schema_path: Path, answer: Any) -> tuple[bool, str]:
    proc = subprocess.run(
        [tribunal, "check", "--strict", "--schema", str(schema_path)],
        input=json.dumps(answer), capture_output=True, text=True,
    )
    if proc.returncode == 0:
        return True, "the answer matches the schema"
    try:
        errors = json.loads(proc.stdout).get("errors") or []
        return False, "; ".join(f"{e['path']}: {e['message']}" for e in errors)[:200]
    except (json.JSONDecodeError, AttributeError, KeyError, TypeError):
        return False, (proc.stdout or proc.stderr).strip()[:200]


def score(check: dict, answer: Any, search_calls_ok: int, tribunal: str, schema_path: Path) -> tuple[bool, str]:
    """One of the arena's checks (the types dataset.jsonl uses)."""
    kind = check["type"]
    if kind == "tool_used":
        least = check.get("min", 1)
        return search_calls_ok >= least if check["name"] == SEARCH_NAME else False, (
            f"{check['name']} called {search_calls_ok if check['name'] == SEARCH_NAME else 0} time(s), "
            f"at least {least} required"
        )
    if answer is None:
        return False, "the run produced no answer"
    if kind == "json_schema":
        return check_schema(tribunal, schema_path, answer)
    if kind == "json_path_equals":
        found = lookup(answer, check["path"])
        if found is None:
            return False, f"{check['path']}: not found"
        ok = values_equal(found[0], check["value"], check.get("tol"))
        return ok, f"{check['path']}: expected {json.dumps(check['value'])}, got {json.dumps(found[0])}"
    raise SystemExit(f"check type {kind!r} is not implemented by this script")


# ---------------------------------------------------------------- one row per item


@dataclass
class Row:
    side: str
    id: str
    outcome: str  # PASS, FAIL or ERROR
    ending: str  # "answer", "answer after finalize (...)", an error code or an exception class
    detail: str = ""
    requests: int = 0
    tool_calls: int = 0
    # None when the side reports no usage for the run (pydantic-ai, on a raise).
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    # pydantic-ai only: the tokens summed over the responses the run received
    # (from its captured messages), also on a run that raised.
    captured_tokens: int | None = None
    wall_s: float = 0.0
    answer: Any = None
    failed_checks: list[str] = field(default_factory=list)

    @property
    def tokens(self) -> int | None:
        if self.input_tokens is None or self.output_tokens is None:
            return None
        return self.input_tokens + self.output_tokens


# ---------------------------------------------------------------- tribunal


def run_tribunal(args: argparse.Namespace, arena: Arena, env: dict, work: Path) -> tuple[list[Row], float]:
    """`tribunal run` on the arena (on a copy holding the first items when
    --limit cuts it), then its results rows read back."""
    source = arena.path
    if args.limit or args.deadline:
        source = work / "arena"
        shutil.copytree(arena.path, source, ignore=shutil.ignore_patterns("cassettes", "dataset.jsonl"))
        (source / "dataset.jsonl").write_text("".join(json.dumps(i) + "\n" for i in arena.items))
        if args.deadline:
            toml = (source / "arena.toml").read_text()
            toml, n = re.subn(r"(?m)^deadline_secs\s*=.*$", f"deadline_secs = {args.deadline}", toml)
            if n != 1:
                raise SystemExit("--deadline: arena.toml has no single `deadline_secs` line to replace")
            (source / "arena.toml").write_text(toml)
    out = work / "tribunal.jsonl"
    cmd = [
        args.tribunal, "run", str(source), "--backend", "openai-chat", "--model", args.model,
        "--concurrency", str(args.concurrency), "--temperature", str(args.temperature),
        "--parallel-tool-calls", "false", "--out", str(out),
    ]
    print("tribunal:", " ".join(cmd), file=sys.stderr)
    started = time.monotonic()
    with open(work / "tribunal.report.txt", "w") as report:
        proc = subprocess.run(cmd, env={**env, "OPENAI_BASE_URL": args.base_url}, stdout=report, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - started
    if not out.exists():
        raise SystemExit(f"tribunal wrote no results (exit {proc.returncode}): {proc.stderr.strip()[-1000:]}")
    rows = []
    for line in out.read_text().splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        usage = r.get("usage") or {}
        if r.get("error_code"):
            ending = r["error_code"]
        elif r.get("finalized_after"):
            ending = f"answer after finalize ({r['finalized_after']})"
        else:
            ending = "answer"
        rows.append(Row(
            side="tribunal", id=r["id"], outcome=r["outcome"], ending=ending,
            requests=r["turns"], tool_calls=len(r["tool_calls"]),
            input_tokens=usage.get("input_tokens", 0), output_tokens=usage.get("output_tokens", 0),
            cache_read_tokens=usage.get("cache_read_tokens", 0),
            wall_s=r["wall_ms"] / 1000, answer=r.get("answer"),
            failed_checks=[f"{c['type']}: {c.get('detail', '')}" for c in r.get("checks", []) if not c["ok"]],
        ))
    order = {item["id"]: i for i, item in enumerate(arena.items)}
    rows.sort(key=lambda r: order.get(r.id, len(order)))
    return rows, wall


# ---------------------------------------------------------------- pydantic-ai


def ending_of(exc: BaseException) -> str:
    """The exception class, and for a usage limit which one."""
    name = type(exc).__name__
    limit = re.search(r"\b(\w+_limit)\b", str(exc)) if name == "UsageLimitExceeded" else None
    return f"{name} ({limit.group(1)})" if limit else name


async def run_pydantic(args: argparse.Namespace, arena: Arena, search: TribunalSearch) -> tuple[list[Row], float]:
    from pydantic_ai import Agent, ModelRetry, StructuredDict, Tool, capture_run_messages
    from pydantic_ai.messages import ModelResponse, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider
    from pydantic_ai.settings import ModelSettings
    from pydantic_ai.usage import RunUsage, UsageLimits

    async def search_tool(**call: Any) -> str:
        try:
            query, k = check_search_args(call)
        except ValueError as e:
            raise ModelRetry(str(e)) from None
        return await search.text(query, k)

    model = OpenAIChatModel(
        args.model,
        provider=OpenAIProvider(base_url=args.base_url, api_key=os.environ.get("OPENAI_API_KEY", "sk-local")),
    )
    agent = Agent(
        model,
        system_prompt=arena.system,
        output_type=StructuredDict(arena.schema),
        tools=[Tool.from_schema(search_tool, SEARCH_NAME, SEARCH_DESCRIPTION, SEARCH_PARAMETERS)],
    )
    # tribunal sends parallel_tool_calls false on this server: so does this side.
    settings = ModelSettings(temperature=args.temperature, parallel_tool_calls=False)
    if arena.max_output_tokens:
        settings["max_tokens"] = arena.max_output_tokens
    limits = UsageLimits(request_limit=arena.max_turns, tool_calls_limit=arena.max_tool_calls)
    gate = asyncio.Semaphore(args.concurrency)
    deadline = args.deadline or arena.deadline_secs

    async def one(item: dict) -> Row:
        async with gate:
            started = time.monotonic()
            with capture_run_messages() as messages:
                try:
                    result = await agent.run(item["input"], model_settings=settings, usage_limits=limits, timeout=deadline)
                    answer, ending, detail, exc = result.output, "answer", "", None
                except Exception as e:  # every way a run ends is a row
                    answer, ending, detail, exc = None, ending_of(e), str(e).split("\n")[0][:300], e
                    # RunTimedOut (a RunCancelled) keeps the run's usage; the other errors carry none.
                    usage = getattr(e, "usage", None)
            wall = time.monotonic() - started
            messages = list(messages)
        responses = [m for m in messages if isinstance(m, ModelResponse)]
        calls = [p for m in responses for p in m.parts if isinstance(p, ToolCallPart) and p.tool_name == SEARCH_NAME]
        ok_calls = sum(
            1 for m in messages for p in getattr(m, "parts", []) if isinstance(p, ToolReturnPart) and p.tool_name == SEARCH_NAME
        )
        row = Row(
            side="pydantic-ai", id=item["id"], outcome="ERROR", ending=ending, detail=detail,
            requests=len(responses), tool_calls=len(calls), wall_s=wall,
            captured_tokens=sum(m.usage.input_tokens + m.usage.output_tokens for m in responses),
        )
        if exc is None:
            usage = result.usage
        if isinstance(usage, RunUsage):
            row.input_tokens, row.output_tokens = usage.input_tokens, usage.output_tokens
            row.cache_read_tokens = usage.cache_read_tokens
        if exc is None:
            row.requests, row.tool_calls = usage.requests, usage.tool_calls
            row.answer = dict(answer)
            results = [score(c, row.answer, ok_calls, args.tribunal, arena.path / "schema.json") for c in item["checks"]]
            row.failed_checks = [f"{c['type']}: {d}" for c, (ok, d) in zip(item["checks"], results) if not ok]
            row.outcome = "FAIL" if row.failed_checks else "PASS"
        return row

    started = time.monotonic()
    rows = await asyncio.gather(*(one(item) for item in arena.items))
    return list(rows), time.monotonic() - started


# ---------------------------------------------------------------- the table


def per(total: float, n: int, digits: int = 0) -> str:
    return f"{total / n:,.{digits}f}" if n else "-"


def summary(rows: list[Row], wall: float) -> dict[str, str]:
    n = len(rows)
    outcomes = Counter(r.outcome for r in rows)
    counted = [r for r in rows if r.tokens is not None]
    tokens = sum(r.tokens for r in counted)
    unreported = n - len(counted)
    bound = f" (lower bound: {unreported} run(s) raised, no usage)" if unreported else ""
    pass_rows = outcomes["PASS"]
    if any(r.captured_tokens is not None for r in rows):
        captured = per(sum(r.captured_tokens or 0 for r in rows), n) + " (all runs, from the responses received)"
    else:
        captured = "= tokens/item (usage on every row)"
    s = {
        "items": str(n),
        "PASS / FAIL / ERROR": f"{outcomes['PASS']} / {outcomes['FAIL']} / {outcomes['ERROR']}",
        "tokens/item": per(tokens, n) + bound,
        "tokens/item, captured": captured,
        "tokens/PASS": (per(tokens, pass_rows) if pass_rows else "-") + (" (lower bound)" if unreported and pass_rows else ""),
        "input + output tokens": f"{sum(r.input_tokens for r in counted):,} + {sum(r.output_tokens for r in counted):,}",
        "cache-read input tokens": f"{sum(r.cache_read_tokens or 0 for r in counted):,}",
    }
    s["requests/item"] = per(sum(r.requests for r in rows), n, 1)
    s["search calls/item"] = per(sum(r.tool_calls for r in rows), n, 1)
    s["wall time"] = f"{wall:,.0f} s"
    return s


def print_report(sides: dict[str, tuple[list[Row], float]]) -> None:
    sums = {name: summary(rows, wall) for name, (rows, wall) in sides.items()}
    keys = list(dict.fromkeys(k for s in sums.values() for k in s))
    width = max(len(k) for k in keys) + 2
    col = max(24, *(len(v) + 2 for s in sums.values() for v in s.values()))
    print("\n" + " " * width + "".join(f"{name:<{col}}" for name in sums))
    for k in keys:
        print(f"{k:<{width}}" + "".join(f"{sums[name].get(k, '-'):<{col}}" for name in sums))
    for name, (rows, _) in sides.items():
        endings = Counter(r.ending for r in rows)
        print(f"\n{name}: how runs ended: " + ", ".join(f"{n} {e}" for e, n in endings.most_common()))
    if "pydantic-ai" in sides and any(r.tokens is None for r in sides["pydantic-ai"][0]):
        print("pydantic-ai reports no usage on a run that raised: those rows have tokens None and are"
              " left out of its tokens/item (a lower bound); 'captured' adds them back from the"
              " responses the run had received.")
    print("\nper item:")
    ids = list(dict.fromkeys(r.id for rows, _ in sides.values() for r in rows))
    by = {name: {r.id: r for r in rows} for name, (rows, _) in sides.items()}
    for item in ids:
        cells = []
        for name in sides:
            r = by[name].get(item)
            if r is None:
                cells.append(f"{name}: -")
                continue
            tok = f"{r.tokens:,}" if r.tokens is not None else f"None (captured {r.captured_tokens:,})" if r.captured_tokens is not None else "None"
            why = r.failed_checks[0] if r.failed_checks else r.detail
            cells.append(f"{name}: {r.outcome} {r.ending}, {r.requests} req, {r.tool_calls} calls, {tok} tok"
                         + (f" [{why[:120]}]" if why and r.outcome != "PASS" else ""))
        print(f"  {item}\n    " + "\n    ".join(cells))


# ---------------------------------------------------------------- main


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--arena", type=Path, default=DEFAULT_ARENA)
    p.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL", "http://127.0.0.1:18084/v1"))
    p.add_argument("--model", default="qwen")
    p.add_argument("--tribunal", default=str(REPO / "target" / "release" / "tribunal"), help="the tribunal binary")
    p.add_argument("--only", choices=["tribunal", "pydantic"])
    p.add_argument("--limit", type=int, help="run the first N items only")
    p.add_argument("--concurrency", type=int, default=2)
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--deadline", type=int, help="each run's deadline in seconds, both sides (default: the arena's)")
    p.add_argument("--json", type=Path, help="save every per-item row of both sides here")
    p.add_argument("--keep", type=Path, help="keep tribunal's results and report in this folder")
    p.add_argument("--check-search", type=Path, metavar="CASSETTE",
                   help="only compare this script's search text with the results recorded in a tribunal cassette")
    args = p.parse_args()
    if not Path(args.tribunal).exists():
        raise SystemExit(f"no tribunal binary at {args.tribunal} (build it, or pass --tribunal)")
    arena = load_arena(args.arena, args.limit)
    if args.check_search:
        sys.exit(1 if asyncio.run(check_search(TribunalSearch(args.tribunal, arena.corpus), args.check_search)) else 0)
    print(f"{arena.name}: {len(arena.items)} item(s); {arena.max_tool_calls} tool calls, {arena.max_turns} requests,"
          f" {arena.max_output_tokens} output tokens, deadline {args.deadline or arena.deadline_secs} s, temperature {args.temperature},"
          f" {args.concurrency} at once; {args.base_url}, model {args.model}", file=sys.stderr)
    sides: dict[str, tuple[list[Row], float]] = {}
    with tempfile.TemporaryDirectory(prefix="side-by-side-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        if args.only != "pydantic":
            sides["tribunal"] = run_tribunal(args, arena, dict(os.environ), work)
        if args.only != "tribunal":
            search = TribunalSearch(args.tribunal, arena.corpus)
            sides["pydantic-ai"] = asyncio.run(run_pydantic(args, arena, search))
    print_report(sides)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(
            {name: {"wall_s": wall, "rows": [asdict(r) | {"tokens": r.tokens} for r in rows]} for name, (rows, wall) in sides.items()},
            indent=1,
        ) + "\n")


if __name__ == "__main__":
    main()
