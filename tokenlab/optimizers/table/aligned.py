"""Aligned tables as psql prints them, found among other lines, and trees drawn in one column.

psql's aligned format is a header, a rule of dashes with `+` under each `|` of the header,
rows whose `|` stand under those `+`, and a `(N rows)` footer:

     id |  name
    ----+--------
      1 | widget
    (1 row)

A rule whose `+` match the header's `|` is a strong sign on its own; a one-column table has
a rule of dashes only, so it also needs its footer and a header padded to the rule's width.
A value holding a newline continues on the next line, marked by a `+` at the end of its
cell; those lines are one record. One input may hold several tables between other lines
(`\\d+` prints a title above each table and `Indexes:` lists below it).

`find_tables` says where the tables and their records are and `cells` splits a record's
first line into values; `table.py` renders a table from them as it renders CSV. A long
one-column table whose rows are a drawn tree (an EXPLAIN plan) is not a list of records
but an outline: `tree_parts` keeps its top rows and every branch (each plan node, with
its cost, time and row counts) and folds the detail rows under a branch (`Output:`,
`Buffers:`) into `… N lines: Output, Buffers (lines a–b)`, unless the label is no shorter.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tokenlab.optimizers import Omission, Part, visible
from tokenlab.optimizers.lines.shapes import FAILURE_RE
from tokenlab.patterns import compile_on_use

_RULE_RE = compile_on_use(r"-+(?:\+-+)*")
_FOOTER_RE = compile_on_use(r"\(\d[\d,]* rows?\)")
# Where a row of a tree drawing starts a branch: EXPLAIN's `->`, box drawing, ASCII trees.
_BRANCH_RE = compile_on_use(r"\s*(?:->|[├└]|[|`+\\][-─_])")
_DETAIL_KEY_RE = compile_on_use(r"\s*([A-Za-z][\w ]{0,40}?):(?:\s|$)")


@dataclass(frozen=True)
class Aligned:
    """One table: line indices of its header (the rule is the next line) and footer, the
    `|` positions between its columns, and the [first, stop) lines of each record."""

    header: int
    bounds: tuple[int, ...]
    width: int
    records: tuple[tuple[int, int], ...]
    footer: int | None

    @property
    def end(self) -> int:
        """The line after the table's last record."""
        return self.records[-1][1] if self.records else self.header + 2


def find_tables(lines: list[str]) -> list[Aligned]:
    """Every aligned table in `lines` (text without line ends), in order."""
    found: list[Aligned] = []
    index = 1
    while index < len(lines):
        table = _table_at(lines, index)
        if table is None:
            index += 1
            continue
        found.append(table)
        index = max(table.end, index + 1)
    return found


def looks_aligned(sample: bytes) -> bool:
    """At least half of the non-blank lines of `sample` belong to aligned tables: the rest
    (titles, `Indexes:` lists, notices) stays visible as it is."""
    if b"\n-" not in sample:
        return False  # no line under another starts a rule of dashes: no table
    lines = sample.decode("utf-8", errors="replace").split("\n")
    if len(lines) > 1:
        lines.pop()  # "" after a final newline, or a line the sample cut
    lines = [line.rstrip("\r") for line in lines]
    filled = sum(1 for line in lines if line.strip())
    covered = sum(table.end - table.header + (table.footer is not None) for table in find_tables(lines))
    return filled > 0 and covered * 2 >= filled


def _table_at(lines: list[str], rule_index: int) -> Aligned | None:
    rule, header = lines[rule_index], lines[rule_index - 1]
    if not _RULE_RE.fullmatch(rule) or not header.strip() or len(header.rstrip()) > len(rule):
        return None
    bounds = tuple(match.start() for match in re.finditer(r"\+", rule))
    if header.count("|") != len(bounds) or any(header[bound : bound + 1] != "|" for bound in bounds):
        return None
    records, stop = _records(lines, rule_index + 1, bounds, len(rule))
    footer = stop if stop < len(lines) and _FOOTER_RE.fullmatch(lines[stop].strip()) else None
    # Dashes under a line are also a heading's underline: one column needs psql's footer too,
    # or, where the lines end inside a record (a sample's cut), that record's `+` markers.
    cut_in_record = stop == len(lines) and bool(records) and records[-1][1] - records[-1][0] > 1
    if not bounds and (footer is None and not cut_in_record or len(header) != len(rule)):
        return None
    if not records and footer is None:
        return None
    return Aligned(rule_index - 1, bounds, len(rule), tuple(records), footer)


def _records(lines: list[str], start: int, bounds: tuple[int, ...], width: int) -> tuple[list[tuple[int, int]], int]:
    records: list[tuple[int, int]] = []
    index = start
    while index < len(lines) and _row_like(lines[index], bounds):
        first = index
        while _continues(lines[index], bounds, width) and index + 1 < len(lines) and _row_like(lines[index + 1], bounds):
            index += 1
        index += 1
        records.append((first, index))
    return records, index


def _row_like(line: str, bounds: tuple[int, ...]) -> bool:
    if not line.strip() or _FOOTER_RE.fullmatch(line.strip()):
        return False
    if bounds:
        return any(line[bound : bound + 1] == "|" for bound in bounds)
    return line.startswith(" ")  # psql starts every cell with a space


def _continues(line: str, bounds: tuple[int, ...], width: int) -> bool:
    """A cell ending in `+` means its value goes on in the next line."""
    return any(line[bound - 1 : bound] == "+" for bound in bounds) or (len(line) == width and line.endswith("+"))


def cells(line: str, bounds: tuple[int, ...]) -> list[str]:
    """A record's values, read from its first line: cut at the column bounds where they hold
    `|`, else (wide characters shift the columns) at every `|`."""
    if all(line[bound : bound + 1] == "|" for bound in bounds):
        edges = (-1, *bounds, len(line))
        return [line[edges[i] + 1 : edges[i + 1]].strip() for i in range(len(edges) - 1)]
    return [value.strip() for value in line.split("|")]


def is_tree(rows: list[str]) -> bool:
    """One column of rows at several depths, some starting a branch: a drawn tree."""
    depths = {len(row) - len(row.lstrip()) for row in rows}
    return len(depths) >= 2 and any(_BRANCH_RE.match(row) for row in rows)


def _kept_rows(rows: list[str]) -> list[bool]:
    """Which rows of a tree stay visible: the top-level rows, every branch (a plan node with
    its cost, time and row counts) and any failure; the detail rows under a branch fold."""
    top = min(len(row) - len(row.lstrip()) for row in rows)
    return [
        len(row) - len(row.lstrip()) == top or _BRANCH_RE.match(row) is not None or FAILURE_RE.search(row) is not None
        for row in rows
    ]


def _detail_keys(rows: list[str]) -> list[str]:
    """The distinct `Key:` names that start folded detail rows (`Output`, `Buffers`)."""
    keys = (_DETAIL_KEY_RE.match(row) for row in rows)
    return list(dict.fromkeys(key[1] for key in keys if key))


def tree_parts(data: bytes, starts: Sequence[int], texts: list[str], table: Aligned, fine: bool) -> list[Part]:
    """The table from its header to its last row, its detail rows folded under their branch;
    COARSE: one ref, in a head line, holds every folded row in order; FINE: one per run."""
    kept = _kept_rows([texts[first] for first, _ in table.records])
    body: list[Part] = [visible(data[starts[table.header] : starts[table.header + 2]])]
    folded: list[tuple[int, int]] = []
    run: list[tuple[int, int]] = []
    for record, keep in [*zip(table.records, kept), ((table.end, table.end), True)]:
        if not keep:
            run.append(record)
            continue
        if run:
            body += _run_parts(data, starts, texts, run[0][0], run[-1][1], fine, folded)
            run = []
        body.append(visible(data[starts[record[0]] : starts[record[1]]]))
    if fine or not folded:
        return body
    spans = [(starts[first], starts[stop]) for first, stop in folded]
    lines = sum(stop - first for first, stop in folded)
    head = f"[tree: {len(table.records):,} rows, {lines:,} detail lines folded under their branches; in order: "
    folded_data = b"".join(data[start:end] for start, end in spans)
    return [head, Omission(folded_data, "folded tree detail rows, in order", tuple(spans)), "]\n", *body]


def _run_parts(
    data: bytes, starts: Sequence[int], texts: list[str], first: int, stop: int, fine: bool, folded: list[tuple[int, int]]
) -> list[Part]:
    """A run of detail rows as its label, or as itself when the label would be no shorter."""
    rows = texts[first:stop]
    count = stop - first
    where = f"line {first + 1:,}" if count == 1 else f"lines {first + 1:,}–{stop:,}"
    indent = rows[0][: len(rows[0]) - len(rows[0].lstrip())]
    keys = _detail_keys(rows)
    named = f": {', '.join(keys)}" if keys else ""
    label = f"{indent}… {count:,} line{'s' if count != 1 else ''}{named} ({where})"
    start, end = starts[first], starts[stop]
    if len(label.encode()) + (_MARKER_BYTES if fine else 1) >= end - start:
        return [visible(data[start:end])]
    folded.append((first, stop))
    if not fine:
        return [label + "\n"]
    return [label + " ", Omission(data[start:end], f"tree detail rows, {where}", ((start, end),)), "\n"]


# What a ref marker costs in the visible text, about: a FINE label must beat the rows and it.
_MARKER_BYTES = 24
