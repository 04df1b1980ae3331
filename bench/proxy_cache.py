"""What a scripted agent session costs sent direct, and through `tokens proxy` in each mode.

Baseline: the same session sent straight to the provider (direct). The session is an
Anthropic Messages conversation: a system prompt and tools, a user request, then TURNS turns
of (assistant: a `tool_use` and a line of text; user: its `tool_result`), each result a real
capture from `fixtures/real/` (every file over 1 KB, taken in a fixed order). Each turn is
one request holding the whole conversation so far, with a `cache_control` breakpoint on its
last message, as agents send it.

Each request body goes through the proxy's own code (`proxy_rewrite.rewrite` with a
`ResultCompressor` over a fresh store, the real pipeline). The provider's cache is modelled
as Anthropic documents it: a request reads from cache the longest earlier request that is a
prefix of it (message for message, byte-identical), and writes the rest of itself to cache
at its breakpoint. Tokens are o200k_base counts of each message's text (the provider's own
tokenizer differs; the ratios are what matter). Prices are Claude Sonnet's published rates
per million tokens: input $3, cache write (5 minutes) $3.75 (1.25x), cache read $0.30 (0.1x).

Modes:
- direct: nothing changed.
- proxy newest / proxy all: `--only-newest` and `--all-results`, the proxy running from the
  first request, and joining at turn JOIN (the first turns were sent direct: a session
  resumed, or the proxy started mid-session).
- unstable (reference): every result compressed, but its text differs on each request (a
  request counter in it), as a proxy without a content-addressed mapping may do.

    python bench/proxy_cache.py --turns 10 --join 5
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tokenlab.agent.proxy_compress import ResultCompressor
from tokenlab.agent.proxy_rewrite import Api, ToolResult, rewrite
from tokenlab.counting import tokens
from tokenlab.store import open_store

PRICE_INPUT, PRICE_WRITE, PRICE_READ = 3.00, 3.75, 0.30  # $ per million tokens
SYSTEM = "You are a coding agent. Use the Bash tool to inspect the project. " * 40
TOOLS = [
    {
        "name": "Bash",
        "description": "Run a shell command.",
        "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}},
    }
]


def outputs(count: int) -> list[tuple[str, str]]:
    files = sorted(
        p
        for p in (ROOT / "fixtures" / "real").iterdir()
        if p.suffix != ".signals" and p.stat().st_size > 1024
    )
    step = max(1, len(files) // count)
    return [(p.name, p.read_text(errors="replace")) for p in files[::step][:count]]


def requests(turns: int) -> list[bytes]:
    messages: list[dict] = [{"role": "user", "content": "Find out why the build and the tests fail."}]
    bodies = []
    for n, (name, text) in enumerate(outputs(turns)):
        messages.append({"role": "assistant", "content": [
            {"type": "text", "text": f"Let me look at {name}."},
            {"type": "tool_use", "id": f"toolu_{n:03d}", "name": "Bash", "input": {"command": f"cat {name}"}}]})  # fmt: skip
        messages.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n:03d}", "content": text}],
            }
        )
        last = [dict(m) for m in messages]
        last[-1] = {
            **last[-1],
            "content": [{**last[-1]["content"][0], "cache_control": {"type": "ephemeral"}}],
        }
        body = {
            "model": "claude-sonnet",
            "max_tokens": 1024,
            "system": SYSTEM,
            "tools": TOOLS,
            "messages": last,
        }
        bodies.append(json.dumps(body).encode())
    return bodies


@dataclass
class Cost:
    """A session's input tokens; with a breakpoint on the last message every token is either
    written to cache or read from it, so none is priced at the plain input rate."""

    write: int = 0
    read: int = 0

    @property
    def sent(self) -> int:
        return self.write + self.read

    @property
    def dollars(self) -> float:
        return (self.write * PRICE_WRITE + self.read * PRICE_READ) / 1e6

    @property
    def uncached_dollars(self) -> float:
        return self.sent * PRICE_INPUT / 1e6


def _message_tokens(message: dict) -> int:
    def texts(value: object) -> list[str]:
        if isinstance(value, str):
            return [value]
        if isinstance(value, list):
            return [t for item in value for t in texts(item)]
        if isinstance(value, dict):
            return [t for k, item in value.items() if k != "cache_control" for t in texts(item)]
        return []

    return tokens.count("\n".join(texts(message))) + 4


def priced(bodies: list[bytes]) -> Cost:
    """The session's tokens: each request reads the longest earlier request that prefixes it
    from cache and writes the rest of itself."""
    cost, earlier = Cost(), []
    head = tokens.count(SYSTEM + json.dumps(TOOLS))
    for raw in bodies:
        messages = [
            json.dumps({k: v for k, v in m.items()}, sort_keys=True)
            for m in _uncached(json.loads(raw)["messages"])
        ]
        sizes = [_message_tokens(json.loads(m)) for m in messages]
        hit = max((len(e) for e in earlier if messages[: len(e)] == e), default=-1)
        total = head + sum(sizes)
        read = head + sum(sizes[:hit]) if hit >= 0 else 0
        cost.read += read
        cost.write += total - read
        earlier.append(messages)
    return cost


def _uncached(messages: list[dict]) -> list[dict]:
    """Messages without their cache breakpoint (it moves each turn and is no part of the prefix)."""
    out = []
    for message in messages:
        content = message["content"]
        if isinstance(content, list):
            content = [{k: v for k, v in block.items() if k != "cache_control"} for block in content]
        out.append({**message, "content": content})
    return out


def through_proxy(bodies: list[bytes], *, only_newest: bool, join: int = 0) -> list[bytes]:
    with tempfile.TemporaryDirectory() as folder, open_store(folder) as store:
        compressor = ResultCompressor(store, Api.ANTHROPIC, only_newest=only_newest)
        return [
            raw if n < join else rewrite(raw, Api.ANTHROPIC, compressor).body for n, raw in enumerate(bodies)
        ]


def unstable(bodies: list[bytes]) -> list[bytes]:
    with tempfile.TemporaryDirectory() as folder, open_store(folder) as store:
        compressor = ResultCompressor(store, Api.ANTHROPIC, only_newest=False)
        out = []
        for n, raw in enumerate(bodies):
            varying: Callable[[ToolResult, str], str | None] = lambda r, m, n=n: (
                (v := compressor(r, m)) and f"{v}\n(request {n})"
            )
            out.append(rewrite(raw, Api.ANTHROPIC, varying).body)
        return out


def table(turns: int, join: int) -> str:
    bodies = requests(turns)
    rows = [
        ("direct", bodies),
        ("proxy newest (from turn 1)", through_proxy(bodies, only_newest=True)),
        ("proxy all (from turn 1)", through_proxy(bodies, only_newest=False)),
        (f"proxy newest (joins at turn {join + 1})", through_proxy(bodies, only_newest=True, join=join)),
        (f"proxy all (joins at turn {join + 1})", through_proxy(bodies, only_newest=False, join=join)),
        ("unstable rewrite (reference)", unstable(bodies)),
    ]
    direct = priced(bodies).dollars
    lines = [
        f"{turns} turns, {len(outputs(turns))} tool results from fixtures/real/:",
        "",
        "| MODE | INPUT TOKENS SENT | CACHE WRITES | CACHE READS | COST $ | vs DIRECT | COST $ WITHOUT CACHING |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, sent in rows:
        cost = priced(sent)
        lines.append(
            f"| {name} | {cost.sent:,} | {cost.write:,} | {cost.read:,} | {cost.dollars:.4f}"
            f" | {cost.dollars / direct:.2f}x | {cost.uncached_dollars:.4f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument(
        "--join", type=int, default=None, help="turns sent direct before the proxy joins (default: half)"
    )
    args = parser.parse_args()
    print(table(args.turns, args.turns // 2 if args.join is None else args.join))


if __name__ == "__main__":
    main()
