"""Start-up of `tokens mcp`: time from process start to the `initialize` answer over stdio.

Paid once per agent session. Prints the median, min and max of N runs (default 10):

    .venv/bin/python bench/mcp_startup.py [N] [-- command ...]
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HELLO = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}


def once(command: list[str]) -> float:
    started = time.perf_counter()
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(HELLO).encode() + b"\n")
        process.stdin.flush()
        answer = json.loads(process.stdout.readline())
        elapsed = time.perf_counter() - started
        assert answer["result"]["serverInfo"]["name"] == "tokenlab", answer
        process.stdin.close()
        process.wait(timeout=30)
    return elapsed


def main() -> None:
    args = sys.argv[1:]
    runs = int(args.pop(0)) if args and args[0].isdigit() else 10
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as store:
        command = args[1:] if args[:1] == ["--"] else [sys.executable, "-m", "tokenlab", "mcp"]
        command = [*command, "--root", str(root), "--store", store]
        once(command)  # warm the page cache and .pyc files
        times = [once(command) for _ in range(runs)]
    print(
        f"tokens mcp: initialize answered after {statistics.median(times) * 1000:.0f} ms median "
        f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}; {runs} runs): {' '.join(command[:4])} …"
    )


if __name__ == "__main__":
    main()
