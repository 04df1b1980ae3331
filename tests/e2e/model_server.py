"""A scripted model endpoint on the loopback interface that records what each agent CLI sends.

The end-to-end tests run the real Claude Code, Codex and Gemini CLIs against this server, so
that what a test asserts on is exactly what the model was sent. It speaks three APIs, as far
as those CLIs use them:

- Anthropic Messages: `POST /v1/messages` (SSE when the body asks for `stream`).
- OpenAI Responses: `POST /v1/responses` (SSE), plus an empty `GET /v1/models`.
- Gemini: `POST /v1beta/models/<model>:generateContent` and `:streamGenerateContent`.

A `Scenario` scripts the answers: each request that offers tools takes the next step (a
`ToolCall` or a text), and once the steps run out every such request gets the final text.
Requests without tools (titles, classifiers, quota probes) get a short text and take no step.
A `ToolCall` names one or more tools with their input; the first one the request offers is
called, so one scenario serves hosts whose shell tools are named differently. When none is
offered the answer is a text saying so, and the record notes it.

Every request is recorded in order (`requests`, and a JSONL file when asked), with the tools
it offered and what it was answered; `tool_results()` pulls out each tool result the model
received, whatever the API.

Run it by hand to try a CLI: `python tests/e2e/model_server.py --bash 'ls -la'` prints its
address and appends each request to `requests.jsonl`.
"""

from __future__ import annotations

import argparse
import gzip
import json
import threading
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self
from urllib.parse import urlsplit


@dataclass(frozen=True)
class ToolCall:
    """Call the first of `choices` (tool name, input) that the request offers."""

    choices: tuple[tuple[str, Mapping[str, Any]], ...]

    @classmethod
    def of(cls, name: str, arguments: Mapping[str, Any]) -> ToolCall:
        return cls(((name, arguments),))

    def pick(self, offered: Sequence[str]) -> tuple[str, Mapping[str, Any]] | None:
        return next(((name, args) for name, args in self.choices if name in offered), None)


@dataclass(frozen=True)
class FollowUp:
    """A tool call made from the tool results the request carries: a model acting on what it
    was sent (running the command a hint names, say)."""

    make: Callable[[Sequence[ToolResult]], ToolCall]


Step = ToolCall | FollowUp | str


@dataclass
class Scenario:
    steps: Sequence[Step] = ()
    final: str = "done"
    side_text: str = "ok"  # the answer to requests that offer no tools


@dataclass(frozen=True)
class Record:
    """One request as received, and what the server answered."""

    seq: int
    api: str  # "anthropic", "openai" or "gemini"
    method: str
    path: str
    body: Any
    offered: tuple[str, ...]
    answer: dict[str, Any]
    raw: bytes = b""  # the body's bytes as received (decoded from gzip or deflate)

    def as_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "api": self.api,
            "method": self.method,
            "path": self.path,
            "offered": list(self.offered),
            "answer": self.answer,
            "body": self.body,
        }


@dataclass(frozen=True)
class ToolResult:
    """A tool result as the model received it: the call's id and its content as text."""

    call_id: str
    text: str
    is_error: bool
    raw: Any


@dataclass
class _State:
    scenario: Scenario
    log_path: Path | None
    lock: threading.Lock = field(default_factory=threading.Lock)
    records: list[Record] = field(default_factory=list)
    next_step: int = 0
    ids: int = 0


class ModelServer:
    """The endpoint, started on 127.0.0.1 with a free port; use it as a context manager."""

    def __init__(self, scenario: Scenario, log_path: Path | None = None) -> None:
        self._state = _State(scenario, log_path)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.state = self._state  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="model-server", daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[Record]:
        with self._state.lock:
            return list(self._state.records)

    def set_scenario(self, scenario: Scenario) -> None:
        with self._state.lock:
            self._state.scenario = scenario
            self._state.next_step = 0

    def tool_results(self) -> list[ToolResult]:
        """Every tool result the model was sent, in order, each once (later requests repeat
        the whole conversation)."""
        seen: dict[str, ToolResult] = {}
        for record in self.requests:
            for result in extract_tool_results(record.api, record.body):
                seen.setdefault(result.call_id, result)
        return list(seen.values())

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "tokenlab-model/1"
    _raw = b""  # the body of the request being answered

    def log_message(self, format: str, *args: Any) -> None:
        return  # tests read the records, not a log on stderr

    @property
    def state(self) -> _State:
        return self.server.state  # type: ignore[attr-defined,no-any-return]

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        self._raw = b""
        body: dict[str, Any] = {"object": "list", "data": [], "models": []}
        self._record("openai" if path.startswith("/v1/") else "gemini", None, (), {"kind": "get"})
        self._send_json(body)

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        self._raw, body = self._read_body()
        if path.endswith("/messages/count_tokens"):
            # Claude Code asks before showing a large Read; a fixed small count would lift its cap.
            tokens = _estimate_tokens(body)
            self._record("anthropic", body, (), {"kind": "count_tokens", "input_tokens": tokens})
            self._send_json({"input_tokens": tokens})
        elif path.endswith("/messages"):
            self._anthropic(body)
        elif path.endswith("/responses"):
            self._openai(body)
        elif ":generateContent" in path or ":streamGenerateContent" in path:
            self._gemini(body, stream=":streamGenerateContent" in path, model=path.rsplit("/", 1)[-1])
        elif path.endswith(":countTokens"):
            self._record("gemini", body, (), {"kind": "count_tokens"})
            self._send_json({"totalTokens": 100})
        else:
            self._record("unknown", body, (), {"kind": "not_found"})
            self._send_json({"error": {"message": f"no such endpoint: {path}"}}, HTTPStatus.NOT_FOUND)

    # --- reading and recording ---------------------------------------------------------------

    def _read_body(self) -> tuple[bytes, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(length) if length else b""
        encoding = (self.headers.get("Content-Encoding") or "").lower()
        if encoding == "gzip":
            data = gzip.decompress(data)
        elif encoding == "deflate":
            data = zlib.decompress(data)
        try:
            return data, json.loads(data) if data else None
        except ValueError:
            return data, {"_undecoded": data.decode("utf-8", "replace")}

    def _next(self, offered: Sequence[str]) -> tuple[str, Step]:
        """The step for a request offering `offered` tools, and a fresh id for the answer."""
        state = self.state
        with state.lock:
            state.ids += 1
            ident = f"{state.ids:04d}"
            if not offered:
                return ident, state.scenario.side_text
            if state.next_step < len(state.scenario.steps):
                step = state.scenario.steps[state.next_step]
                state.next_step += 1
                return ident, step
            return ident, state.scenario.final

    def _record(self, api: str, body: Any, offered: Sequence[str], answer: dict[str, Any]) -> None:
        state = self.state
        with state.lock:
            record = Record(
                len(state.records), api, self.command, self.path, body, tuple(offered), answer, self._raw
            )
            state.records.append(record)
            if state.log_path is not None:
                with state.log_path.open("a", encoding="utf-8") as log:
                    log.write(json.dumps(record.as_dict()) + "\n")

    def _decide(self, api: str, body: Any, offered: Sequence[str]) -> tuple[str, str | tuple[str, Any]]:
        """Take the next step: a text, or (tool name, input) for a tool the request offers."""
        ident, step = self._next(offered)
        if isinstance(step, FollowUp):
            step = step.make(list(extract_tool_results(api, body)))
        if isinstance(step, ToolCall):
            picked = step.pick(offered)
            if picked is None:
                names = [name for name, _ in step.choices]
                text = f"[model_server] none of {names} is offered; offered: {list(offered)}"
                self._record(api, body, offered, {"kind": "text", "text": text, "missing_tool": names})
                return ident, text
            name, arguments = picked
            self._record(api, body, offered, {"kind": "tool_call", "name": name, "input": dict(arguments)})
            return ident, (name, dict(arguments))
        self._record(api, body, offered, {"kind": "text", "text": step})
        return ident, step

    # --- Anthropic Messages -------------------------------------------------------------------

    def _anthropic(self, body: Any) -> None:
        offered = [tool.get("name", "") for tool in _list(body, "tools") if isinstance(tool, dict)]
        ident, answer = self._decide("anthropic", body, offered)
        model = body.get("model", "claude") if isinstance(body, dict) else "claude"
        if isinstance(answer, str):
            block: dict[str, Any] = {"type": "text", "text": answer}
            stop = "end_turn"
        else:
            block = {"type": "tool_use", "id": f"toolu_{ident}", "name": answer[0], "input": answer[1]}
            stop = "tool_use"
        if not (isinstance(body, dict) and body.get("stream")):
            self._send_json(
                {
                    "id": f"msg_{ident}",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [block],
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 100, "output_tokens": 10},
                }
            )
            return
        self._send_sse(_anthropic_events(ident, model, block, stop))

    # --- OpenAI Responses ---------------------------------------------------------------------

    def _openai(self, body: Any) -> None:
        ident, answer = self._decide("openai", body, _openai_tools(body))
        if isinstance(answer, str):
            item: dict[str, Any] = {
                "type": "message",
                "id": f"msg_{ident}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": answer, "annotations": []}],
            }
        elif answer[0] == "local_shell":
            item = {
                "type": "local_shell_call",
                "id": f"lsh_{ident}",
                "call_id": f"call_{ident}",
                "status": "completed",
                "action": {"type": "exec", **answer[1]},
            }
        else:
            namespace, _, name = answer[0].rpartition("/")
            item = {
                "type": "function_call",
                "id": f"fc_{ident}",
                "call_id": f"call_{ident}",
                "name": name,
                "arguments": json.dumps(answer[1]),
                "status": "completed",
                **({"namespace": namespace} if namespace else {}),
            }
        model = body.get("model", "gpt") if isinstance(body, dict) else "gpt"
        response = {
            "id": f"resp_{ident}",
            "object": "response",
            "model": model,
            "status": "completed",
            "output": [item],
            "usage": {
                "input_tokens": 100,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 10,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 110,
            },
        }
        if not (isinstance(body, dict) and body.get("stream")):
            self._send_json(response)
            return
        self._send_sse(_openai_events(response, item))

    # --- Gemini -------------------------------------------------------------------------------

    def _gemini(self, body: Any, *, stream: bool, model: str) -> None:
        offered = [
            str(declaration.get("name"))
            for tool in _list(body, "tools")
            if isinstance(tool, dict)
            for declaration in tool.get("functionDeclarations") or ()
            if isinstance(declaration, dict)
        ]
        ident, answer = self._decide("gemini", body, offered)
        if isinstance(answer, str):
            part: dict[str, Any] = {"text": _gemini_text(body, answer)}
        else:
            part = {"functionCall": {"name": answer[0], "args": answer[1], "id": f"call_{ident}"}}
        response = {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
            "modelVersion": model.split(":", 1)[0],
            "responseId": f"resp_{ident}",
        }
        if stream:
            self._send_sse([(None, response)])
        else:
            self._send_json(response)

    # --- writing ------------------------------------------------------------------------------

    def _send_json(self, data: Any, status: HTTPStatus = HTTPStatus.OK) -> None:
        payload = json.dumps(data).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _send_sse(self, events: Sequence[tuple[str | None, Any]]) -> None:
        chunks = []
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            chunks.append(f"{head}data: {json.dumps(data)}\n\n")
        payload = "".join(chunks).encode("utf-8")
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def _estimate_tokens(body: Any) -> int:
    """About what a real tokenizer would count: four characters of the messages a token."""
    messages = body.get("messages") if isinstance(body, dict) else None
    return max(1, len(json.dumps(messages, ensure_ascii=False)) // 4)


def _list(body: Any, key: str) -> list[Any]:
    value = body.get(key) if isinstance(body, dict) else None
    return value if isinstance(value, list) else []


def _openai_tools(body: Any) -> list[str]:
    """The names of the tools a Responses request offers; a namespace's tools (Codex puts
    each MCP server in one) as `namespace/name`."""
    names = []
    for tool in _list(body, "tools"):
        if not isinstance(tool, dict):
            continue
        name = str(tool.get("name") or tool.get("type"))
        names.append(name)
        if tool.get("type") == "namespace":
            names += [
                f"{name}/{inner.get('name')}" for inner in _list(tool, "tools") if isinstance(inner, dict)
            ]
    return names


def _anthropic_events(ident: str, model: str, block: dict[str, Any], stop: str) -> list[tuple[str, Any]]:
    start: dict[str, Any] = {
        "id": f"msg_{ident}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 1},
    }
    opening: dict[str, Any]
    if block["type"] == "text":
        opening = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": block["text"]}
    else:
        opening = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    return [
        ("message_start", {"type": "message_start", "message": start}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": opening}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 10},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


def _openai_events(response: dict[str, Any], item: dict[str, Any]) -> list[tuple[str, Any]]:
    pending = {**response, "status": "in_progress", "output": []}
    events: list[tuple[str, Any]] = [
        ("response.created", {"type": "response.created", "sequence_number": 0, "response": pending}),
        (
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": 0, "item": item},
        ),
    ]
    if item["type"] == "message":
        text = item["content"][0]["text"]
        delta = {"type": "response.output_text.delta", "item_id": item["id"], "output_index": 0}
        events.append(("response.output_text.delta", {**delta, "content_index": 0, "delta": text}))
    events += [
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed", "response": response}),
    ]
    return [(name, {**data, "sequence_number": index}) for index, (name, data) in enumerate(events)]


def _gemini_text(body: Any, text: str) -> str:
    """`text`, or a JSON object filling the requested schema when the request asks for JSON
    (Gemini CLI's model router and next-speaker checks)."""
    config = body.get("generationConfig") if isinstance(body, dict) else None
    if not (isinstance(config, dict) and config.get("responseMimeType") == "application/json"):
        return text
    schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
    return json.dumps(_fill(schema, text))


def _fill(schema: Any, text: str) -> Any:
    """A small value that satisfies `schema` (the first choice of an enum, `text` for strings)."""
    if not isinstance(schema, dict):
        return text
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        properties = schema.get("properties") or {}
        return {key: _fill(value, text) for key, value in properties.items()}
    if kind == "array":
        return [_fill(schema.get("items"), text)]
    return {"integer": 1, "number": 1, "boolean": False}.get(kind, text)


# --- reading what the model was sent ----------------------------------------------------------


def extract_tool_results(api: str, body: Any) -> Iterator[ToolResult]:
    """The tool results carried by one request body, in order."""
    if not isinstance(body, dict):
        return
    if api == "anthropic":
        for message in _list(body, "messages"):
            content = message.get("content") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else ():
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    yield ToolResult(
                        str(block.get("tool_use_id")),
                        _text_of(block.get("content")),
                        bool(block.get("is_error")),
                        block,
                    )
    elif api == "openai":
        for item in _list(body, "input"):
            if isinstance(item, dict) and str(item.get("type", "")).endswith("_output"):
                yield ToolResult(str(item.get("call_id")), _text_of(item.get("output")), False, item)
    elif api == "gemini":
        for content in _list(body, "contents"):
            parts = content.get("parts") if isinstance(content, dict) else None
            for part in parts if isinstance(parts, list) else ():
                response = part.get("functionResponse") if isinstance(part, dict) else None
                if isinstance(response, dict):
                    call_id = str(response.get("id") or response.get("name"))
                    inner = response.get("response")
                    error = isinstance(inner, dict) and "error" in inner
                    yield ToolResult(call_id, _text_of(inner), error, response)


def _text_of(content: Any) -> str:
    """The text of a tool result's content, however the API wraps it."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_text_of(part) for part in content)
    if isinstance(content, dict):
        for key in ("text", "output", "content", "error"):
            if key in content:
                return _text_of(content[key])
        return json.dumps(content)
    return "" if content is None else json.dumps(content)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", type=Path, default=Path("requests.jsonl"))
    parser.add_argument(
        "--bash", help="a command for the first tool call (Bash, shell tools, run_shell_command)"
    )
    parser.add_argument("--final", default="done")
    args = parser.parse_args()
    steps: list[Step] = [shell_call(args.bash)] if args.bash else []
    server = ModelServer(Scenario(steps, args.final), args.log).start()
    print(server.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


def shell_call(command: str) -> ToolCall:
    """One shell command, as each host's shell tool takes it."""
    return ToolCall(
        (
            ("Bash", {"command": command, "description": "run it"}),
            ("exec_command", {"cmd": command}),
            ("shell_command", {"command": command}),
            ("shell", {"command": ["bash", "-lc", command]}),
            ("run_shell_command", {"command": command, "description": "run it"}),
        )
    )


if __name__ == "__main__":
    main()
