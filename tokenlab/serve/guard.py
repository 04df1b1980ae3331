"""What every request passes before a route computes: the guard and the work slots.

`Guard` is pure ASGI middleware in front of `tokens serve` and `tokens mcp --http`: the
bearer token, the Host header (loopback names only, when the server is bound to loopback,
so a web page cannot reach it through DNS rebinding) and the body-size cap, all checked
before anything is parsed. `WORK_SLOTS` then lets one request per core compute at a time.

Only Starlette and anyio are imported here (both come with the `serve` and the `mcp`
extras), not FastAPI.
"""

from __future__ import annotations

import asyncio
import hmac
import os
import weakref
from collections.abc import Callable, Sequence
from typing import TypeVar

import anyio
import anyio.to_thread
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tokenlab.serve import LOOPBACK_HOSTS

T = TypeVar("T")
__all__ = ["LOOPBACK_HOSTS", "WORK_SLOTS", "Guard", "WorkSlots"]


# --- the guard: token, host and body size, before any route runs ----------------------------


class Guard:
    """Pure ASGI middleware: bearer token, allowed Host headers, then the body-size cap."""

    def __init__(
        self, app: ASGIApp, token: str | None, allowed_hosts: Sequence[str] | None, max_body: int
    ) -> None:
        self.app, self.token, self.max_body = app, token, max_body
        self.allowed_hosts = None if allowed_hosts is None else {host.lower() for host in allowed_hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {key.decode("latin-1").lower(): value for key, value in scope["headers"]}
        refusal = self._refusal(headers)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > self.max_body:
                await _refuse(413, f"request body over {self.max_body} bytes")(scope, receive, send)
                return
            if not message.get("more_body"):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _refusal(self, headers: dict[str, bytes]) -> ASGIApp | None:
        if self.allowed_hosts is not None and _host_name(headers.get("host", b"")) not in self.allowed_hosts:
            return _refuse(403, "Host header not allowed (the server answers loopback names only)")
        if self.token is not None:
            expected = f"Bearer {self.token}".encode()
            if not hmac.compare_digest(headers.get("authorization", b""), expected):
                return _refuse(401, "missing or wrong bearer token", {"www-authenticate": "Bearer"})
        length = headers.get("content-length", b"0")
        if not length.isdigit() or int(length) > self.max_body:
            return _refuse(413, f"request body over {self.max_body} bytes")
        return None


def _host_name(host: bytes) -> str:
    text = host.decode("latin-1").strip().lower()
    if text.startswith("["):
        return text[1:].partition("]")[0]
    return text.rpartition(":")[0] if text.count(":") == 1 else text


def _refuse(status: int, detail: str, headers: dict[str, str] | None = None) -> ASGIApp:
    return JSONResponse({"detail": detail}, status_code=status, headers=headers)


# --- computing in turn --------------------------------------------------------------------


class WorkSlots:
    """At most `size` requests compute at once (one per core); the others wait in order.

    Every route is CPU-bound Python and tokenizer work. Run on the threadpool's 40 threads,
    16 concurrent requests share two cores, each slower than alone, with their transient
    memory all held at once; tiktoken also slows down when many threads share its
    encoding. In slots, requests queue first-come first-served, so latency is the queue's
    length times the service time, and only `size` requests' buffers are alive. One set
    of slots serves the whole process (every app in it, and `tokens mcp --http`).
    """

    def __init__(self, size: int | None = None) -> None:
        self.size = size or len(os.sched_getaffinity(0)) or 1
        self._limiters: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, anyio.CapacityLimiter]
        self._limiters = weakref.WeakKeyDictionary()

    async def run(self, function: Callable[[], T]) -> T:
        """`function()` on a worker thread, once a slot is free."""
        loop = asyncio.get_running_loop()
        limiter = self._limiters.get(loop)
        if limiter is None:  # one per event loop: anyio's limiter belongs to the loop it is made in
            limiter = self._limiters[loop] = anyio.CapacityLimiter(self.size)
        return await anyio.to_thread.run_sync(function, limiter=limiter)


WORK_SLOTS = WorkSlots()
