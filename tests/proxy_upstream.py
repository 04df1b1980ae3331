"""A scripted model upstream for `tokens proxy` tests: records each request byte for byte.

It answers the Anthropic Messages API, OpenAI Chat Completions and the Responses API in
their recorded shapes (the Anthropic and Responses events are `tests/e2e/model_server.py`'s),
JSON or SSE as the body's `stream` asks. SSE is written one event per chunk
(`Transfer-Encoding: chunked`), the way a provider streams, so the proxy's relay is tested on
a body that arrives in pieces. Every request is kept with its path, headers and raw body, and
every answer with the exact bytes sent, so a test can compare both ends of the proxy.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from tests.e2e.model_server import _anthropic_events, _openai_events


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    answer: bytes  # the response body's bytes as sent
    peer: int  # the port the request came from: one per connection

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class _State:
    lock: threading.Lock = field(default_factory=threading.Lock)
    seen: list[Seen] = field(default_factory=list)
    text: str = "ok"
    drop_idle: bool = False  # close each connection after its answer, without saying so


class Upstream:
    """The upstream on 127.0.0.1 with a free port; use it as a context manager."""

    def __init__(self) -> None:
        self.state = _State()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.state = self.state  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def seen(self) -> list[Seen]:
        with self.state.lock:
            return list(self.state.seen)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are separate writes: no 40 ms wait between them

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        self._answer(b"", json.dumps({"object": "list", "data": []}).encode(), "application/json")

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        request = json.loads(body)
        model = request.get("model", "m")
        text = self.server.state.text  # type: ignore[attr-defined]
        stream = bool(request.get("stream"))
        if self.path.endswith("/messages/count_tokens"):
            events, whole = None, {"input_tokens": len(body) // 4}
        elif self.path.endswith("/messages"):
            block = {"type": "text", "text": text}
            events = _anthropic_events("0001", model, block, "end_turn")
            whole = {**events[0][1]["message"], "content": [block], "stop_reason": "end_turn"}
        elif self.path.endswith("/chat/completions"):
            events, whole = _chat(model, text)
        else:
            item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}  # fmt: skip
            whole = {"id": "resp_1", "object": "response", "created_at": 0, "model": model, "status": "completed",
                     "output": [item], "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}  # fmt: skip
            events = _openai_events(whole, item)
        if stream and events is not None:
            self._stream(body, events)
        else:
            self._answer(body, json.dumps(whole).encode(), "application/json")

    def _answer(self, body: bytes, payload: bytes, kind: str) -> None:
        self._keep(body, payload)
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("request-id", "req_upstream_1")
        self.end_headers()
        self.wfile.write(payload)

    def _stream(self, body: bytes, events: list[tuple[str | None, Any]]) -> None:
        chunks = [
            (f"event: {name}\n" if name else "").encode()
            + b"data: "
            + (data if isinstance(data, bytes) else json.dumps(data).encode())
            + b"\n\n"
            for name, data in events
        ]
        self._keep(body, b"".join(chunks))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for chunk in chunks:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")

    def _keep(self, body: bytes, answer: bytes) -> None:
        state = self.server.state  # type: ignore[attr-defined]
        with state.lock:
            headers = {k.lower(): v for k, v in self.headers.items()}
            state.seen.append(Seen(self.command, self.path, headers, body, answer, self.client_address[1]))
            self.close_connection = state.drop_idle


def _chat(model: str, text: str) -> tuple[list[tuple[str | None, Any]], dict[str, Any]]:
    base = {"id": "chatcmpl-1", "created": 0, "model": model}
    whole = {**base, "object": "chat.completion", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}  # fmt: skip
    chunk = {**base, "object": "chat.completion.chunk"}
    events: list[tuple[str | None, Any]] = [
        (
            None,
            {
                **chunk,
                "choices": [
                    {"index": 0, "delta": {"role": "assistant", "content": text}, "finish_reason": None}
                ],
            },
        ),
        (None, {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        (None, b"[DONE]"),
    ]
    return events, whole
