"""The warm worker under load: 16 concurrent `tokens analyze` calls of a 20 KB log.

Starts a worker for a fresh store, runs 16 client threads (each 40 requests through the
same client code `tokens analyze` uses), and prints throughput, p50/p99 latency and the
worker's RSS sampled while they run. Stops the worker at the end.

    .venv/bin/python bench/worker_load.py [--clients 16] [--requests 40]
    .venv/bin/python bench/worker_load.py --total 10000   # 10,000 in all, RSS per 1,000

With `--total`, the clients share one count instead of making `--requests` each, and the
worker's RSS is also taken after every 1,000th answer, to show whether it grows.
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from tokenlab.agent import client

SMALL_LOG = b"".join(
    b"2026-03-14 09:%02d:%02d,%03d INFO [orders] request_id=%08x GET /api/orders/%d -> 200 (%d.%d ms)\n"
    % (n // 60 % 60, n % 60, n % 1000, 0x9F3A0000 + n * 7919, 10000 + n, n % 40, n % 10)
    for n in range(190)
)


def rss_mb(pid: int, field: str = "VmRSS") -> int:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) // 1024 for line in status if line.startswith(field))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--requests", type=int, default=40, help="per client")
    parser.add_argument("--total", type=int, default=0, help="requests in all, instead of --requests")
    options = parser.parse_args()
    store = tempfile.mkdtemp(prefix="tl-load-", dir="/tmp")
    log = Path(store) / "input.log"
    log.write_bytes(SMALL_LOG)
    worker = subprocess.Popen([sys.executable, "-m", "tokenlab.agent.worker", store])
    try:
        while not os.path.exists(os.path.join(store, client.SOCKET_NAME)):
            time.sleep(0.05)
        arguments = {"source": str(log), "granularity": "coarse", "signals": None, "redact": True,
                     "store": store, "as_json": False}  # fmt: skip
        latencies: list[float] = []
        marks: dict[int, int] = {}  # answers so far -> worker RSS (MB), with --total
        lock = threading.Lock()

        def calls() -> None:
            for _ in range(options.requests) if not options.total else itertools.count():
                with lock:
                    if options.total and len(latencies) >= options.total:
                        return
                started = time.perf_counter()
                if client.analyze(dict(arguments)) is None:
                    raise SystemExit("the worker did not answer")
                with lock:
                    latencies.append(time.perf_counter() - started)
                    done = len(latencies)
                if options.total and done % 1000 == 0:
                    marks[done] = rss_mb(worker.pid)

        threads = [threading.Thread(target=calls) for _ in range(options.clients)]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        samples = []
        while any(thread.is_alive() for thread in threads):
            samples.append(rss_mb(worker.pid))
            time.sleep(0.2)
        elapsed = time.perf_counter() - started
        latencies.sort()
        print(
            f"{len(latencies)} requests from {options.clients} clients in {elapsed:.1f} s "
            f"({len(latencies) / elapsed:.1f}/s); p50 {latencies[len(latencies) // 2] * 1000:.0f} ms, "
            f"p99 {latencies[int(len(latencies) * 0.99)] * 1000:.0f} ms; worker RSS at most "
            f"{max(samples)} MB, {rss_mb(worker.pid)} MB at the end, peak (VmHWM) "
            f"{rss_mb(worker.pid, 'VmHWM')} MB"
        )
        if marks:
            print("RSS after each 1,000 requests (MB): " + ", ".join(str(marks[k]) for k in sorted(marks)))
            settled = [marks[k] for k in sorted(marks) if k >= 2000]
            if settled:
                print(f"growth from 2,000 to {max(marks):,} requests: {settled[-1] - settled[0]:+d} MB")
    finally:
        worker.terminate()
        worker.wait(30)
        shutil.rmtree(store, ignore_errors=True)


if __name__ == "__main__":
    main()
