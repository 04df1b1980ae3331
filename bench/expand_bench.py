"""Drill-down speed on 100 MB refs: `show-ref --lines/--grep/--json-path/--head/--tail`.

Builds two refs of about 100 MB in a temporary store (a service log and a pretty-printed
JSON document of job records), then times `expand_ref` in-process, best of `--repeat`
runs, each including `Store.load` (read and sha256 check of the whole ref), which is
timed on its own too. Every answer is checked against its budget. The goal (issue, part
2) is "well under a second"; the JSON rows name how much of the document precedes the
subtree, since the walk skips what comes before it and never reads what follows.

    .venv/bin/python bench/expand_bench.py [--mb 100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from tokenlab import tokens
from tokenlab.agent.expand import expand_ref
from tokenlab.store import Store


def build_log(size: int) -> bytes:
    rng = random.Random(7)
    lines, total, number = [], 0, 0
    while total < size:
        number += 1
        if number % 7919 == 0:
            line = f"2024-05-01T12:{number % 60:02d}:00Z ERROR PaymentService line 421 req={number}\n"
        else:
            line = (
                f"2024-05-01T12:{number % 60:02d}:{number % 60:02d}Z INFO request served "
                f"id={rng.getrandbits(48):012x} path=/api/v1/items/{number} ms={rng.randint(1, 900)}\n"
            )
        lines.append(line)
        total += len(line)
    return "".join(lines).encode()


def build_json(size: int) -> tuple[bytes, int]:
    rng = random.Random(11)
    items, total = [], 0
    while total < size:
        n = len(items)
        failed = n % 997 == 0
        item = {
            "id": n,
            "status": "failed" if failed else "ok",
            "error": {"code": "E_TIMEOUT", "message": f"timeout after {n} ms"} if failed else None,
            "telemetry": {"gc_pauses": [rng.randint(1, 50) for _ in range(8)], "trace": f"{n:032x}"},
        }
        items.append(item)
        total += 330
    data = orjson.dumps({"meta": {"items": len(items)}, "items": items}, option=orjson.OPT_INDENT_2)
    return data, len(items)


def timed(repeat: int, call: Any) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    size = args.mb * 1_000_000
    tokens.count("warm up")
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "store")
        log = build_log(size)
        document, count = build_json(size)
        log_id = store.put(log, source="bench", content_type="log", reason="bench")
        json_id = store.put(document, source="bench", content_type="json", reason="bench")
        log_lines = log.count(b"\n")
        print(f"log ref {log_id}: {len(log):,} bytes, {log_lines:,} lines")
        print(f"json ref {json_id}: {len(document):,} bytes, {count:,} items")
        cases: list[tuple[str, str, dict[str, Any]]] = [
            ("log", "--lines (middle, 100 lines)", {"lines": f"{log_lines // 2}-{log_lines // 2 + 99}"}),
            ("log", "--lines (whole ref, budget 4000)", {"lines": "1-"}),
            ("log", "--head 50", {"head": 50}),
            ("log", "--tail 50", {"tail": 50}),
            ("log", "--grep 'ERROR PaymentService' (rare)", {"grep": "ERROR PaymentService"}),
            ("log", "--grep 'req=\\d+7\\b' -C 2", {"grep": r"req=\d+7\b", "context": 2}),
            ("log", "--grep 'path=/api/v1/items/\\d+5 ' (10%)", {"grep": r"path=/api/v1/items/\d+5 "}),
            ("log", "--grep 'INFO' (every line)", {"grep": "INFO"}),
            ("log", "--grep -i 'paymentservice'", {"grep": "paymentservice", "ignore_case": True}),
            ("json", "--json-path 'items[737].error'", {"json_path": "items[737].error"}),
            ("json", f"--json-path 'items[{count // 2}]' (half way)", {"json_path": f"items[{count // 2}]"}),
            (
                "json",
                f"--json-path 'items[{count - 3}].id' (near the end)",
                {"json_path": f"items[{count - 3}].id"},
            ),
            ("json", "--json-path 'items' (whole array, cut)", {"json_path": "items"}),
            ("json", '--grep \'"status": "failed"\'', {"grep": '"status": "failed"'}),
        ]
        load_time, _ = timed(args.repeat, lambda: store.load(log_id))
        print(f"\nStore.load alone (read + sha256 of {len(log) / 1e6:.0f} MB): {load_time * 1000:.0f} ms\n")
        print(f"{'ref':<5} {'query':<48} {'ms':>6}  {'tokens':>11}  answer")
        for ref, label, options in cases:
            ref_id = log_id if ref == "log" else json_id
            elapsed, view = timed(
                args.repeat, lambda ref_id=ref_id, options=options: expand_ref(store, ref_id, **options)
            )
            assert view.tokens <= view.budget_tokens and view.tokens == tokens.count(view.text)
            summary = view.lines_label
            if view.matches is not None:
                summary += f", {view.matches:,} matches, {view.matches_shown} shown"
            if view.next:
                summary += f", more: {view.next[:40]}"
            print(
                f"{ref:<5} {label:<48} {elapsed * 1000:>6.0f}  {view.tokens:>5}/{view.budget_tokens}  {summary}"
            )


if __name__ == "__main__":
    main()
