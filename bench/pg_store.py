"""The PostgreSQL store beside the folder store, measured in one run.

For each store: `put` then `get` (`load`, verified) of 10,000 small refs (200-2,000 bytes),
of one 100 MB ref, and a full `analyze` of a 10 MB log (the pipeline storing every
omission and the original, each reloaded and compared). The baseline is the folder store
on the same disk; the goal (issue 16) is analyze of 10 MB into a local PostgreSQL at most
1.5x the folder store's time.

PostgreSQL is a throwaway local cluster with fsync on (`tests/pg_cluster.py`), unless
`--url` names a server. Times are the best of `--repeat` runs; each run writes new bytes.

    .venv/bin/python bench/pg_store.py [--small 10000] [--big-mb 100] [--log-mb 10] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.pg_cluster import start_cluster
from tokenlab.pipeline import analyze
from tokenlab.store import Store, open_store

META = {"source": "bench", "content_type": "text", "reason": "bench"}


def best(repeat: int, run: Callable[[int], float]) -> float:
    return min(run(attempt) for attempt in range(repeat))


def small_refs(count: int, salt: int) -> list[bytes]:
    rng = random.Random(salt)
    return [(f"{salt}-{i} " * 20).encode() + rng.randbytes(rng.randint(50, 1800)) for i in range(count)]


def build_log(size: int, salt: int) -> bytes:
    rng = random.Random(salt)
    lines, total, n = [], 0, 0
    while total < size:
        n += 1
        level = "ERROR" if n % 4001 == 0 else "INFO"
        line = f"2024-05-01T12:{n % 60:02d}:00Z {level} run={salt} request {n} id={rng.getrandbits(48):012x} ms={n % 900}\n"
        lines.append(line)
        total += len(line)
    return "".join(lines).encode()


def measure(store: Store, args: argparse.Namespace) -> dict[str, float]:
    figures: dict[str, float] = {}

    def put_small(attempt: int) -> float:
        refs = small_refs(args.small, attempt * 7 + 1)
        start = time.perf_counter()
        ids = [store.put(data, **META) for data in refs]
        elapsed = time.perf_counter() - start
        start = time.perf_counter()
        assert all(store.load(ref_id).data == data for ref_id, data in zip(ids, refs, strict=True))
        figures["get_small"] = min(figures.get("get_small", 1e9), time.perf_counter() - start)
        return elapsed

    figures["put_small"] = best(args.repeat, put_small)

    def put_big(attempt: int) -> float:
        data = os.urandom(args.big_mb << 20)
        start = time.perf_counter()
        ref_id = store.put(data, **META)
        elapsed = time.perf_counter() - start
        start = time.perf_counter()
        assert store.load(ref_id).data == data
        figures["get_big"] = min(figures.get("get_big", 1e9), time.perf_counter() - start)
        return elapsed

    figures["put_big"] = best(args.repeat, put_big)

    def analyze_log(attempt: int) -> float:
        data = build_log(args.log_mb << 20, attempt + 100)
        start = time.perf_counter()
        packet = analyze(data, source="bench.log", store=store)
        elapsed = time.perf_counter() - start
        assert packet.original_ref is not None
        return elapsed

    analyze(build_log(1 << 20, 99), source="warm-up", store=store)  # tokenizer and imports
    figures["analyze_log"] = best(args.repeat, analyze_log)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--small", type=int, default=10_000)
    parser.add_argument("--big-mb", type=int, default=100)
    parser.add_argument("--log-mb", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--url", help="an existing PostgreSQL database instead of a throwaway cluster")
    args = parser.parse_args()
    cluster = None if args.url else start_cluster(durable=True)
    try:
        url = args.url or cluster.new_database("bench")  # type: ignore[union-attr]
        with tempfile.TemporaryDirectory(prefix="tokenlab-bench-") as folder:
            results = {
                "folder": measure(open_store(folder), args),
                "postgres": measure(open_store(url), args),
            }
    finally:
        if cluster is not None:
            cluster.remove()
    rows = (
        ("put", f"{args.small:,} small refs", "put_small", None),
        ("get", f"{args.small:,} small refs", "get_small", None),
        ("put", f"one {args.big_mb} MB ref", "put_big", args.big_mb),
        ("get", f"one {args.big_mb} MB ref", "get_big", args.big_mb),
        ("analyze", f"a {args.log_mb} MB log", "analyze_log", None),
    )
    print("| operation | what | folder | PostgreSQL | ratio |\n|---|---|---|---|---|")
    for operation, what, key, megabytes in rows:
        folder, pg = results["folder"][key], results["postgres"][key]
        shown = [
            f"{seconds:.3f} s" + (f" ({megabytes / seconds:.0f} MB/s)" if megabytes else "")
            for seconds in (folder, pg)
        ]
        print(f"| {operation} | {what} | {shown[0]} | {shown[1]} | {pg / folder:.2f}x |")


if __name__ == "__main__":
    main()
