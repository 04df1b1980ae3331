"""The JSON layout's arrays: which items show, how, and how the rest fold.

An array of records (objects of similar keys) shows its records in full when few, one line
of decision fields each when those fit (`compact`), else its first item and the anomalous
ones, with each run between them folded under a count. An array of scalars shows its head
and tail. Records that hold findings get them listed by rule in an added first item
(`findings`). The values inside the items are laid out by the document's layout
(`layout._Layout`, which supplies `_value` and `_scan`): this half decides, item by item.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from tokenlab.optimizers.json_doc import compact as json_compact
from tokenlab.optimizers.json_doc import findings as json_findings
from tokenlab.optimizers.json_doc import records as json_records
from tokenlab.optimizers.json_doc import scan as json_scan
from tokenlab.optimizers.json_doc.config import JsonDocConfig
from tokenlab.optimizers.json_doc.scan import skip
from tokenlab.optimizers.json_doc.segments import (
    Keep,
    Laid,
    Mode,
    Omit,
    Segment,
    Text,
    folded,
    plural,
    visible_size,
)
from tokenlab.patterns import compile_on_use

_WS = compile_on_use(r"[ \t\n\r]*")
_SEPARATOR = compile_on_use(r"[ \t\n\r]*([,\]}])[ \t\n\r]*")


class ArrayLayout:
    """The array methods of the document's layout, which sets these fields and supplies
    the value layout (`_value`) and the scanner (`_scan`) the items are read with."""

    text: str
    fine: bool
    cfg: JsonDocConfig
    keys: json_records.KeyClassifier
    lines: json_compact.LineMaker
    grouped: set[str]
    signals: list[str]

    def _scan(self, pos: int) -> tuple[Any, int]:
        raise NotImplementedError

    def _value(self, pos: int, depth: int, mode: Mode, path: str) -> Laid:
        raise NotImplementedError

    def _array(self, start: int, depth: int, mode: Mode, path: str) -> Laid:
        text = self.text
        first = skip(_WS, text, start + 1)
        if text[first] == "]":
            return Laid(first + 1, [Keep(start, first + 1)], True, "[0 items]")
        items = None
        if text[first] not in "{[":
            items = self._long_scalar_items(start, first, path)
        if items is None:
            items = self._scan_items(first, path)
        findings = self._findings(items) if items.census.is_records() else None
        if items.census.is_records():
            shown = self._records_shown(items, depth, nested=mode is not Mode.DETAIL)
        else:
            shown = self._scalars_shown(items.count)
        segments = self._join_items(start, items, shown, depth)
        if findings is not None:  # before the first item, indented as it is
            segments.insert(1, Text(findings + "," + (self.text[start + 1 : items.starts[0]] or "\n")))
        return Laid(items.end, segments, True, "[" + plural(items.count, "item") + "]")

    def _findings(self, items: _Items) -> str | None:
        """Records holding findings (a file's messages) get them listed by rule in an added
        first item (`findings`); each record's own findings array then folds."""
        if isinstance(items.starts, dict) or isinstance(items.ends, dict):
            return None
        grouped = json_findings.group_items(self.text, items.starts, items.ends, self._scan, self.keys, self.cfg.findings)
        if grouped is None:
            return None
        self.grouped.add(f"{items.path}.{grouped.key}")
        self.signals += grouped.signals
        return grouped.text

    def _scan_items(self, pos: int, path: str) -> _Items:
        """Visit every item once, noting its span and what the census needs."""
        text = self.text
        starts: list[int] = []
        ends: list[int] = []
        census = json_records.Census(self.keys)
        while True:
            value, value_end = self._scan(pos)
            starts.append(pos)
            ends.append(value_end)
            census.add(value)
            separator = _SEPARATOR.match(text, value_end)
            if separator is None:
                raise ValueError("malformed array")
            if separator.group(1) == "]":
                return _Items(starts, ends, len(starts), separator.end(1), census, f"{path}[]")
            pos = separator.end()

    def _long_scalar_items(self, start: int, first: int, path: str) -> _Items | None:
        """Spans of just the head and tail of a long array of scalars, at C speed."""
        head, tail = self.cfg.head_items, self.cfg.tail_items
        value, end = self._scan(start)
        if not isinstance(value, list) or len(value) <= max(self.cfg.max_scalar_items, head + tail):
            return None
        if not _SCALAR_TYPES.issuperset(map(type, value)):
            return None
        close = self.text.rindex("]", start, end)
        starts, ends = json_scan.scalar_item_edges(self.text, first, close, len(value), head, tail)
        census = json_records.Census(self.keys)
        census.count = len(value)
        return _Items(starts, ends, len(value), end, census, f"{path}[]")

    def _records_shown(self, items: _Items, depth: int, nested: bool) -> dict[int, Mode]:
        """Which records show, and how. Inside a record (the findings of one file) a list
        is one line per item when that fits, as repetition multiplies every kept byte."""
        census = items.census
        anomalies = census.anomalies()[: self.cfg.max_anomalies]
        lines_fit = self._lines_fit(items)
        views_share = functools.cache(functools.partial(self._views_share, items, depth))  # laid out once, if asked
        listed = census.count <= self.cfg.records_listed and not (
            census.count > self.cfg.records_always_listed and lines_fit and views_share() > self.cfg.lines_budget
        )
        if not (nested and lines_fit) and (listed or views_share() <= self.cfg.listing_budget):
            shown = {index: Mode.RECORD for index in range(census.count)}
        elif lines_fit:
            shown = {index: Mode.LINE for index in range(census.count)}
            if census.failures_are_usual():
                # Every finding of a linter "fails": then a failure is no anomaly.
                anomalies = census.outliers()[: self.cfg.max_anomalies]
        else:
            shown = {0: Mode.DETAIL}  # one full item shows the shape of the folded rest
        shown.update((index, Mode.DETAIL) for index in anomalies)
        return shown

    def _views_share(self, items: _Items, depth: int) -> float:
        """What compact views of every record would cost, as a share of the records (judged
        on a sample); past `max_records_listed` records, more than any budget."""
        if items.count > self.cfg.max_records_listed:
            return float("inf")
        sample = range(min(self.cfg.listing_sample, items.count))
        raw = sum(items.ends[index] - items.starts[index] for index in sample)
        shown = 0
        for index in sample:
            laid = self._value(items.starts[index], depth + 1, Mode.RECORD, items.path)
            shown += visible_size(laid.segments)
        return shown / max(raw, 1)

    def _lines_fit(self, items: _Items) -> bool:
        """Do most records carry decision fields, and do their lines fit the budget?"""
        if items.count > self.cfg.max_records_lined:
            return False
        sample = range(min(self.cfg.listing_sample, items.count))
        raw = sum(items.ends[index] - items.starts[index] for index in sample)
        lines = [self.lines.fields(items.starts[index]) for index in sample]
        if sum(1 for fields in lines if fields) * 2 < len(lines):
            return False
        shown = sum(len(fields) + 8 for fields in lines)
        return shown <= self.cfg.lines_budget * raw

    def _scalars_shown(self, count: int) -> dict[int, Mode]:
        if count <= self.cfg.max_scalar_items:
            return {index: Mode.DETAIL for index in range(count)}
        edges = [*range(self.cfg.head_items), *range(count - self.cfg.tail_items, count)]
        return {index: Mode.DETAIL for index in edges}

    def _join_items(
        self, start: int, items: _Items, shown: dict[int, Mode], depth: int
    ) -> list[Segment]:
        starts, ends = items.starts, items.ends
        units = self._laid_items(items, shown, depth)  # (first, stop, segments), in order
        segments: list[Segment] = [Keep(start, starts[0])]
        cursor = 0  # the first item not yet emitted
        for first, stop, laid in [*units, (items.count, items.count, [])]:
            if first > cursor:
                if cursor > 0:
                    segments.append(Keep(ends[cursor - 1], starts[cursor]))
                segments.extend(self._fold_items(items, cursor, first))
            if first == items.count:
                break
            if first > 0:
                segments.append(Keep(ends[first - 1], starts[first]))
            segments.extend(laid)
            cursor = stop
        segments.append(Keep(ends[items.count - 1], items.end))
        return segments

    def _laid_items(
        self, items: _Items, shown: dict[int, Mode], depth: int
    ) -> list[tuple[int, int, list[Segment]]]:
        """Shown items laid out; a run of neighbouring one-line items is one unit."""
        units: list[tuple[int, int, list[Segment]]] = []
        lines: dict[int, str] = {}
        for index in sorted(shown):
            if shown[index] is Mode.LINE:
                fields = self.lines.fields(items.starts[index])
                if fields:
                    lines[index] = fields
                continue
            item = self._value(items.starts[index], depth + 1, shown[index], items.path)
            if item.kept:
                units.append((index, index + 1, item.segments))
        if not units and not lines:
            # Records without decision fields: show the first in full rather than nothing.
            first = self._value(items.starts[0], depth + 1, Mode.DETAIL, items.path)
            if first.kept:
                units.append((0, 1, first.segments))
        run: list[int] = []
        for index in [*sorted(lines), -1]:
            if run and index != run[-1] + 1:
                units.append((run[0], run[-1] + 1, self._line_run(items, run[0], run[-1] + 1, lines)))
                run = []
            run.append(index)
        return sorted(units, key=lambda unit: unit[0])

    def _line_run(
        self, items: _Items, first: int, stop: int, lines: dict[int, str]
    ) -> list[Segment]:
        """Items `first..stop-1` one line each. Fine: each line ends with its item's ref;
        coarse: one ref after the run holds all of them, separators included."""
        starts, ends = items.starts, items.ends
        segments: list[Segment] = []
        if self.fine or stop - first == 1:
            for index in range(first, stop):
                if index > first:
                    segments.append(Keep(ends[index - 1], starts[index]))
                reason = f"json {items.path}: item {index}"
                segments += [
                    Text("{" + lines[index] + ', "…": "'),
                    Omit(starts[index], ends[index], reason),
                    Text('"}'),
                ]
            return segments
        after = ends[first]
        separator = self.text[after : starts[first + 1]]
        for index in range(first, stop):
            segments += [Text("{" + lines[index] + "}"), Text(separator)]
        count = stop - first
        label = f"[the {count:,} items above, each in full]"
        reason = f"json {items.path}: items {first}..{stop - 1} ({plural(count, 'item')})"
        return [*segments, *folded(label, starts[first], ends[stop - 1], reason)]

    def _fold_items(self, items: _Items, first: int, stop: int) -> list[Segment]:
        start, end = items.starts[first], items.ends[stop - 1]
        if end - start < self.cfg.min_fold_chars:
            return [Keep(start, end)]
        count = stop - first
        kind = "similar item" if items.census.is_records() else "item"
        label = "[" + plural(count, kind)
        hidden_anomalies = items.census.anomalies_between(first, stop)
        if hidden_anomalies:
            label += f", incl. {hidden_anomalies:,} anomalous"
        label += "]"
        reason = f"json {items.path}: items {first}..{stop - 1} ({plural(count, kind)})"
        return folded(label, start, end, reason)


_SCALAR_TYPES = frozenset({str, int, float, bool, type(None)})


@dataclass(slots=True)
class _Items:
    """Where an array's items are. Spans may be sparse: only shown items and run edges."""

    starts: list[int] | dict[int, int]
    ends: list[int] | dict[int, int]
    count: int
    end: int  # just past the closing bracket
    census: json_records.Census
    path: str
