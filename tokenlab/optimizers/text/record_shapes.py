"""Which record shape a plain-text listing has, if any (see `records.py` for the shapes
and what each keeps): a key = value dump, a sorted numeric listing, a table with a header
row, or templated records; the limits that decide it, and the columns and numbers read
to decide it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import Enum
from itertools import pairwise

from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.patterns import compile_on_use

@dataclass(frozen=True)
class RecordsConfig:
    min_lines: int = 8  # fewer lines are read as prose
    sample_bytes: int = 1 << 16  # the shape is recognised on the first lines, up to this size
    shape_share: float = 0.8  # the share of non-blank lines a shape must cover
    value_bytes: int = 60  # a key's value longer than this is cut
    row_bytes: int = 200  # a kept table row longer than this is cut (a command line's arguments)
    sorted_head: int = 3  # lines kept at the small end of a sorted listing
    sorted_extremes: int = 60  # lines kept at the large end of a sorted listing
    sorted_order_share: float = 0.97  # neighbours in order, of all pairs
    sorted_columns: int = 6  # columns tried as the sort key (`nm --size-sort`, `ls -lS`)
    table_top: int = 3  # rows kept per numeric column: those with its largest values
    names_listed: int = 60  # distinct names listed for the folded rows, then `… +N`
    template_share: float = 0.75  # lines sharing a shape with two others, for templated records
    few_lines: int = 8  # a shape with at most this many lines shows them all
    closing_lines: int = 2  # the last lines of templated records (an exit status) stay
    values_listed: int = 12  # a folded run lists this many of its values, then `… +N`
    name_share: float = 0.9  # a column this share of rows have, this share distinct, names them
    states_listed: int = 8  # a table column with at most this many values among its folded rows is counted


DEFAULT_LIMITS = RecordsConfig()


class Shape(Enum):
    KEY_VALUE = "key = value dump"
    SORTED = "sorted numeric listing"
    TABLE = "table with a header row"
    TEMPLATED = "templated records"


# `KEY=value`, `\tname = "value"`, `core.bare=false`; not `a == b`.
KEY_VALUE_RE = compile_on_use(r"^[ \t]*[A-Za-z_][\w.\-]*[ \t]*=(?!=)")
# A number with an optional size unit, then whitespace: `4.0K\t/usr`, `  12 file.c`.
_LEADING_NUMBER_RE = compile_on_use(r"^[ \t]*(\d+(?:[.,]\d+)?)([KMGTPE]i?B?|[kmgtp]B?|B)?\s")
_HEX_RE = compile_on_use(r"[0-9a-fA-F]+")
_UNIT_POWERS = {"": 0, "B": 0, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}
# A header word: `USER`, `%CPU`, `PID`, `CONTAINER ID` (each word upper case).
_HEADER_WORD_RE = compile_on_use(r"[A-Z%#][A-Z0-9%#_/\-.()\[\]]*")
_NUMBER_RE = compile_on_use(r"[+-]?\d+(?:\.\d+)?([KMGTPE]i?B?|[kmgtp]|%)?")
# Words inside paths (`/usr/share/errorprone`, `src\warnings.py`) are not failure words.
# Tried only where a word starts, so that each word is read once (tried at every byte, a
# long word without a separator was read again from each).
_PATH_WORD_RE = compile_on_use(r"(?<!\S)[^\s/\\]*+[/\\]\S*+")
_DIGIT_WORD_RE = compile_on_use(r"\b[A-Za-z_]*\d\w*(?:[.:/\-+][A-Za-z_]*\d\w*)*")
_SPACES_RE = compile_on_use(r"\s+")


def template(line: str) -> str:
    """A line's shape: words holding a digit as `#`, whitespace runs as one space."""
    return _DIGIT_WORD_RE.sub("#", _SPACES_RE.sub(" ", line.strip()))


def is_failure(line: str) -> bool:
    """A failure line by shape or by its words (`undefined reference`, `cannot`, `not
    found`); words inside paths do not count."""
    return line_shapes.is_problem(_PATH_WORD_RE.sub(" ", line))


def records_shape(text: str, limits: RecordsConfig = DEFAULT_LIMITS) -> Shape | None:
    """The record shape covering most of the document's lines, if any."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < limits.min_lines:
        return None
    need = limits.shape_share * len(lines)
    distinct = Counter(lines)  # each distinct line is read once, weighed
    if sum(count for line, count in distinct.items() if KEY_VALUE_RE.match(line)) >= need:
        return Shape.KEY_VALUE
    if sorted_values(lines, limits) is not None:
        return Shape.SORTED
    if table_columns(lines, limits) is not None:
        return Shape.TABLE
    # Not a pydoc gutter line.
    records = Counter({line: count for line, count in distinct.items() if line.strip(" |\t")})
    templates: Counter[str] = Counter()
    for record, count in records.items():  # each distinct line is read once
        templates[template(record)] += count
    shared = sum(count for count in templates.values() if count >= 3)
    if shared >= limits.template_share * records.total() and any(map(is_failure, records)):
        return Shape.TEMPLATED
    return None


@dataclass(frozen=True)
class Columns:
    header: list[str]
    starts: list[int] | None  # column starts of a space-aligned table; None when split on `|`


def table_columns(lines: list[str], limits: RecordsConfig) -> Columns | None:
    """A header row of column names, and rows with that many cells, on most lines."""
    first, rows = lines[0], lines[1:]
    if "|" in first:
        width = first.count("|")
        if sum(1 for row in rows if row.count("|") == width) < limits.shape_share * len(rows):
            return None
        return Columns(first.split("|"), None)
    words = first.split()
    if len(words) < 3 or not all(_HEADER_WORD_RE.fullmatch(word) for word in words):
        return None
    if sum(1 for row in rows if len(row.split()) >= len(words)) < limits.shape_share * len(rows):
        return None
    return Columns(words, [])



def number_of(cell: str) -> float | None:
    match = _NUMBER_RE.fullmatch(cell)
    if match is None:
        return None
    unit = (match[1] or "").rstrip("iB%").upper()
    return float(cell[: match.start(1)] if match[1] else cell) * 1024.0 ** _UNIT_POWERS.get(unit, 0)


def sorted_values(lines: list[str], limits: RecordsConfig) -> list[float] | None:
    key = sort_key(lines, limits)
    return key[1] if key is not None else None


def sort_key(lines: list[str], limits: RecordsConfig) -> tuple[int, list[float]] | None:
    """The listing's sort key (its whitespace-separated column and its values): its
    leading number, or else the first of its `sorted_columns` whitespace-separated columns
    that holds a number on every line (hex numbers of one width ≥ 8 digits count, as `nm`
    prints sizes) and only rises or falls."""
    values = _leading_values(lines)
    if values is not None and _in_order(values, limits):
        return 0, values
    first = lines[0].split()[: limits.sorted_columns] if lines else []
    candidates = [column for column, cell in enumerate(first) if number_of(cell) is not None or _is_wide_hex(cell)]
    if not candidates:  # prose and most listings stop here, before any other line is split
        return None
    for column in candidates:
        values = _column_values(lines, column)
        if values is not None and _in_order(values, limits):
            return column, values
    return None


def _leading_values(lines: list[str]) -> list[float] | None:
    values = []
    for line in lines:
        match = _LEADING_NUMBER_RE.match(line)
        if match is None:
            return None
        unit = (match[2] or "").rstrip("iB").upper()
        values.append(float(match[1].replace(",", ".")) * 1024.0 ** _UNIT_POWERS.get(unit, 0))
    return values


def _column_values(lines: list[str], column: int) -> list[float] | None:
    """The numbers of `column` on every line, or None; each line is split only when the
    lines before it all held one (most listings fail within their first lines)."""
    first = lines[0].split() if lines else []
    if len(first) <= column:
        return None
    width = len(first[column])
    hexadecimal = _is_wide_hex(first[column])
    values = []
    for line in lines:
        row = line.split()
        if len(row) <= column:
            return None
        cell = row[column]
        if hexadecimal:
            if len(cell) != width or _HEX_RE.fullmatch(cell) is None:
                return None
            values.append(float(int(cell, 16)))
            continue
        number = number_of(cell)
        if number is None:
            return None
        values.append(number)
    return values


def _is_wide_hex(cell: str) -> bool:
    return len(cell) >= 8 and _HEX_RE.fullmatch(cell) is not None


def _in_order(values: list[float], limits: RecordsConfig) -> bool:
    pairs = list(pairwise(values))
    rising = sum(1 for a, b in pairs if b >= a)
    falling = sum(1 for a, b in pairs if b <= a)
    steps = sum(1 for a, b in pairs if a != b)
    need = limits.sorted_order_share * len(pairs)
    return steps > 0 and max(rising, falling) >= need
