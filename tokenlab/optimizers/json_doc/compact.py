"""One line per record: the decision fields of an array item, copied from the input.

An array of a few hundred similar records (lint findings, test results, API objects) is
too long to show whole and too telling to fold: each item's identity (file, code,
message, status) is what a reader scans. `LineMaker` turns one record into the fields of
one line: each decision field's `"key": value` copied byte for byte from the input,
nested objects narrowed the same way (all their scalar fields under a decision key, only
decision fields elsewhere), long strings cut to a prefix and a count, noise left out. The
layout wraps the fields in braces, so the line parses as JSON, and keeps the record's
exact text behind a ref.

Only the record's own text is read, with the same C scanners the layout uses; nothing
here decides which arrays are listed this way (that is `layout`'s call).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from tokenlab.optimizers.json_doc import scan as json_scan
from tokenlab.optimizers.json_doc.records import KeyClassifier, KeyKind
from tokenlab.patterns import compile_on_use

_WS = compile_on_use(r"[ \t\n\r]*")
_COLON = compile_on_use(r"[ \t\n\r]*:[ \t\n\r]*")
_SEPARATOR = compile_on_use(r"[ \t\n\r]*([,\]}])[ \t\n\r]*")
_SCAN_STRING = cast(
    Callable[[str, int], tuple[str, int]],
    json.decoder.scanstring,  # type: ignore[attr-defined]
)

Scanner = Callable[[int], tuple[Any, int]]


@dataclass(frozen=True)
class LineLimits:
    max_string_chars: int = 160  # longer strings keep a prefix and a count
    string_prefix_chars: int = 100
    max_depth: int = 2  # nested objects narrowed at most this deep
    max_inline_chars: int = 80  # a one-line array up to this long is copied whole


class LineMaker:
    """Builds the fields of one record's line; one instance serves one document."""

    def __init__(self, text: str, keys: KeyClassifier, scan: Scanner, limits: LineLimits) -> None:
        self.text = text
        self.keys = keys
        self.scan = scan
        self.limits = limits

    def fields(self, start: int) -> str:
        """The `"key": value` texts a record's line shows, joined as the record separates its
        members (`, ` when it spreads them over lines); empty when it has no decision field."""
        if self.text[start] != "{":
            return ""
        return self._fields(start, all_fields=False, depth=0)

    def _fields(self, start: int, all_fields: bool, depth: int) -> str:
        text = self.text
        shown: list[str] = []
        comma = ""
        pos = _WS.match(text, start + 1).end()  # type: ignore[union-attr]
        if text[pos] == "}":
            return ""
        while True:
            key, after_key = _SCAN_STRING(text, pos + 1)
            value_start = _COLON.match(text, after_key).end()  # type: ignore[union-attr]
            value, value_end = self.scan(value_start)
            field = self._field(key, pos, after_key, value_start, value_end, value, all_fields, depth)
            if field:
                shown.append(field)
            separator = _SEPARATOR.match(text, value_end)
            if separator is None:
                raise ValueError("malformed object")
            if separator.group(1) == "}":
                return (comma or ", ").join(shown)
            if not comma:
                comma = ", " if "\n" in separator.group(0) else separator.group(0)
            pos = separator.end()

    def _field(
        self,
        key: str,
        key_start: int,
        key_end: int,
        value_start: int,
        value_end: int,
        value: Any,
        all_fields: bool,
        depth: int,
    ) -> str:
        kind = self.keys.kind(key)
        if kind is KeyKind.NOISE:
            return ""
        decision = all_fields or kind is KeyKind.DECISION
        text = self.text
        colon = text[key_end:value_start]
        head = text[key_start:key_end] + (colon if "\n" not in colon else ": ")
        opener = text[value_start]
        if opener == "{":
            if depth >= self.limits.max_depth:
                return ""
            inner = self._fields(value_start, decision, depth + 1)
            return head + "{" + inner + "}" if inner else ""
        if not decision:
            return ""
        if opener == "[":
            span = text[value_start:value_end]
            if "\n" not in span and len(span) <= self.limits.max_inline_chars:
                return head + span
            count = len(value) if isinstance(value, list) else 0
            return head + f'"[{count:,} item{"" if count == 1 else "s"}]"'
        if opener == '"' and isinstance(value, str) and len(value) > self.limits.max_string_chars:
            cut = json_scan.safe_cut(text, value_start + 1, value_start + 1 + self.limits.string_prefix_chars)
            return head + text[value_start:cut] + f'…(+{value_end - 1 - cut:,} chars)"'
        return head + text[value_start:value_end]
