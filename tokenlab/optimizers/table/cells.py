"""A cell of an aligned table that holds a JSON document of its own.

A value holding newlines is printed one line per line of the value, each padded to the
column's width and ended by the `+` that says the value goes on (`aligned.py`). When such
a value is a whole JSON document (an `EXPLAIN (FORMAT JSON)` plan, a `jsonb_pretty`
column), the padding and the `+` column are the table's, not the document's: read as
lines, the document is only its brackets and its keys repeated. So the cell's text is
taken out of its column (the leading space, the padding and the `+` cut from each line)
and laid out as the JSON family lays out any document: its decision fields visible, its
bulk behind refs. Each ref holds the exact input bytes of what it folds, padding and `+`
markers included; the visible document reads, and parses, as JSON.

One pass over the record's lines builds the cell's text and the map from its offsets back
to the input's; the layout is the JSON family's, linear in the cell's size.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from tokenlab.optimizers import Omission, OptimizerConfig, Part, visible
from tokenlab.optimizers.json_doc.layout import laid_out
from tokenlab.optimizers.json_doc.optimizer import looks_like_json
from tokenlab.optimizers.json_doc.segments import Keep, Omit
from tokenlab.optimizers.table.aligned import Aligned


@dataclass(frozen=True)
class _Cell:
    """A one-column record's value as text, with, for each of its lines, where it starts in
    the text and where its value starts in the input (a byte offset)."""

    text: str
    text_starts: tuple[int, ...]
    input_starts: tuple[int, ...]

    def input_offset(self, at: int) -> int:
        """The input's byte offset of the cell text's character `at`."""
        line = bisect_right(self.text_starts, at) - 1
        within = self.text[self.text_starts[line] : at]
        return self.input_starts[line] + len(within.encode("utf-8"))


def cell_text(texts: Sequence[str], starts: Sequence[int], first: int, stop: int) -> _Cell | None:
    """The value of the one-column record on lines [first, stop): each line without the
    space the cell starts with and without the padding and `+` that end it; None unless
    the record spans several lines, each but the last ended by `+`."""
    if stop - first < 2:
        return None
    values: list[str] = []
    text_starts: list[int] = []
    input_starts: list[int] = []
    length = 0
    for index in range(first, stop):
        line = texts[index]
        if index + 1 < stop:
            if not line.endswith("+"):
                return None
            line = line[:-1]
        value = line[1:].rstrip(" ") if line.startswith(" ") else line.rstrip(" ")
        text_starts.append(length)
        input_starts.append(starts[index] + (1 if line.startswith(" ") else 0))
        values.append(value)
        length += len(value) + 1
    return _Cell("\n".join(values), tuple(text_starts), tuple(input_starts))


def json_cell_parts(
    data: bytes, cell: _Cell, config: OptimizerConfig
) -> tuple[list[Part], tuple[str, ...]] | None:
    """The cell laid out as a JSON document, its refs holding input bytes; None when the
    cell is not one JSON document."""
    text = cell.text.strip()
    if not text[:1] in ("{", "[") or not looks_like_json(text.encode("utf-8")):
        return None
    offset = cell.text.index(text[0])
    laid = laid_out(text, config)
    if laid is None:
        return None
    segments, signals = laid
    parts: list[Part] = []
    for segment in segments:
        if isinstance(segment, Keep):
            parts.append(text[segment.start : segment.end])
        elif isinstance(segment, Omit):
            start = cell.input_offset(offset + segment.start)
            end = cell.input_offset(offset + segment.end)
            parts.append(Omission(data[start:end], segment.reason, ((start, end),)))
        else:
            parts.append(segment.text)
    parts.append("\n")
    return parts, signals


def document_cells(
    data: bytes, texts: list[str], starts: Sequence[int], found: Aligned, config: OptimizerConfig
) -> tuple[list[Part], tuple[str, ...]] | None:
    """A one-column table whose multi-line values are JSON documents: its header and rule as
    printed, each such value laid out as a document, other records as printed;
    None when no value is a document."""
    parts: list[Part] = [visible(data[starts[found.header] : starts[found.header + 2]])]
    signals: list[str] = []
    documents = 0
    for first, stop in found.records:
        cell = cell_text(texts, starts, first, stop)
        laid = None if cell is None else json_cell_parts(data, cell, config)
        if laid is None:
            parts.append(visible(data[starts[first] : starts[stop]]))
            continue
        documents += 1
        parts += laid[0]
        signals += laid[1]
    return (parts, tuple(signals)) if documents else None
