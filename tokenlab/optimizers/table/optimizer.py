"""CSV and TSV tables: the header, a census of the columns, the first rows and the odd ones.

A table is recognised by shape (`sniff`): one delimiter (comma, tab or semicolon) splits
most records of the sample into the same number of fields as the first record, and that
first record reads like a header (short names, not numbers, not a timestamp). Logs, prose
and Markdown tables fail one of those tests.

What stays visible:
- a census: the row count and, per column, the value counts of a categorical column (few
  distinct values), the range of a numeric one, else how many distinct values it has;
- the header record and the first `first_rows` records, verbatim;
- every *anomalous* record verbatim, up to `anomalies_shown` (failures first), then a
  count and one ref holding the rest: records matching `line_shapes.is_failure`, records
  holding a rare value of a categorical column (`failed` among thousands of `passed`;
  not when the column's rare values cover more than `rare_max_share` of the rows, since
  then they are a spread, not an anomaly) and records with a different field count.
  They are the optimizer's signals, so the SIGNAL stage checks that they stay visible.

Every other record is folded; each folded run leaves a `… N rows (lines a–b)` line.
COARSE: one ref holds all folded records in order; FINE: one ref per run. The visible
records are the input's bytes, spliced. Tables under `small_bytes` pass through.

Records are read with the csv module over the input's lines, so a quoted field holding
newlines is one record; `line_num` gives its line range and so its exact bytes. A line the
csv module rejects (a bare carriage return, a NUL) is a record of its own. One pass, and
per column only bounded counts are kept, so a 100 MB table takes linear time.
"""

from __future__ import annotations

import csv
import math
from array import array
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import accumulate

from tokenlab.optimizers import (
    Granularity,
    Omission,
    OptimizerConfig,
    OptimizeResult,
    Part,
    join_literals,
    visible,
)
from tokenlab.optimizers.lines.shapes import FAILURE_RE
from tokenlab.optimizers.table import aligned as table_aligned
from tokenlab.optimizers.table import cells as table_cells
from tokenlab.patterns import compile_on_use

_DELIMITERS = {",": "comma", "\t": "tab", ";": "semicolon"}
_SEPARATED = {",": "comma-separated", "\t": "tab-separated", ";": "semicolon-separated", "|": "aligned in | columns"}
_SNIFF_RECORDS = 200


@dataclass(frozen=True)
class TableLimits:
    small_bytes: int = 4096  # smaller tables pass through unchanged
    first_rows: int = 5
    anomalies_shown: int = 200
    categorical_distinct: int = 20  # a column with at most this many distinct values
    tracked_distinct: int = 64  # values counted per column before it counts as "many"
    rare_share: float = 0.01  # a categorical value in at most this share of rows is rare
    rare_max_share: float = 0.02
    values_listed: int = 8
    value_chars: int = 40
    row_chars: int = 2000  # a kept record longer than this shows its start and a ref
    # An aligned table (psql) of fewer rows shows whole: `\d+`'s columns and short query
    # results are each a record a person reads.
    whole_rows: int = 40


DEFAULT_LIMITS = TableLimits()


def sniff(sample: bytes) -> str | None:
    """The delimiter if `sample` (the start of the input) is a table with a header row."""
    lines = sample.decode("utf-8", errors="replace").split("\n")
    if len(lines) > 1:
        lines.pop()  # "" after a final newline, or a line the sample cut
    lines = [line + "\n" for line in lines[: _SNIFF_RECORDS * 2]]
    best: tuple[float, str] | None = None
    for delimiter in _DELIMITERS:
        if not any(delimiter in line for line in lines[:2]):
            continue
        share = _consistent_share(lines, delimiter)
        if share is not None and (best is None or share > best[0]):
            best = (share, delimiter)
    return best[1] if best else None


def looks_like_table(sample: bytes) -> bool:
    return sniff(sample) is not None


def _consistent_share(lines: list[str], delimiter: str) -> float | None:
    """The share of records with the header's field count, if the header and most do."""
    records: list[list[str]] = []
    try:  # a record the csv module rejects ends the sample; the records before it judge
        for row in csv.reader(lines, delimiter=delimiter):
            if row:
                records.append(row)
            if len(records) == _SNIFF_RECORDS:
                break
    except csv.Error:
        pass
    if len(records) < 5 or not _header_like(records[0], delimiter):
        return None
    width = len(records[0])
    share = sum(len(row) == width for row in records[1:]) / (len(records) - 1)
    return share if share >= 0.9 else None


def _header_like(header: list[str], delimiter: str) -> bool:
    if len(header) < (2 if delimiter == "\t" else 3):
        return False
    names = [name.strip() for name in header]
    if "" in names[1:] or not any(name[:1].isalpha() for name in names):
        return False
    return all(_name_like(name) for name in names if name)


def _name_like(name: str) -> bool:
    if len(name) > 64 or len(name.split()) > 4 or _number(name) is not None:
        return False
    return not any(ch.isdigit() and name[i + 1 : i + 2] == ":" for i, ch in enumerate(name))


def _number(value: str) -> float | None:
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


class _Column:
    """Bounded counts for one column: values while few, numeric range, rows of each value."""

    __slots__ = ("counts", "empty", "high", "keep", "low", "name", "numeric", "rows", "track")

    def __init__(self, name: str, keep: int, track: int) -> None:
        self.name = name
        self.counts: dict[str, int] | None = {}  # None once there are more than `track`
        self.rows: dict[str, list[int]] = {}  # value -> its first `keep` record indices
        self.keep = keep
        self.track = track
        self.numeric = True
        self.low: tuple[float, str] | None = None
        self.high: tuple[float, str] | None = None
        self.empty = 0

    def add(self, value: str, record: int) -> None:
        counts = self.counts
        blank = value == "" or value.isspace()
        if counts is not None:
            seen = counts.get(value)
            if seen is not None:  # its kind and range were noted when first seen
                counts[value] = seen + 1
                rows = self.rows[value]
                if len(rows) < self.keep:
                    rows.append(record)
                self.empty += blank
                return
            if len(counts) >= self.track:
                self.counts, self.rows = None, {}
            else:
                counts[value] = 1
                self.rows[value] = [record]
        if blank:
            self.empty += 1
        elif self.numeric:
            number = _number(value)
            if number is None:
                self.numeric = False
                return
            if self.low is None or number < self.low[0]:
                self.low = (number, value)
            if self.high is None or number > self.high[0]:
                self.high = (number, value)


@dataclass
class _Table:
    delimiter: str
    first: int = 0  # the line where the first record starts
    header: int = -1  # record index of the header
    ends: array[int] = field(default_factory=lambda: array("q"))  # end line of each record
    blank: set[int] = field(default_factory=set)
    columns: list[_Column] = field(default_factory=list)
    failures: list[int] = field(default_factory=list)
    ragged: list[int] = field(default_factory=list)
    rows: int = 0

    def add(self, row: list[str] | None, record: int, limits: TableLimits, keep: int) -> None:
        if not row:
            if row is not None:
                self.blank.add(record)
            return
        if self.header < 0:
            self.header = record
            self.columns = [_Column(name.strip(), keep, limits.tracked_distinct) for name in row]
            return
        self.rows += 1
        if len(row) != len(self.columns):
            self.ragged.append(record)
        for column, value in zip(self.columns, row):
            column.add(value, record)


def _lines(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return lines


def _scan(data: bytes, lines: list[bytes], delimiter: str, limits: TableLimits) -> _Table:
    table = _Table(delimiter)
    keep = max(limits.anomalies_shown, int(limits.rare_max_share * len(lines))) + 1
    texts: Iterator[str] = (line.decode("utf-8", errors="replace") + "\n" for line in lines)
    base = 0
    while base < len(lines):
        reader = csv.reader(texts, delimiter=delimiter)
        try:
            for row in reader:
                table.ends.append(base + reader.line_num)
                table.add(row, len(table.ends) - 1, limits, keep)
        except csv.Error:
            table.ends.append(base + reader.line_num)  # the rejected lines: one record
            if table.header >= 0:
                table.ragged.append(len(table.ends) - 1)
                table.rows += 1
        base = table.ends[-1] if table.ends else len(lines)
        if not table.ends or reader.line_num == 0:
            break
    table.failures = _failures(data, lines, table)
    return table


# Every line `FAILURE_RE` matches holds one of these: one scan of the input finds the few
# records worth the full check, instead of running it on every record.
_FAILURE_HINT_RE = compile_on_use(
    "(?i:err|fatal|critical|panic|emerg|fail|exception|traceback|segmentation|not ok)|[✕✗✖]".encode()
)


def _failures(data: bytes, lines: list[bytes], table: _Table) -> list[int]:
    starts = list(accumulate((len(line) + 1 for line in lines), initial=0))
    found: list[int] = []
    checked = -1
    after = starts[table.ends[table.header]] if table.header >= 0 else len(data)
    for hint in _FAILURE_HINT_RE.finditer(data, after, starts[table.ends[-1]]):
        line = bisect_right(starts, hint.start()) - 1
        record = bisect_right(table.ends, line)
        if record == checked:
            continue
        checked = record
        first = table.ends[record - 1] if record else 0
        text = data[starts[first] : starts[table.ends[record]]].decode("utf-8", errors="replace")
        if FAILURE_RE.search(text):
            found.append(record)
    return found


def optimize(data: bytes, config: OptimizerConfig, limits: TableLimits = DEFAULT_LIMITS) -> OptimizeResult:
    unchanged = OptimizeResult((visible(data),) if data else ())
    if len(data) < limits.small_bytes:
        return unchanged
    if table_aligned.looks_aligned(data[:65536]):
        return _aligned(data, config, limits)
    delimiter = sniff(data[:65536])
    if delimiter is None:
        return unchanged
    lines = _lines(data)
    table = _scan(data, lines, delimiter, limits)
    if table.rows <= limits.first_rows:
        return unchanged
    starts = array("q", accumulate((len(line) + 1 for line in lines), initial=0))
    starts[-1] = len(data)
    return _Render(data, table, starts, config.granularity is Granularity.FINE, limits).result()


def _aligned(data: bytes, config: OptimizerConfig, limits: TableLimits) -> OptimizeResult:
    """Each long aligned table rendered as a CSV table is (a drawn tree as an outline, JSON
    documents in one column laid out as JSON); short tables and the lines around the
    tables stay as they are."""
    lines = _lines(data)
    texts = [visible(line).rstrip("\r") for line in lines]
    starts = array("q", accumulate((len(line) + 1 for line in lines), initial=0))
    starts[-1] = len(data)
    fine = config.granularity is Granularity.FINE
    parts: list[Part] = []
    signals: list[str] = []
    shown_to = 0  # lines before this one are in `parts`
    for found in table_aligned.find_tables(texts):
        documents = None if found.bounds else table_cells.document_cells(data, texts, starts, found, config)
        if documents is not None:
            parts.append(visible(data[starts[shown_to] : starts[found.header]]))
            parts += documents[0]
            signals += documents[1]
            shown_to = found.end
            continue
        if len(found.records) < limits.whole_rows:
            continue
        parts.append(visible(data[starts[shown_to] : starts[found.header]]))
        rows = [texts[first] for first, _ in found.records]
        if not found.bounds and table_aligned.is_tree(rows):
            parts += table_aligned.tree_parts(data, starts, texts, found, fine)
        else:
            result = _Render(data, _aligned_table(data, lines, texts, found, limits), starts, fine, limits).result()
            parts += result.parts
            signals += result.signals
        if found.footer is not None:
            signals.append(texts[found.footer].strip())
        shown_to = found.end
    parts.append(visible(data[starts[shown_to] :]))
    return OptimizeResult(tuple(join_literals(parts)), tuple(dict.fromkeys(signals)))


def _aligned_table(
    data: bytes, lines: list[bytes], texts: list[str], found: table_aligned.Aligned, limits: TableLimits
) -> _Table:
    """One aligned table read as `_scan` reads CSV: its header record holds the header and
    the rule; a record's values come from its first line."""
    keep = max(limits.anomalies_shown, int(limits.rare_max_share * len(found.records))) + 1
    table = _Table("|", first=found.header, header=0)
    table.ends = array("q", [found.header + 2, *(stop for _, stop in found.records)])
    names = table_aligned.cells(texts[found.header], found.bounds)
    table.columns = [_Column(name, keep, limits.tracked_distinct) for name in names]
    for record, (first, _) in enumerate(found.records, start=1):
        table.add(table_aligned.cells(texts[first], found.bounds), record, limits, keep)
    table.failures = _failures(data, lines, table)
    return table


class _Render:
    def __init__(
        self, data: bytes, table: _Table, starts: array[int], fine: bool, limits: TableLimits
    ) -> None:
        self.data, self.table, self.starts, self.fine, self.limits = data, table, starts, fine, limits
        self.rare = _rare_values(table, limits)
        anomalies = _anomalies(table, self.rare, limits)
        self.shown = sorted(anomalies[: limits.anomalies_shown])
        self.hidden = sorted(anomalies[limits.anomalies_shown :])
        self.signals: list[str] = []

    def span(self, record: int) -> tuple[int, int]:
        first = self.table.ends[record - 1] if record else self.table.first
        return self.starts[first], self.starts[self.table.ends[record]]

    def line_of(self, record: int) -> int:
        return (self.table.ends[record - 1] if record else self.table.first) + 1

    def result(self) -> OptimizeResult:
        table, limits = self.table, self.limits
        first_rows: list[int] = []
        for record in range(table.header + 1, len(table.ends)):
            if len(first_rows) == limits.first_rows:
                break
            if record not in table.blank:
                first_rows.append(record)
        kept = set(first_rows) | set(self.shown)
        body: list[Part] = [visible(self.data[self.span(0)[0] : self.span(table.header)[1]])]
        folded: list[tuple[int, int]] = []  # record ranges [first, stop)
        run_start = None
        for record in range(table.header + 1, len(table.ends) + 1):
            if record < len(table.ends) and record not in kept:
                run_start = record if run_start is None else run_start
                continue
            if run_start is not None:
                folded.append((run_start, record))
                body += self.run_parts(run_start, record)
                run_start = None
            if record < len(table.ends):
                body += self.record_parts(record, signal=record in self.shown)
        parts = self.census(folded) + body + self.hidden_parts()
        return OptimizeResult(tuple(join_literals(parts)), tuple(dict.fromkeys(self.signals)))

    def run_parts(self, first: int, stop: int) -> list[Part]:
        rows = sum(1 for record in range(first, stop) if record not in self.table.blank)
        lines = (
            f"line {self.line_of(first):,}"
            if stop - first == 1
            else (f"lines {self.line_of(first):,}–{self.line_of(stop) - 1:,}")
        )
        label = f"… {rows:,} row{'s' if rows != 1 else ''} ({lines})"
        if not self.fine:
            return [label + "\n"]
        start, end = self.span(first)[0], self.span(stop - 1)[1]
        return [label + " ", Omission(self.data[start:end], f"table rows, {lines}", ((start, end),)), "\n"]

    def record_parts(self, record: int, signal: bool) -> list[Part]:
        start, end = self.span(record)
        raw = self.data[start:end]
        text = visible(raw)
        if len(text) <= self.limits.row_chars:
            if signal:
                self.signals.append(text.rstrip("\r\n"))
            return [text]
        shown = text[: self.limits.row_chars]
        if signal:
            self.signals.append(shown)
        reason = f"table record at line {self.line_of(record):,}, whole"
        return [shown, f" … [record: {len(raw):,} bytes ", Omission(raw, reason, ((start, end),)), "]\n"]

    def census(self, folded: list[tuple[int, int]]) -> list[Part]:
        table, limits = self.table, self.limits
        head = f"[table: {table.rows:,} rows × {len(table.columns)} columns, {_SEPARATED[table.delimiter]}"
        if self.shown:
            count = len(self.shown) + len(self.hidden)
            head += f"; {count:,} anomalous row{'s' if count != 1 else ''} ({self.causes()})"
        if not _ragged_are_anomalies(table, limits):
            head += f"; {len(table.ragged):,} rows with another field count"
        parts: list[Part]
        if self.fine or not folded:
            parts = [head + "]\n"]
        else:
            spans = [(self.span(first)[0], self.span(stop - 1)[1]) for first, stop in folded]
            data = b"".join(self.data[start:end] for start, end in spans)
            parts = [
                head + "; folded rows, in order: ",
                Omission(data, "folded table rows, in order", tuple(spans)),
                "]\n",
            ]
        for number, column in enumerate(table.columns, start=1):
            parts.append(
                f"[{_short(column.name, limits.value_chars) or f'#{number}'}: {_described(column, table.rows, limits)}]\n"
            )
        return parts

    def causes(self) -> str:
        """How many anomalous rows each rule found (a row may meet several)."""
        anomalies = set(self.shown) | set(self.hidden)
        rare = {record for column, values in self.rare for value in values for record in column.rows[value]}
        found = [
            ("with a failure", sum(1 for record in self.table.failures if record in anomalies)),
            ("with a rare value", len(rare & anomalies)),
            ("with another field count", sum(1 for record in self.table.ragged if record in anomalies)),
        ]
        return ", ".join(f"{count:,} {what}" for what, count in found if count)

    def hidden_parts(self) -> list[Part]:
        if not self.hidden:
            return []
        spans = [self.span(record) for record in self.hidden]
        data = b"".join(self.data[start:end] for start, end in spans)
        count = len(self.hidden)
        reason = f"{count:,} further anomalous table rows, in order"
        return [
            f"[… {count:,} more anomalous rows, folded above; all of them: ",
            Omission(data, reason, tuple(spans)),
            "]\n",
        ]


def _rare_values(table: _Table, limits: TableLimits) -> list[tuple[_Column, list[str]]]:
    """Per categorical text column, its rare values, when they are few enough to stand out."""
    rare: list[tuple[_Column, list[str]]] = []
    threshold = max(1, int(limits.rare_share * table.rows))
    for column in table.columns:
        counts = column.counts
        if counts is None or column.numeric or len(counts) > limits.categorical_distinct or len(counts) < 2:
            continue
        values = [value for value, count in counts.items() if count <= threshold]
        if values and sum(counts[value] for value in values) <= limits.rare_max_share * table.rows:
            rare.append((column, values))
    return rare


def _anomalies(table: _Table, rare: list[tuple[_Column, list[str]]], limits: TableLimits) -> list[int]:
    """Anomalous record indices, failures first, then rare values, then ragged records."""
    ordered = list(table.failures)
    for column, values in rare:
        for value in values:
            ordered += column.rows[value]
    if _ragged_are_anomalies(table, limits):
        ordered += table.ragged
    return list(dict.fromkeys(ordered))


def _ragged_are_anomalies(table: _Table, limits: TableLimits) -> bool:
    return len(table.ragged) <= max(1, limits.rare_max_share * table.rows)


def _described(column: _Column, rows: int, limits: TableLimits) -> str:
    empty = f", (empty) ×{column.empty:,}" if column.empty else ""
    counts = column.counts
    if counts is not None and len(counts) <= limits.categorical_distinct:
        ranked = sorted(counts.items(), key=lambda item: -item[1])
        listed = [f"{_short(value, limits.value_chars) or '(empty)'} ×{count:,}" for value, count in ranked]
        more = len(listed) - limits.values_listed
        return ", ".join(listed[: limits.values_listed]) + (f", … +{more} values" if more > 0 else "")
    if column.numeric and column.low is not None and column.high is not None:
        return f"numbers {column.low[1]} to {column.high[1]}{empty}"
    if counts is None:
        return f"over {limits.tracked_distinct} distinct values{empty}"
    return f"{len(counts)} distinct values{empty}"


def _short(value: str, chars: int) -> str:
    value = value.replace("\n", "⏎").replace("\r", "")
    return value if len(value) <= chars else value[: chars - 1] + "…"
