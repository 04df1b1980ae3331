"""The largest size a fold hides, said on the fold's line.

Rows of a listing often carry a size (a file's bytes, a mapping's length, a package file's
`94.6kB`), and "which is the largest?" is what its reader asks. A fold that says only how
many rows it hides cannot answer that: the reader sees the large rows kept around it but
cannot tell whether a larger one is folded. So a fold of sized rows says the largest
size it hides (`largest 3110760`), one value per fold; with that row's name when it is
larger than every row shown (the answer is then behind the fold).

Which column is a size, told generally: its header names one (`SIZE`, `SIZE/OFF`,
`Length`, `bytes`, `RSS`), or its values carry a size unit (`94.6kB`, `4.0K`, `1.2M`). A
header that names anything else (`PID`, `NODE`, `INODE`, `LINE`) rules a column out, and
plain numbers with no header are not taken for sizes: ids, inode numbers, PIDs, line
numbers and percentages are numbers whose largest nobody asks for, and they can be as
skewed as sizes (an outlined listing's long runs say the range of such a column instead,
`text/listing_counts.size_extremes`). The rows must end in a name, which says which row it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tokenlab.patterns import compile_on_use

# A size as a column holds it: `224241`, `94.6kB`, `4.0K`, `1.2M`, `12GiB`, `512B`.
_SIZE_RE = compile_on_use(r"(\d+(?:\.\d+)?)([KMGTPE]i?B?|[kmgtp]B|B)?")
_UNIT_POWERS = {"": 0, "B": 0, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}
# Header words naming a size, alone or as a part (`SIZE/OFF`, `1K-blocks`, `Size(KB)`).
_SIZE_WORDS = frozenset({"size", "length", "bytes", "rss", "vsz", "blocks", "used", "avail", "available"})
_WORD_PARTS_RE = compile_on_use(r"[A-Za-z]+")

_PRESENT_SHARE = 0.9  # a size column holds a size in this share of the rows at least
_UNIT_SHARE = 0.5  # ...and, unnamed, a unit in this share of them
_NAME_CHARS = 60  # a longer name is shown by its end: `…/numpy.libs/libscipy_openblas.so`


@dataclass(frozen=True)
class Sized:
    """A row's size as written (`94.6kB`), on one scale (bytes), and the row's name."""

    text: str
    size: float
    name: str


def size_of(word: str) -> float | None:
    """`word` as a size on one scale (`4.0K` is 4096), or None if it is not one."""
    match = _SIZE_RE.fullmatch(word)
    if match is None:
        return None
    unit = (match[2] or "").upper().removesuffix("B").removesuffix("I")
    return float(match[1]) * 1024.0 ** _UNIT_POWERS[unit]


def names_size(header: str) -> bool:
    """A header word naming a size: `SIZE/OFF`, `Length`, `1K-blocks`; not `PID`, `NODE`."""
    return any(part.lower() in _SIZE_WORDS for part in _WORD_PARTS_RE.findall(header))


def size_column(rows: Sequence[Sequence[str]], header: Sequence[str] | None = None) -> int | None:
    """The first column of `rows` (each a list of cells, the last naming the row) holding
    sizes, by `header` when given (a column it names otherwise is no size), else by units."""
    width = min((len(row) for row in rows), default=0)
    if not _named(rows, width):
        return None
    for column in range(width - 1):
        if header is not None and (column >= len(header) or not names_size(header[column])):
            continue
        cells = [row[column] for row in rows]
        if sum(1 for cell in cells if size_of(cell) is not None) < _PRESENT_SHARE * len(rows):
            continue
        if header is not None or _with_units(cells):
            return column
    return None


def _named(rows: Sequence[Sequence[str]], width: int) -> bool:
    """The rows end in a name (a path, a command), not a number: the name says which row
    is the largest, and a listing of numbers alone (a query's result) holds no sizes."""
    if width < 2:
        return False
    numbers = sum(1 for row in rows if size_of(row[-1]) is not None)
    return numbers <= (1 - _PRESENT_SHARE) * len(rows)


def _with_units(cells: Sequence[str]) -> bool:
    """Sizes with no header to say so: most carry a unit (`94.6kB`, `4.0K`)."""
    with_unit = sum(1 for cell in cells if (match := _SIZE_RE.fullmatch(cell)) and match[2])
    return with_unit >= _UNIT_SHARE * len(cells)


def largest_row(rows: Iterable[Sequence[str]], width: int, column: int) -> Sized | None:
    """The row of `width` words with the largest size in `column`, named by its last word;
    rows are read one at a time, none held (a fold may hide millions)."""
    top: Sized | None = None
    for row in rows:
        size = size_of(row[column]) if len(row) == width else None
        if size is not None and (top is None or size > top.size):
            top = Sized(row[column], size, row[-1])
    return top


def largest_note(hidden: Sequence[Sized | None], shown: Sequence[Sized | None]) -> str:
    """`largest 3110760` for the rows a fold hides, `largest 94.6kB docs/config.html` when
    no row shown is as large (which row it is, is then the answer); "" with no size."""
    sized = [row for row in hidden if row is not None]
    if not sized:
        return ""
    top = max(sized, key=lambda row: row.size)
    shown_top = max((row.size for row in shown if row is not None), default=-1.0)
    if top.size <= shown_top:
        return f"largest {top.text}"
    return f"largest {top.text} {_short_name(top.name)}"


def _short_name(name: str) -> str:
    """A long path by its end (`…/numpy.libs/libscipy_openblas64_.so`): the file is named by it."""
    if len(name) <= _NAME_CHARS or "/" not in name:
        return name
    tail = name[-_NAME_CHARS:]
    return "…/" + tail.partition("/")[2] if "/" in tail else "…/" + name.rpartition("/")[2]
