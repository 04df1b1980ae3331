"""What a JSON layout is made of: spans of the original kept or omitted, and text added;
how a folded value is labelled, and what a layout shows (see `layout.py`).

Kept and omitted spans tile the document exactly, which is what makes restore trivial.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any


class Mode(Enum):
    DETAIL = "detail"
    RECORD = "record"
    LINE = "line"  # an array item as one line of its decision fields


@dataclass(frozen=True, slots=True)
class Keep:
    """Original text [start, end) shown verbatim."""

    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Omit:
    """Original text [start, end) left out; rendered as a marker."""

    start: int
    end: int
    reason: str


@dataclass(frozen=True, slots=True)
class Text:
    """Text we add (labels, placeholder keys, quotes around a marker)."""

    text: str


Segment = Keep | Omit | Text


@dataclass(slots=True)
class Laid:
    """A value laid out: where it ends, its segments, and the label it folds under."""

    end: int
    segments: list[Segment]
    kept: bool  # False when nothing inside was worth showing
    label: str


def count_label(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + plural(len(value), "key") + "}"
    if isinstance(value, list):
        return "[" + plural(len(value), "item") + "]"
    if isinstance(value, str):
        return "(" + plural(len(value), "char") + ")"
    return ""


def plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"


def escape_label(name: str, limit: int = 24) -> str:
    short = name if len(name) <= limit else name[: limit - 1] + "…"
    return json.dumps(short, ensure_ascii=False)[1:-1]


def folded(label: str, start: int, end: int, reason: str) -> list[Segment]:
    """A folded value as a JSON string holding its label and marker."""
    return [Text(f'"{label} ' if label else '"'), Omit(start, end, reason), Text('"')]


def visible_size(segments: Sequence[Segment]) -> int:
    """Characters a layout shows, counting a marker as the 16 characters it renders to."""
    size = 0
    for segment in segments:
        if isinstance(segment, Keep):
            size += segment.end - segment.start
        elif isinstance(segment, Text):
            size += len(segment.text)
        else:
            size += 16
    return size
