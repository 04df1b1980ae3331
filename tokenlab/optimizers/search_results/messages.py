"""Hit lists printed as JSON messages, one per line (`rg --json`).

Each line is one message: `begin` and `end` bracket a file (the end carries its
statistics), `match` is a hit and `context` a context line, each with the file's path,
the line number and the line's text, and `summary` ends the run with its totals. A hit is
shown as the message the tool printed, so what a person copies from it is the tool's own
bytes; the searched name and the definitions are read from the decoded text. A line that
does not parse (cut short, or not a message) is other output, shown as printed.
"""

from __future__ import annotations

import json
from typing import Any

from tokenlab.optimizers import Span

MESSAGE_TYPES = frozenset({"begin", "match", "context", "end", "summary"})
BOOKKEEPING = "#"  # the mark of a file's begin and end messages: kept with its hits' ref


def message(line: str) -> dict[str, Any] | None:
    """The message a line holds, if it is one: a JSON object with a known `type` and `data`."""
    if not line.startswith("{") or not line.endswith("}"):
        return None
    try:
        found = json.loads(line)
    except ValueError:
        return None
    if not isinstance(found, dict) or found.get("type") not in MESSAGE_TYPES:
        return None
    return found if isinstance(found.get("data"), dict) else None


def is_messages(lines: list[str], need: float) -> bool:
    """At least `need` of the lines are messages, and some of them are matches."""
    kinds = [found["type"] for line in lines if (found := message(line)) is not None]
    return len(kinds) >= need and "match" in kinds


def text_of(field: Any) -> str | None:
    """A `{"text": …}` field's text; bytes that are no UTF-8 come as `{"bytes": base64}`,
    which a person cannot read either, so they stay in the message as printed."""
    if isinstance(field, dict) and isinstance(field.get("text"), str):
        return field["text"]
    return None


def parts_of(found: dict[str, Any]) -> tuple[str, str, str] | None:
    """(path, line number, line text) of a `match` or `context` message."""
    data = found["data"]
    path = text_of(data.get("path"))
    number = data.get("line_number")
    text = text_of(data.get("lines"))
    if path is None or text is None:
        return None
    shown_number = str(number) if isinstance(number, int) else ""
    return path, shown_number, text.rstrip("\r\n")


def path_of(found: dict[str, Any]) -> str | None:
    return text_of(found["data"].get("path"))


Message = tuple[Span, str, dict[str, Any]]
