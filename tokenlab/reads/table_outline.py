"""CSV and TSV outlines: the header's columns, the row count and a few sample rows.

Records are read with the csv module, so a quoted field holding newlines is one record
spanning several lines; `reader.line_num` gives each record's line range. The first
record is taken as the header. A malformed file outlines as far as the csv module
could read it, and the note says where it stopped.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tokenlab.reads.symbols import Draft, Outline, freeze, line_count, plural, shorten

if TYPE_CHECKING:
    from tokenlab.reads.symbols import OutlineConfig

_ROW_PREVIEW = 100
_VALUE_PREVIEW = 40


@dataclass
class _Table:
    """What one pass over the records found."""

    header: list[str] | None = None
    header_lines: tuple[int, int] = (0, 0)
    first_values: list[str] = field(default_factory=list)
    rows: int = 0
    ragged: int = 0  # rows whose field count differs from the header's
    rows_from: int = 0
    rows_to: int = 0
    samples: list[Draft] = field(default_factory=list)

    def add(self, record: list[str], start: int, end: int, delimiter: str, config: OutlineConfig) -> None:
        if self.header is None:
            self.header, self.header_lines = record, (start, end)
            return
        self.rows += 1
        self.rows_from = self.rows_from or start
        self.rows_to = end
        self.ragged += len(record) != len(self.header)
        if self.rows == 1:
            self.first_values = record
        if self.rows <= config.sample_rows:
            detail = shorten(delimiter.join(record).replace("\t", " "), _ROW_PREVIEW)
            self.samples.append(Draft("row", str(self.rows), start, end, detail))


def table_outline(text: str, language: str, config: OutlineConfig) -> Outline:
    delimiter = "\t" if language == "tsv" else ","
    reader = csv.reader(io.StringIO(text, newline="\n"), delimiter=delimiter)
    table = _Table()
    notes = []
    previous_end = 0
    try:
        for record in reader:
            start = previous_end + 1
            previous_end = reader.line_num
            if record:  # a blank line is not a record
                table.add(record, start, reader.line_num, delimiter, config)
    except csv.Error as error:
        notes.append(f"the csv reader stopped at line {previous_end + 1}: {error}")
    if table.ragged:
        notes.insert(0, f"{plural(table.ragged, 'row')} with a different number of fields than the header")
    return Outline(language, freeze(_drafts(table)), line_count(text), "; ".join(notes))


def _drafts(table: _Table) -> list[Draft]:
    if table.header is None:
        return []
    first, last = table.header_lines
    columns = [
        Draft("column", shorten(name, _VALUE_PREVIEW) or f"#{number}", first, last,
              _example(table.first_values, number - 1))
        for number, name in enumerate(table.header, start=1)
    ]  # fmt: skip
    header = Draft("table", "header", first, last, plural(len(table.header), "column"), columns)
    if not table.rows:
        return [header]
    return [
        header,
        Draft("table", "rows", table.rows_from, table.rows_to, plural(table.rows, "row"), table.samples),
    ]


def _example(values: list[str], index: int) -> str:
    if index >= len(values) or not values[index]:
        return ""
    return f"e.g. {shorten(values[index], _VALUE_PREVIEW)}"
