"""Long-lived servers under load: `tokens serve` (and the warm worker) with 16 clients.

Starts `tokens serve` on a free loopback port with a temporary `--root` holding two
stdlib files (`argparse.py`, `typing.py`), then drives it from 16 client threads, each
with a keep-alive `http.client` connection, cycling through budgeted reads (auto, outline,
section, lines, full) and searches (plain and regex) on those files. It records each
request's latency, the throughput, and the server's RSS over time from
`/proc/<pid>/status` (VmRSS, and VmHWM: the peak). The issue's targets: at most 250 MB RSS
at no less than the old throughput (about 50-60 requests/s), p99 under 1 s, and no growth
over 10,000 requests.

    .venv/bin/python bench/serve_load.py                    # load: 16 clients, 20 s, a fresh server
    .venv/bin/python bench/serve_load.py --clients 1        # one client alone
    .venv/bin/python bench/serve_load.py --mode soak        # 10,000 requests, RSS per 1,000
    .venv/bin/python bench/serve_load.py --mode worker      # the warm worker, 16 analyses at once

The server is always fresh: the first requests race to build the tokenizer, which is the
case that used to cost one encoding per request thread. Every mode stops by itself and
kills only the process it started.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

FILES = ("argparse.py", "typing.py")
_STDLIB = Path(os.__file__).parent


def requests() -> Iterator[tuple[str, str, dict[str, Any]]]:
    """An endless, fixed cycle of (method, url, body) over the two files."""
    cycle: list[tuple[str, str, dict[str, Any]]] = []
    for name in FILES:
        cycle += [
            ("POST", "/v1/files/read", {"path": name, "budget_tokens": 2000}),
            ("POST", "/v1/files/read", {"path": name, "view": "outline", "budget_tokens": 1500}),
            ("POST", "/v1/files/read", {"path": name, "view": "full", "budget_tokens": 40000}),
            ("POST", "/v1/files/read", {"path": name, "lines": "100-300", "budget_tokens": 3000}),
        ]
    cycle += [
        ("POST", "/v1/files/read", {"path": "argparse.py", "section": "ArgumentParser.parse_known_args"}),
        ("POST", "/v1/files/read", {"path": "typing.py", "section": "TypeVar"}),
        ("POST", "/v1/search", {"query": "def ", "budget_tokens": 2000}),
        ("POST", "/v1/search", {"query": "raise TypeError", "budget_tokens": 1500}),
        ("POST", "/v1/search", {"query": r"class \w+\(", "regex": True, "budget_tokens": 2000}),
        ("POST", "/v1/search", {"query": "return", "paths": ["typing.py"], "budget_tokens": 800}),
    ]
    while True:
        yield from cycle


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def rss_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of `pid` in MB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0]) / 1024
    return fields["VmRSS"], fields["VmHWM"]


class Sampler(threading.Thread):
    """RSS of a process every `every` seconds, until stopped."""

    def __init__(self, pid: int, every: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.pid, self.every = pid, every
        self.samples: list[tuple[float, float]] = []  # (seconds since start, VmRSS MB)
        self.peak = 0.0
        self._stop_event = threading.Event()
        self._start = time.monotonic()

    def run(self) -> None:
        while not self._stop_event.wait(self.every):
            try:
                rss, peak = rss_mb(self.pid)
            except (OSError, KeyError):
                return
            self.samples.append((time.monotonic() - self._start, rss))
            self.peak = max(self.peak, peak)

    def stop(self) -> None:
        self._stop_event.set()
        self.join()


def start_server(root: Path, store: Path, tokens: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    command = [str(tokens), "serve", "--root", str(root), "--port", str(port), "--store", str(store)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return server, port
        except OSError:
            if server.poll() is not None:
                raise SystemExit(
                    f"tokens serve exited: {server.stderr.read().decode() if server.stderr else ''}"
                )
            time.sleep(0.05)
    server.kill()
    raise SystemExit("tokens serve did not start within 30 s")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def drive(
    send: Callable[[Any, tuple[str, str, dict[str, Any]]], int],
    connect: Callable[[], Any],
    clients: int,
    *,
    seconds: float | None,
    total: int | None,
    on_done: Callable[[int], None] | None = None,
) -> tuple[list[float], int, float]:
    """Run `clients` threads until `seconds` pass or `total` requests are made.
    Returns (latencies in s, errors, wall seconds)."""
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    started = time.monotonic()
    deadline = None if seconds is None else started + seconds

    def client(number: int) -> None:
        nonlocal errors
        work = requests()
        for _ in range(number * 3):  # clients start at different places in the cycle
            next(work)
        connection = connect()
        while True:
            with lock:
                if (total is not None and len(latencies) >= total) or (
                    deadline is not None and time.monotonic() >= deadline
                ):
                    return
            request = next(work)
            begun = time.monotonic()
            try:
                status = send(connection, request)
            except (OSError, http.client.HTTPException):
                status, connection = 0, connect()
            elapsed = time.monotonic() - begun
            with lock:
                latencies.append(elapsed)
                errors += status != 200
                done = len(latencies)
            if on_done is not None:
                on_done(done)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, errors, time.monotonic() - started


def http_send(connection: http.client.HTTPConnection, request: tuple[str, str, dict[str, Any]]) -> int:
    method, url, body = request
    connection.request(method, url, body=json.dumps(body), headers={"content-type": "application/json"})
    response = connection.getresponse()
    response.read()
    return response.status


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def report(label: str, latencies: list[float], errors: int, wall: float, sampler: Sampler) -> dict[str, Any]:
    rss = [value for _, value in sampler.samples]
    figures = {
        "label": label,
        "requests": len(latencies),
        "errors": errors,
        "per_s": len(latencies) / wall,
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * percentile(latencies, 0.99),
        "max_ms": 1000 * max(latencies),
        "rss_end_mb": rss[-1] if rss else 0.0,
        "rss_max_mb": max(rss) if rss else 0.0,
        "hwm_mb": sampler.peak,
    }
    print(
        f"{label}: {figures['requests']} requests ({errors} errors) in {wall:.1f} s = "
        f"{figures['per_s']:.1f}/s; p50 {figures['p50_ms']:.0f} ms, p99 {figures['p99_ms']:.0f} ms, "
        f"max {figures['max_ms']:.0f} ms; RSS end {figures['rss_end_mb']:.0f} MB, "
        f"peak (VmHWM) {figures['hwm_mb']:.0f} MB"
    )
    return figures


def prepare(folder: Path) -> tuple[Path, Path]:
    root, store = folder / "root", folder / "store"
    root.mkdir()
    for name in FILES:
        shutil.copyfile(_STDLIB / name, root / name)
    return root, store


def serve_mode(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    root, store = prepare(folder)
    server, port = start_server(root, store, args.tokens)
    sampler = Sampler(server.pid)
    sampler.start()
    marks: dict[int, float] = {}

    def mark(done: int) -> None:
        if args.mode == "soak" and done % 1000 == 0:
            marks[done] = rss_mb(server.pid)[0]

    try:
        latencies, errors, wall = drive(
            http_send,
            lambda: http.client.HTTPConnection("127.0.0.1", port, timeout=60),
            args.clients,
            seconds=args.seconds if args.mode == "load" else None,
            total=args.requests if args.mode == "soak" else None,
            on_done=mark,
        )
    finally:
        sampler.stop()
        stop(server)
    figures = report(f"serve, {args.clients} clients, {args.mode}", latencies, errors, wall, sampler)
    if marks:
        print("RSS after each 1,000 requests (MB): " + ", ".join(f"{marks[k]:.0f}" for k in sorted(marks)))
        settled = [marks[k] for k in sorted(marks) if k >= 2000]
        if settled:
            growth = settled[-1] - settled[0]
            print(f"growth from 2,000 to {max(marks):,} requests: {growth:+.1f} MB")
            figures["growth_mb"] = growth
        figures["marks"] = marks
    return figures


def worker_mode(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """16 concurrent `tokens analyze` requests to a fresh warm worker, over its socket."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tokenlab import code_stamp
    from tokenlab.agent import wire
    from tokenlab.agent.client import socket_path

    store = folder / "store"
    address = socket_path(str(store))
    assert address is not None, "the temporary folder's path is too long for a Unix socket"
    worker = subprocess.Popen([sys.executable, "-m", "tokenlab.agent.worker", str(store)])
    deadline = time.monotonic() + 30
    while not os.path.exists(address):
        if time.monotonic() > deadline or worker.poll() is not None:
            worker.kill()
            raise SystemExit("the worker did not start")
        time.sleep(0.05)
    inputs = [_log(seed, 20_000 + 4000 * seed) for seed in range(8)]
    inputs += [(_STDLIB / name).read_bytes() for name in FILES]
    chosen = random.Random(3)

    def send(_: None, request: tuple[str, str, dict[str, Any]]) -> int:
        payload = chosen.choice(inputs)
        header = {"op": "analyze", "store": str(store), "label": "bench.log", "signals": [],
                  "granularity": "coarse", "redact": True, "as_json": True,
                  "stamp": code_stamp()}  # fmt: skip
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(address)
            wire.send_request(sock, header, payload)
            answer = wire.receive_answer(sock)
        # Exit 1 is an answer too (a signal check that failed); a fallback or none is not.
        answered = answer is not None and answer[0] == wire.ANSWERED
        return 200 if answered and answer[1] in (0, 1) else 500

    sampler = Sampler(worker.pid)
    sampler.start()
    try:
        latencies, errors, wall = drive(send, lambda: None, args.clients, seconds=args.seconds, total=None)
    finally:
        sampler.stop()
        worker.terminate()
        worker.wait(timeout=10)
    return report(f"worker, {args.clients} concurrent analyze", latencies, errors, wall, sampler)


def _log(seed: int, size: int) -> bytes:
    rng = random.Random(seed)
    lines, total = [], 0
    while total < size:
        level = "ERROR" if rng.random() < 0.01 else "INFO"
        line = f"2024-05-01T12:00:{rng.randint(0, 59):02d}Z {level} served id={rng.getrandbits(40):010x}\n"
        lines.append(line)
        total += len(line)
    return "".join(lines).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("load", "soak", "worker"), default="load")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20.0, help="load and worker modes")
    parser.add_argument("--requests", type=int, default=10_000, help="soak mode")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    parser.add_argument(
        "--tokens",
        default=str(Path(sys.executable).with_name("tokens")),
        help="the `tokens` command to serve with (another build, to compare)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tl-load-") as temp:
        mode = worker_mode if args.mode == "worker" else serve_mode
        figures = mode(args, Path(temp))
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
