"""Long-lived servers under load: `tokens mcp --http` with 16 clients.

Starts `tokens mcp --http` on a free loopback port with a bearer token and a temporary
`--root` holding two stdlib files (`argparse.py`, `typing.py`), then drives it from 16
client threads. Each holds its own MCP session over streamable HTTP (raw JSON-RPC on a
keep-alive `http.client` connection: `initialize`, `notifications/initialized`, then
`tools/call` with the `Mcp-Session-Id` header) and cycles through the same budgeted reads
(auto, outline, section, lines, full) and searches (plain and regex) as
`bench/serve_load.py`, as `read_file` and `search` tool calls. It records each call's
latency, the throughput, and the server's RSS from `/proc/<pid>/status` (VmRSS, and VmHWM:
the peak). The issue's targets: at most 250 MB RSS, p99 under 1 s, no growth over 10,000
requests.

    .venv/bin/python bench/mcp_load.py                      # load: 16 clients, 20 s, a fresh server
    .venv/bin/python bench/mcp_load.py --clients 1          # one client alone
    .venv/bin/python bench/mcp_load.py --requests 10000     # 10,000 calls, RSS per 1,000

A call counts as an error unless it is a JSON-RPC result that is not a tool error. The
server is always fresh; every run stops by itself, talks only to 127.0.0.1, and kills only
the process it started.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_load import Sampler, drive, free_port, prepare, report, rss_mb, stop

TOKEN = "bench-token"
PROTOCOL = "2025-06-18"
TOOL_FOR = {"/v1/files/read": "read_file", "/v1/search": "search"}  # serve_load's cycle, as MCP tools


class Session:
    """One MCP session on one keep-alive connection."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.session_id: str | None = None
        self.ids = itertools.count(1)
        hello = self.post(
            "initialize",
            {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        )
        if "result" not in hello:
            raise http.client.HTTPException(f"initialize failed: {hello}")
        self.post("notifications/initialized", None, notification=True)

    def headers(self) -> dict[str, str]:
        headers = {
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "authorization": f"Bearer {TOKEN}",
            "mcp-protocol-version": PROTOCOL,
        }
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
        return headers

    def post(
        self, method: str, params: dict[str, Any] | None, *, notification: bool = False
    ) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if not notification:
            message["id"] = next(self.ids)
        self.connection.request("POST", "/mcp", body=json.dumps(message), headers=self.headers())
        response = self.connection.getresponse()
        body = response.read()
        self.session_id = response.getheader("mcp-session-id") or self.session_id
        if notification:
            if response.status not in (200, 202):
                raise http.client.HTTPException(f"{method}: HTTP {response.status}")
            return {}
        if response.status != 200:
            return {"error": f"HTTP {response.status}: {body[:200]!r}"}
        return _answer(body, response.getheader("content-type") or "", message["id"])


def _answer(body: bytes, content_type: str, request_id: int) -> dict[str, Any]:
    """The JSON-RPC response to `request_id` in a JSON or SSE body."""
    if content_type.startswith("application/json"):
        answer: dict[str, Any] = json.loads(body)
        return answer
    for event in body.decode().split("\n\n"):
        data = "\n".join(line[5:].lstrip() for line in event.splitlines() if line.startswith("data:"))
        if data:
            message = json.loads(data)
            if message.get("id") == request_id:
                found: dict[str, Any] = message
                return found
    return {"error": "no response in the event stream"}


def mcp_send(session: Session, request: tuple[str, str, dict[str, Any]]) -> int:
    _, url, arguments = request
    answer = session.post("tools/call", {"name": TOOL_FOR[url], "arguments": arguments})
    result = answer.get("result")
    return 200 if isinstance(result, dict) and not result.get("isError") else 500


def start_server(root: Path, store: Path, tokens: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    command = [tokens, "mcp", "--http", "--port", str(port), "--token", TOKEN]
    command += ["--root", str(root), "--store", str(store)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return server, port
        except OSError:
            if server.poll() is not None:
                error = server.stderr.read().decode() if server.stderr else ""
                raise SystemExit(f"tokens mcp --http exited: {error}") from None
            time.sleep(0.05)
    server.kill()
    raise SystemExit("tokens mcp --http did not start within 30 s")


def run(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    root, store = prepare(folder)
    server, port = start_server(root, store, args.tokens)
    sampler = Sampler(server.pid)
    sampler.start()
    marks: dict[int, float] = {}

    def mark(done: int) -> None:
        if args.requests and done % 1000 == 0:
            marks[done] = rss_mb(server.pid)[0]

    try:
        latencies, errors, wall = drive(
            mcp_send,
            lambda: Session(port),
            args.clients,
            seconds=None if args.requests else args.seconds,
            total=args.requests or None,
            on_done=mark,
        )
    finally:
        sampler.stop()
        stop(server)
    mode = f"{args.requests:,} requests" if args.requests else f"{args.seconds:g} s"
    figures = report(f"mcp --http, {args.clients} clients, {mode}", latencies, errors, wall, sampler)
    if marks:
        print("RSS after each 1,000 requests (MB): " + ", ".join(f"{marks[k]:.0f}" for k in sorted(marks)))
        settled = [marks[k] for k in sorted(marks) if k >= 2000]
        if settled:
            growth = settled[-1] - settled[0]
            print(f"growth from 2,000 to {max(marks):,} requests: {growth:+.1f} MB")
            figures["growth_mb"] = growth
        figures["marks"] = marks
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long to run (without --requests)")
    parser.add_argument("--requests", type=int, default=0, help="run this many calls instead, RSS per 1,000")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    parser.add_argument(
        "--tokens",
        default=str(Path(sys.executable).with_name("tokens")),
        help="the `tokens` command to serve with (another build, to compare)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tl-mcp-load-") as temp:
        figures = run(args, Path(temp))
    if args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
