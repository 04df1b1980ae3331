"""Which parts of a model request are tool results, and the request with some of them replaced.

`tokens proxy` sits on an agent's base URL and sees whole requests: the Anthropic Messages
API, OpenAI Chat Completions and the OpenAI Responses API. The only values it may change are
tool results:

- Anthropic: a `tool_result` block's `content`, a string or the `text` of its text blocks;
- Chat Completions: a `tool` message's `content`, a string or the `text` of its text parts;
- Responses: a `function_call_output` (or `custom_tool_call_output`) item's `output`,
  a string or the `text` of its text parts.

Everything else (system prompt, tools, `cache_control`, images, the order and spacing of
keys) stays as the client sent it: the new values are spliced into the original bytes
(`json_spans`), and a request with nothing replaced is the original bytes. The same text
replaced by the same visible text gives the same bytes every time, so a conversation sent
again sends the provider the same prefix.

A result is *newest* when it comes after the conversation's last assistant turn: the
provider has not seen it yet. Which results to compress, and with what, is the caller's
`Compress`; this module only reads and writes request bodies, and never runs anything it
finds in them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from tokenlab.agent import json_spans


class Api(str, Enum):
    ANTHROPIC = "anthropic-messages"
    CHAT = "openai-chat"
    RESPONSES = "openai-responses"


# A request path's end names its API; anything before it is the upstream's own prefix.
_ROUTES = (
    ("/messages/count_tokens", Api.ANTHROPIC),
    ("/messages", Api.ANTHROPIC),
    ("/chat/completions", Api.CHAT),
    ("/responses", Api.RESPONSES),
)
# Responses items the model produced: a result after the last of them is newest.
_MODEL_ITEMS = frozenset(
    {"function_call", "custom_tool_call", "reasoning", "local_shell_call", "web_search_call"}
)
_OUTPUT_ITEMS = frozenset({"function_call_output", "custom_tool_call_output"})


def api_for(path: str) -> Api | None:
    """The API a request path names (query string ignored), or None to pass it through."""
    path = path.partition("?")[0].rstrip("/")
    for suffix, api in _ROUTES:
        if path.endswith(suffix):
            return api
    return None


@dataclass(frozen=True)
class ToolResult:
    """One tool result's text, where it sits in the body, and what is known about it."""

    path: json_spans.Path
    text: str
    tool: str  # the tool's name, from the call it answers ("" when the call is not in the request)
    newest: bool  # after the last assistant turn: the provider has not seen it


Compress = Callable[[ToolResult, str], str | None]  # (result, model) -> visible text, or None


@dataclass(frozen=True)
class Rewrite:
    body: bytes
    replaced: tuple[tuple[ToolResult, str], ...]

    @property
    def changed(self) -> bool:
        return bool(self.replaced)


def rewrite(raw: bytes, api: Api, compress: Compress) -> Rewrite:
    """`raw` with every tool result `compress` replaces spliced in; `raw` itself when none is
    (or when it is not a JSON object this module understands)."""
    try:
        body = json.loads(raw)
    except ValueError:
        return Rewrite(raw, ())
    if not isinstance(body, dict):
        return Rewrite(raw, ())
    model = body.get("model")
    model = model if isinstance(model, str) else ""
    replaced = []
    for result in tool_results(api, body):
        visible = compress(result, model)
        if visible is not None and visible != result.text:
            replaced.append((result, visible))
    if not replaced:
        return Rewrite(raw, ())
    try:
        where = json_spans.spans(raw, [result.path for result, _ in replaced])
        new = json_spans.splice(raw, {where[r.path]: json_spans.string_bytes(v) for r, v in replaced})
    except (json_spans.JsonSpanError, KeyError):
        return Rewrite(raw, ())
    return Rewrite(new, tuple(replaced))


def tool_results(api: Api, body: Mapping[str, Any]) -> list[ToolResult]:
    """Every tool result's text in a parsed request body, in request order."""
    if api is Api.RESPONSES:
        return _responses(body.get("input"))
    messages = body.get("messages")
    if not isinstance(messages, list):
        return []
    return _anthropic(messages) if api is Api.ANTHROPIC else _chat(messages)


def _texts(
    value: Any, path: json_spans.Path, text_types: frozenset[str]
) -> list[tuple[json_spans.Path, str]]:
    """A string value, or the `text` of each text part in a list of parts."""
    if isinstance(value, str):
        return [(path, value)]
    if not isinstance(value, list):
        return []
    return [
        ((*path, k, "text"), part["text"])
        for k, part in enumerate(value)
        if isinstance(part, dict) and part.get("type") in text_types and isinstance(part.get("text"), str)
    ]


def _last_index(items: list[Any], is_model: Callable[[dict[str, Any]], bool]) -> int:
    return max((i for i, item in enumerate(items) if isinstance(item, dict) and is_model(item)), default=-1)


def _anthropic(messages: list[Any]) -> list[ToolResult]:
    last_assistant = _last_index(messages, lambda m: m.get("role") == "assistant")
    names = {}
    for message in messages:
        if isinstance(message, dict) and isinstance(message.get("content"), list):
            for block in message["content"]:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    names[block.get("id")] = str(block.get("name", ""))
    found = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for j, block in enumerate(content):
            if isinstance(block, dict) and block.get("type") == "tool_result":
                tool = names.get(block.get("tool_use_id"), "")
                for path, text in _texts(
                    block.get("content"), ("messages", i, "content", j, "content"), _TEXT
                ):
                    found.append(ToolResult(path, text, tool, i > last_assistant))
    return found


_TEXT = frozenset({"text"})
_INPUT_TEXT = frozenset({"input_text", "output_text", "text"})


def _chat(messages: list[Any]) -> list[ToolResult]:
    last_assistant = _last_index(messages, lambda m: m.get("role") == "assistant")
    names = {}
    for message in messages:
        if isinstance(message, dict) and isinstance(message.get("tool_calls"), list):
            for call in message["tool_calls"]:
                if isinstance(call, dict) and isinstance(call.get("function"), dict):
                    names[call.get("id")] = str(call["function"].get("name", ""))
    found = []
    for i, message in enumerate(messages):
        if isinstance(message, dict) and message.get("role") == "tool":
            tool = names.get(message.get("tool_call_id"), "")
            for path, text in _texts(message.get("content"), ("messages", i, "content"), _TEXT):
                found.append(ToolResult(path, text, tool, i > last_assistant))
    return found


def _responses(items: Any) -> list[ToolResult]:
    if not isinstance(items, list):
        return []
    last_model = _last_index(
        items, lambda item: item.get("type") in _MODEL_ITEMS or item.get("role") == "assistant"
    )
    names = {
        item.get("call_id"): str(item.get("name", ""))
        for item in items
        if isinstance(item, dict) and item.get("type") in _MODEL_ITEMS
    }
    found = []
    for i, item in enumerate(items):
        if isinstance(item, dict) and item.get("type") in _OUTPUT_ITEMS:
            tool = names.get(item.get("call_id"), "")
            for path, text in _texts(item.get("output"), ("input", i, "output"), _INPUT_TEXT):
                found.append(ToolResult(path, text, tool, i > last_model))
    return found
