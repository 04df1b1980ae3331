"""Drill-down speed on 100 MB refs: `show-ref --lines/--grep/--json-path/--head/--tail`.

Builds refs of about 100 MB in a temporary store: a service log and four JSON shapes (a
pretty-printed array of job records; objects nested 40 deep, each level's large sibling
before the way down; records holding long strings full of escaped quotes, brackets and
backslashes; one compact array of 12 million numbers). Each query is timed two ways,
medians of one run:

- `lib`: `expand_ref` in this (warm) process, including `Store.load` (read and sha256 of
  the whole ref), `--repeat` times;
- `cold`: `python -m tokenlab show-ref ID …` as a new process with no worker
  (`TOKENLAB_WORKER=0`), `--cold` times, with the peak RSS of that process;
- `warm`: the same command with a warm worker serving the store (`python -m
  tokenlab.agent.worker STORE`, started once and stopped at the end, as `bench/run.py`
  measures warm start-up), `--cold` times; the worker loads the ref, so the command's own
  process stays small. Its stdout and stderr are checked to equal the cold command's.

Every answer is checked against its budget, and every JSON answer against `json.loads`
of the whole document (outside the timings). The goal (issue 13, part 2) is "well under
a second".

    .venv/bin/python bench/expand_bench.py [--mb 100] [--repeat 5] [--cold 3] [--only json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from tokenlab.counting import tokens
from tokenlab.refs.expand import RefQuery, expand_ref
from tokenlab.refs.json_path import parse_path
from tokenlab.store import FolderStore


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


def build_deep(size: int, levels: int = 40) -> bytes:
    """Objects nested `levels` deep; each level holds a large sibling before `next`."""
    rng = random.Random(13)
    share = size // levels
    node: dict[str, Any] = {"target": {"found": True, "depth": levels}}
    for level in reversed(range(levels)):
        rows, total = [], 0
        while total < share:
            row = {"k": level, "v": [rng.randint(0, 9999) for _ in range(6)], "s": {"t": f"{total:08x}"}}
            rows.append(row)
            total += 70
        node = {"level": level, "before": rows, "next": node, "after": {"level": level}}
    return orjson.dumps(node)


def build_strings(size: int) -> tuple[bytes, int]:
    """Records with 20-60 KB strings full of escaped quotes, brackets and backslashes."""
    rng = random.Random(17)
    pieces = ['say "hi" ', "[x, {y}] ", "C:\\dir\\file ", "tab\t ", "é ", "plain words here "]
    docs, total = [], 0
    while total < size:
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(2000, 6000)))
        docs.append({"id": len(docs), "title": f"doc {len(docs)}", "body": text})
        total += len(text) + 60
    return orjson.dumps({"docs": docs}), len(docs)


def build_numbers(size: int) -> tuple[bytes, int]:
    rng = random.Random(19)
    count = size // 8
    values = [rng.randint(-999999, 9999999) for _ in range(count)]
    return orjson.dumps({"values": values, "count": count}), count


def timed(repeat: int, call: Any) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def show_ref_argv(store: Path, ref_id: str, options: dict[str, Any]) -> list[str]:
    flags = ["-S"] if sys.flags.no_site else []  # a run over another checkout: see RESULTS
    argv = [sys.executable, *flags, "-m", "tokenlab", "show-ref", ref_id, "--store", str(store)]
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        argv += [flag] if value is True else [flag, str(value)]
    return argv


def as_command(repeat: int, argv: list[str], *, worker: bool = False) -> tuple[float, float]:
    """Median wall time and peak RSS (MB) of `show-ref` as a new process: with no worker,
    or (`worker`) handing the work to the one serving the store.

    The peak comes from `/usr/bin/time`: a child's own rusage would count the pages it
    shared with this process (which holds every document) before it ran Python.
    """
    env = {**os.environ, "TOKENLAB_WORKER": "1" if worker else "0"}
    times, peak = [], 0
    with tempfile.NamedTemporaryFile("r") as report:
        for _ in range(repeat):
            start = time.perf_counter()
            subprocess.run(
                ["/usr/bin/time", "-f", "%M", "-o", report.name, *argv],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                check=True,
                env=env,
            )
            times.append(time.perf_counter() - start)
            report.seek(0)
            peak = max(peak, int(report.read().split()[-1]))
    return statistics.median(times), peak / 1024


def same_output(argv: list[str]) -> bool:
    """Whether the command prints the same bytes (stdout, stderr, exit code) warm and cold."""
    cold_run, warm_run = (
        subprocess.run(argv, capture_output=True, check=False, env={**os.environ, "TOKENLAB_WORKER": flag})
        for flag in ("0", "1")
    )
    return (cold_run.returncode, cold_run.stdout, cold_run.stderr) == (
        warm_run.returncode,
        warm_run.stdout,
        warm_run.stderr,
    )


@contextlib.contextmanager
def warm_worker(store: Path) -> Iterator[None]:
    """A warm worker serving `store` until the block ends (its path must fit a socket)."""
    worker = subprocess.Popen([sys.executable, "-m", "tokenlab.agent.worker", str(store)])
    try:
        deadline = time.monotonic() + 60
        while not (store / "worker.sock").exists():
            if time.monotonic() > deadline or worker.poll() is not None:
                raise SystemExit("the warm worker did not start")
            time.sleep(0.05)
        yield
    finally:
        worker.terminate()
        worker.wait(30)


def expected_subtree(document: Any, path: str) -> Any:
    for segment in parse_path(path):
        document = document[segment]
    return document


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cold", type=int, default=3)
    parser.add_argument("--only", choices=["log", "json"], default=None)
    args = parser.parse_args()
    size = args.mb * 1_000_000
    tokens.count("warm up")
    with tempfile.TemporaryDirectory(dir="/tmp") as folder:  # short: the worker's socket is in it
        root = Path(folder) / "store"
        store = FolderStore(root)
        refs: dict[str, tuple[str, bytes]] = {}

        def put(name: str, data: bytes) -> None:
            ref_id = store.put(data, source="bench", content_type=name, reason="bench")
            refs[name] = (ref_id, data)
            lines = data.count(b"\n") + 1
            print(f"{name:<7} ref {ref_id}: {len(data):,} bytes, {lines:,} lines")

        cases: list[tuple[str, str, dict[str, Any]]] = []
        if args.only in (None, "log"):
            log = build_log(size)
            put("log", log)
            log_lines = log.count(b"\n")
            del log
            cases += [
                ("log", "--lines (middle, 100 lines)", {"lines": f"{log_lines // 2}-{log_lines // 2 + 99}"}),
                ("log", "--lines 1- (whole ref, budget 4000)", {"lines": "1-"}),
                ("log", "--head 50", {"head": 50}),
                ("log", "--tail 50", {"tail": 50}),
                ("log", "--grep 'ERROR PaymentService' (rare)", {"grep": "ERROR PaymentService"}),
                ("log", "--grep 'req=\\d+7\\b' -C 2", {"grep": r"req=\d+7\b", "context": 2}),
                ("log", "--grep 'items/\\d+5 ' (10%)", {"grep": r"path=/api/v1/items/\d+5 "}),
                ("log", "--grep 'INFO' (every line)", {"grep": "INFO"}),
                ("log", "--grep -i 'paymentservice'", {"grep": "paymentservice", "ignore_case": True}),
            ]
        if args.only in (None, "json"):
            document, count = build_json(size)
            put("items", document)
            del document
            deep = build_deep(size)
            put("deep", deep)
            del deep
            strings, docs = build_strings(size)
            put("strings", strings)
            del strings
            numbers, values = build_numbers(size)
            put("numbers", numbers)
            del numbers
            way = "next." * 40
            cases += [
                ("items", "items[737].error", {"json_path": "items[737].error"}),
                ("items", f"items[{count // 2}] (half way)", {"json_path": f"items[{count // 2}]"}),
                ("items", f"items[{count - 3}].id (near the end)", {"json_path": f"items[{count - 3}].id"}),
                ("items", "items[-1] (the last)", {"json_path": "items[-1]"}),
                ("items", "items (whole array, cut)", {"json_path": "items"}),
                ("items", '--grep \'"status": "failed"\'', {"grep": '"status": "failed"'}),
                ("deep", "next x40 .target (bottom)", {"json_path": way + "target"}),
                ("deep", "next x20 .after", {"json_path": "next." * 20 + "after"}),
                ("strings", f"docs[{docs // 2}].title", {"json_path": f"docs[{docs // 2}].title"}),
                ("strings", "docs[-1].title", {"json_path": "docs[-1].title"}),
                ("numbers", f"values[{values // 2}] (middle)", {"json_path": f"values[{values // 2}]"}),
                ("numbers", "count (after the array)", {"json_path": "count"}),
            ]
        print(
            f"\n{'ref':<8} {'query':<40} {'lib ms':>7} {'cold ms':>8} {'cold MB':>8} {'warm ms':>8} {'warm MB':>8}"
            f"  {'tokens':>10}  answer"
        )
        parsed: dict[str, Any] = {}
        with warm_worker(root):
            for ref, label, options in cases:
                ref_id, data = refs[ref]
                elapsed, view = timed(
                    args.repeat, lambda ref_id=ref_id, options=options: expand_ref(store, ref_id, RefQuery(**options))
                )
                assert view.tokens <= view.budget_tokens and view.tokens == tokens.count(view.text)
                if "json_path" in options and not view.truncated:
                    if ref not in parsed:
                        parsed.clear()  # one parsed 100 MB document at a time: about 1 GB
                        parsed[ref] = json.loads(data)
                    wanted = expected_subtree(parsed[ref], options["json_path"])
                    assert json.loads(view.raw) == wanted, label
                argv = show_ref_argv(root, ref_id, options)
                cold_s, cold_mb = as_command(args.cold, argv)
                warm_s, warm_mb = as_command(args.cold, argv, worker=True)
                assert same_output(argv), label
                summary = view.lines_label
                if view.matches is not None:
                    summary += f", {view.matches:,} matches, {view.matches_shown} shown"
                print(
                    f"{ref:<8} {label:<40} {elapsed * 1000:>7.0f} {cold_s * 1000:>8.0f} {cold_mb:>8.0f} "
                    f"{warm_s * 1000:>8.0f} {warm_mb:>8.0f}  {view.tokens:>4}/{view.budget_tokens}  {summary[:60]}",
                    flush=True,
                )
        load_time, _ = timed(args.repeat, lambda: store.load(next(iter(refs.values()))[0]))
        print(f"\nStore.load alone (read + sha256 of the first ref): {load_time * 1000:.0f} ms")
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import tokenlab.cli"], check=True)
        print(f"python -c 'import tokenlab.cli': {(time.perf_counter() - start) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
