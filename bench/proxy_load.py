"""`tokens proxy` overhead and load, measured in one run against the direct path.

Baseline: the same scripted upstream (`tests/proxy_upstream.py`, on loopback) asked directly.

- Added latency: REQUESTS sequential Messages requests without tool results (a short user
  message; forwarded as the client's bytes), direct and through the proxy, alternating; the
  p50 and p90 of each and the difference of the medians.
- Load: CLIENTS threads, each sending ROUNDS streaming requests through the proxy, each
  request holding a conversation with a large tool result (a real capture, different per
  client, so the pipeline runs for each client's first request); errors counted, every
  stream checked complete, and the proxy process's peak RSS (VmHWM) read after.

The proxy runs as its own process (`tokens proxy`), as a user runs it.

    python bench/proxy_load.py [--requests 300] [--clients 16] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.proxy_upstream import Upstream

FIXTURES = sorted(
    p for p in (ROOT / "fixtures" / "real").iterdir() if p.suffix == ".log" and p.stat().st_size > 3000
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_proxy(upstream: str, store: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    tokens = str(Path(sys.executable).with_name("tokens"))
    process = subprocess.Popen(
        [
            tokens,
            "proxy",
            "--listen",
            f"127.0.0.1:{port}",
            "--upstream-anthropic",
            upstream,
            "--store",
            store,
        ],
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            httpx.get(url + "/health", timeout=1)
            return process, url
        except httpx.TransportError:
            time.sleep(0.05)
    raise SystemExit("the proxy did not start")


def latency(url: str, client: httpx.Client) -> float:
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hello"}]}
    start = time.perf_counter()
    client.post(url + "/v1/messages", json=body, headers={"x-api-key": "k"}).raise_for_status()
    return (time.perf_counter() - start) * 1000


def streaming_client(url: str, index: int, rounds: int, errors: list[str]) -> None:
    text = FIXTURES[index % len(FIXTURES)].read_text(errors="replace")
    messages = [
        {"role": "user", "content": "why does it fail?"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "make"}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": text}]},
    ]
    with httpx.Client(timeout=120) as client:
        for n in range(rounds):
            body = {
                "model": "m",
                "max_tokens": 5,
                "stream": True,
                "messages": messages
                + [{"role": "assistant", "content": f"round {n}"}, {"role": "user", "content": "go on"}],
            }
            try:
                with client.stream(
                    "POST", url + "/v1/messages", json=body, headers={"x-api-key": "k"}
                ) as reply:
                    got = b"".join(reply.iter_raw())
                if reply.status_code != 200 or b"message_stop" not in got:
                    errors.append(f"client {index}: {reply.status_code}")
            except httpx.HTTPError as error:
                errors.append(f"client {index}: {type(error).__name__}")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with Upstream() as upstream, tempfile.TemporaryDirectory() as store:
        process, url = start_proxy(upstream.url, store)
        try:
            direct, proxied = [], []
            with httpx.Client() as client:
                for _ in range(args.requests):
                    direct.append(latency(upstream.url, client))
                    proxied.append(latency(url, client))
            errors: list[str] = []
            threads = [
                threading.Thread(target=streaming_client, args=(url, i, args.rounds, errors))
                for i in range(args.clients)
            ]
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            load_seconds = time.perf_counter() - started
            rss = peak_rss_mb(process.pid)
        finally:
            process.terminate()
            process.wait(timeout=10)

    def p(values: list[float], q: int) -> float:
        return statistics.quantiles(values, n=100)[q - 1]

    print(json.dumps({
        "requests": args.requests,
        "direct_p50_ms": round(statistics.median(direct), 2), "direct_p90_ms": round(p(direct, 90), 2),
        "proxy_p50_ms": round(statistics.median(proxied), 2), "proxy_p90_ms": round(p(proxied, 90), 2),
        "added_p50_ms": round(statistics.median(proxied) - statistics.median(direct), 2),
        "clients": args.clients, "rounds": args.rounds, "streams": args.clients * args.rounds,
        "errors": len(errors), "error_sample": errors[:3], "load_seconds": round(load_seconds, 1),
        "proxy_peak_rss_mb": round(rss, 1), "load_average": os.getloadavg()[0],
    }, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
