"""The JSON layout: how one valid document becomes kept, omitted and added segments.

The walk goes once through the document in original order. Structure and decision fields
become `Keep` spans of the original text (byte-identical); noise and bulk become `Omit`
spans, each replaced at its field position by a JSON string holding a label and the marker
(`Text` segments add those). Kept and omitted spans tile the document exactly, which is
what makes restore trivial and what the tests check.

Two levels of detail. DETAIL (the document itself, containers under decision keys,
anomalous records) shows every field except noise and bulk. RECORD (the items of an array
of similar objects) shows only decision fields, because repetition multiplies every kept
byte. Long arrays of records keep their first item and the anomalous ones (failed status,
a non-null error, an outlying number) and fold the runs between them with a count. An
array of records that each hold findings (a file's messages) lists them by rule in an
added first item and folds each record's findings (`findings`). Those decisions about
arrays are `arrays.py`'s; this module lays out values, scalars and objects.

Speed comes from the C scanners of the stdlib `json` module: `scan_once` parses a value
and returns where it ends, `scanstring` does the same for keys. Our own Python code only
visits the containers it keeps visible, so the cost stays linear and the recursion stays
bounded by `max_depth`; deeper or degenerate values are measured by `scan` without
recursion.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from tokenlab.optimizers import OptimizerConfig
from tokenlab.optimizers.json_doc import compact as json_compact
from tokenlab.optimizers.json_doc import records as json_records
from tokenlab.optimizers.json_doc import scan as json_scan
from tokenlab.optimizers.json_doc.arrays import ArrayLayout
from tokenlab.optimizers.json_doc.config import DEFAULT_CONFIG, JsonDocConfig
from tokenlab.optimizers.json_doc.records import KeyKind
from tokenlab.optimizers.json_doc.scan import skip
from tokenlab.optimizers.json_doc.segments import (
    Keep,
    Laid,
    Mode,
    Omit,
    Segment,
    Text,
    count_label,
    escape_label,
    folded,
    plural,
)
from tokenlab.patterns import compile_on_use

_WS = compile_on_use(r"[ \t\n\r]*")
_COLON = compile_on_use(r"[ \t\n\r]*:[ \t\n\r]*")
_SEPARATOR = compile_on_use(r"[ \t\n\r]*([,\]}])[ \t\n\r]*")
_BLOB = compile_on_use(r'"[A-Za-z0-9+/=_\-]*"')
_OPAQUE = object()  # a value too deep or too odd for the C scanner; only its span is known
# The stdlib's C scanner: parses the value at an index and returns it with its end index.
_Scanner = Callable[[str, int], tuple[Any, int]]
_SCAN_ONCE = cast(_Scanner, json.JSONDecoder().scan_once)  # type: ignore[attr-defined]
_SCAN_STRING = cast(_Scanner, json.decoder.scanstring)  # type: ignore[attr-defined]


def plan(
    text: str, config: OptimizerConfig, doc_config: JsonDocConfig = DEFAULT_CONFIG
) -> list[Segment] | None:
    """Lay out a valid JSON document as segments that tile it exactly; None if it cannot."""
    laid = laid_out(text, config, doc_config)
    return None if laid is None else laid[0]


def laid_out(
    text: str, config: OptimizerConfig, doc_config: JsonDocConfig = DEFAULT_CONFIG
) -> tuple[list[Segment], tuple[str, ...]] | None:
    """The segments of `plan` and the signals the layout keeps visible (grouped findings)."""
    try:
        layout = _Layout(text, config, doc_config)
        return layout.document(), tuple(dict.fromkeys(layout.signals))
    except (ValueError, StopIteration, RecursionError, LookupError, AttributeError, TypeError):
        # The text passed a validator, so this means a scanner disagreement on an odd
        # document (e.g. a number too long for int()); showing it whole is always safe,
        # and an optimizer must never raise.
        return None


@dataclass(slots=True)
class _Member:
    key: str
    key_start: int
    value_start: int
    value_end: int
    segments: Sequence[Segment] | None  # None: folded; empty when shown verbatim
    label: str  # describes the value when folded
    bulky: bool


class _Layout(ArrayLayout):
    """One document laid out: its values, scalars and objects here, its arrays in `ArrayLayout`."""

    def __init__(self, text: str, config: OptimizerConfig, doc_config: JsonDocConfig) -> None:
        self.text = text
        self.fine = config.granularity.value == "fine"
        self.cfg = doc_config
        self.keys = json_records.KeyClassifier(doc_config.records)
        self._deep_ends: dict[int, int] = {}
        self.lines = json_compact.LineMaker(text, self.keys, self._scan, doc_config.lines)
        self.grouped: set[str] = set()  # paths of findings arrays listed by rule instead
        self.signals: list[str] = []

    def document(self) -> list[Segment]:
        start = skip(_WS, self.text, 0)
        laid = self._value(start, 0, Mode.DETAIL, "$")
        body = laid.segments
        if not laid.kept:
            body = self._fold_value(laid.label, start, laid.end, "json $: whole document")
        return [Keep(0, start), *body, Keep(laid.end, len(self.text))]

    def _fold_value(self, label: str, start: int, end: int, reason: str) -> list[Segment]:
        if end - start < self.cfg.min_fold_chars:
            return [Keep(start, end)]
        return folded(label, start, end, reason)

    # -- values ---------------------------------------------------------------------------

    def _scan(self, pos: int) -> tuple[Any, int]:
        """Parse the value at `pos` in C; fall back to span-only scanning when too deep."""
        try:
            return _SCAN_ONCE(self.text, pos)
        except (RecursionError, ValueError):
            if self.text[pos] not in "{[":
                return _OPAQUE, json_scan.value_end(self.text, pos)
            if pos not in self._deep_ends:
                self._deep_ends.update(json_scan.container_ends(self.text, pos))
            return _OPAQUE, self._deep_ends.get(pos, len(self.text))

    def _value(self, pos: int, depth: int, mode: Mode, path: str) -> Laid:
        opener = self.text[pos]
        if opener in "{[" and depth >= self.cfg.max_depth:
            value, end = self._scan(pos)
            label = count_label(value) or ("{…deep}" if opener == "{" else "[…deep]")
            return Laid(end, folded(label, pos, end, f"json {path}: deep subtree"), True, label)
        if opener == "{":
            return self._object(pos, depth, mode, path)
        if opener == "[":
            return self._array(pos, depth, mode, path)
        value, end = self._scan(pos)
        return self._scalar(value, pos, end, mode, path)

    def _scalar(self, value: Any, start: int, end: int, mode: Mode, path: str) -> Laid:
        if not isinstance(value, str) or len(value) < self.cfg.blob_min_chars:
            return Laid(end, [Keep(start, end)], True, "")
        is_blob = _BLOB.fullmatch(self.text, start, end) is not None
        if len(value) <= self.cfg.max_string_chars and not is_blob:
            return Laid(end, [Keep(start, end)], True, "")
        label = count_label(value)
        if mode is Mode.RECORD:
            return Laid(end, [], False, label)
        prefix = self.cfg.blob_prefix_chars if is_blob else self.cfg.string_prefix_chars
        cut = json_scan.safe_cut(self.text, start + 1, start + 1 + prefix)
        reason = f"json {path}: long string, {len(value):,} chars"
        segments: list[Segment] = [
            Keep(start, cut),
            Text(f"…(+{end - 1 - cut:,} chars) "),
            Omit(cut, end - 1, reason),
            Keep(end - 1, end),
        ]
        return Laid(end, segments, True, label)

    # -- objects --------------------------------------------------------------------------

    def _object(self, start: int, depth: int, mode: Mode, path: str) -> Laid:
        text = self.text
        pos = skip(_WS, text, start + 1)
        if text[pos] == "}":
            return Laid(pos + 1, [Keep(start, pos + 1)], True, "{0 keys}")
        members: list[_Member] = []
        while True:
            key, after_key = _SCAN_STRING(text, pos + 1)
            value_start = skip(_COLON, text, after_key)
            member = self._member(key, pos, value_start, depth, mode, path)
            members.append(member)
            separator = _SEPARATOR.match(text, member.value_end)
            if separator is None:
                raise ValueError("malformed object")
            if separator.group(1) == "}":
                end = separator.end(1)
                break
            pos = separator.end()
        if mode is Mode.DETAIL:
            self._thin_members(members)
        label = "{" + plural(len(members), "key") + "}"
        if not any(member.segments is not None for member in members):
            return Laid(end, [], False, label)
        segments = self._join_members(start, end, members, mode, path)
        return Laid(end, segments, True, label)

    def _member(
        self, key: str, key_start: int, value_start: int, depth: int, mode: Mode, path: str
    ) -> _Member:
        kind = self.keys.kind(key)
        opener = self.text[value_start]
        if kind is KeyKind.NOISE or f"{path}.{key}" in self.grouped or (
            mode is Mode.RECORD
            and kind is not KeyKind.DECISION
            and opener != "{"
            and not self._holds_records(value_start)
        ):
            value, end = self._scan(value_start)
            label = count_label(value) or {"{": "{…}", "[": "[…]"}.get(opener, "")
            bulky = end - value_start >= self.cfg.bulky_chars
            return _Member(key, key_start, value_start, end, None, label, bulky)
        if opener in "{[":
            # Under a decision key a container is shown in detail: `"error": {...}` matters.
            child_mode = Mode.DETAIL if kind is KeyKind.DECISION else mode
            laid = self._value(value_start, depth + 1, child_mode, f"{path}.{key}")
        else:
            value, end = self._scan(value_start)
            if type(value) is not str or len(value) < self.cfg.blob_min_chars:
                return _Member(key, key_start, value_start, end, (), "", False)
            laid = self._scalar(value, value_start, end, mode, f"{path}.{key}")
        bulky = laid.end - value_start >= self.cfg.bulky_chars
        segments = laid.segments if laid.kept else None
        return _Member(key, key_start, value_start, laid.end, segments, laid.label, bulky)

    def _holds_records(self, pos: int) -> bool:
        """An array whose first item is an object with a decision field: a nested list of
        records (the findings of one file, say), which a record lists like any other."""
        if self.text[pos] != "[":
            return False
        first = skip(_WS, self.text, pos + 1)
        if self.text[first] != "{":
            return False
        item, _ = self._scan(first)
        kind = self.keys.kind
        return type(item) is dict and any(kind(key) is KeyKind.DECISION for key in item)

    def _thin_members(self, members: list[_Member]) -> None:
        """Fold the middle of an object with very many visible fields, keeping decisions."""
        shown = [member for member in members if member.segments is not None]
        if len(shown) <= self.cfg.max_members:
            return
        for member in shown[self.cfg.head_items : len(shown) - self.cfg.tail_items]:
            if self.keys.kind(member.key) is not KeyKind.DECISION:
                member.segments = None
                member.bulky = False

    def _join_members(
        self, start: int, end: int, members: list[_Member], mode: Mode, path: str
    ) -> list[Segment]:
        segments: list[Segment] = []
        shown_from = start  # original text from here on is shown until something is folded
        index = 0
        while index < len(members):
            member = members[index]
            if member.segments is None:
                stop = self._fold_run_end(members, index, mode)
                segments.append(Keep(shown_from, member.key_start))
                segments.extend(self._fold_members(members[index:stop], path))
                shown_from = members[stop - 1].value_end
                index = stop
                continue
            if member.segments:
                segments.append(Keep(shown_from, member.value_start))
                segments.extend(member.segments)
                shown_from = member.value_end
            index += 1
        segments.append(Keep(shown_from, end))
        return segments

    def _fold_run_end(self, members: list[_Member], index: int, mode: Mode) -> int:
        """End of the run of folded members that share one ref, starting at `index`."""
        if self.fine or (mode is Mode.DETAIL and members[index].bulky):
            return index + 1
        stop = index + 1
        while stop < len(members) and members[stop].segments is None:
            if mode is Mode.DETAIL and members[stop].bulky:
                break
            stop += 1
        return stop

    def _fold_members(self, run: list[_Member], path: str) -> list[Segment]:
        first, last = run[0], run[-1]
        if last.value_end - first.key_start < self.cfg.min_fold_chars:
            return [Keep(first.key_start, last.value_end)]
        if len(run) == 1:
            label = first.label or self._span_label(first.value_start, first.value_end)
            reason = f"json {path}.{first.key}: {label or 'value'}"
            return [
                Keep(first.key_start, first.value_start),
                *folded(label, first.value_start, first.value_end, reason),
            ]
        names = [escape_label(member.key) for member in run[: self.cfg.label_names]]
        if len(run) > self.cfg.label_names:
            names.append("…")
        label = f"{plural(len(run), 'field')}: {', '.join(names)}"
        reason = f"json {path}: {len(run)} adjacent fields ({', '.join(m.key for m in run[:8])})"
        return [Text('"…": '), *folded(label, first.key_start, last.value_end, reason)]

    def _span_label(self, start: int, end: int) -> str:
        """A label for a value whose parsed form was not kept: its size in the source."""
        if self.text[start] == '"':
            return f"({end - start - 2:,} chars)"
        return {"{": "{…}", "[": "[…]"}.get(self.text[start], "")
