"""CSV and TSV outlines: the header's columns, the row count and a few sample rows.

Records are read with the csv module, so a quoted field holding newlines is one record
spanning several lines; `reader.line_num` gives each record's line range. The first
record is taken as the header. A malformed file outlines as far as the csv module
could read it, and the note says where it stopped.
"""

from __future__ import annotations

import csv
import io
from typing import TYPE_CHECKING

from tokenlab.reads.data_outline import display_name, plural
from tokenlab.reads.symbols import Draft, Outline, freeze, line_count, shorten

if TYPE_CHECKING:
    from tokenlab.reads.outline import OutlineConfig

_ROW_PREVIEW = 100
_VALUE_PREVIEW = 40


def table_outline(text: str, language: str, config: OutlineConfig) -> Outline:
    delimiter = "\t" if language == "tsv" else ","
    reader = csv.reader(io.StringIO(text, newline="\n"), delimiter=delimiter)
    header: list[str] | None = None
    header_end = rows = ragged = 0
    first_data_line = last_line = 0
    samples: list[Draft] = []
    first_values: list[str] = []
    stopped = ""
    previous_end = 0
    try:
        for record in reader:
            start, previous_end = previous_end + 1, reader.line_num
            if not record:
                continue  # a blank line is not a record
            if header is None:
                header, header_end = record, reader.line_num
                continue
            rows += 1
            first_data_line = first_data_line or start
            last_line = reader.line_num
            ragged += len(record) != len(header)
            if rows == 1:
                first_values = record
            if rows <= config.sample_rows:
                detail = shorten(delimiter.join(record).replace("\t", " "), _ROW_PREVIEW)
                samples.append(Draft("row", str(rows), start, reader.line_num, detail))
    except csv.Error as error:
        stopped = f"the csv reader stopped at line {reader.line_num + 1}: {error}"
    drafts = _drafts(header, header_end, first_values, rows, first_data_line, last_line, samples)
    notes = [f"{plural(ragged, 'row')} with a different number of fields than the header"] if ragged else []
    notes += [stopped] if stopped else []
    return Outline(language, freeze(drafts), line_count(text), "; ".join(notes))


def _drafts(
    header: list[str] | None,
    header_end: int,
    first_values: list[str],
    rows: int,
    first_data_line: int,
    last_line: int,
    samples: list[Draft],
) -> list[Draft]:
    if header is None:
        return []
    header_start = 1 if header_end else 0
    columns = [
        Draft("column", display_name(shorten(name, _VALUE_PREVIEW)) or f"#{number}", header_start, header_end,
              _example(first_values, number - 1))
        for number, name in enumerate(header, start=1)
    ]  # fmt: skip
    header_draft = Draft("table", "header", header_start, header_end, f"{len(header):,} columns", columns)
    if not rows:
        return [header_draft]
    body = Draft("table", "rows", first_data_line, last_line, plural(rows, "row"), samples)
    return [header_draft, body]


def _example(values: list[str], index: int) -> str:
    if index >= len(values) or not values[index]:
        return ""
    return f"e.g. {shorten(values[index], _VALUE_PREVIEW)}"
