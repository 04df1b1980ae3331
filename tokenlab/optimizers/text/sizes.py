"""The largest size the folds of an outlined listing hide, said once under it.

The outline folds a long listing's rows in many short runs (` … +5` after a row): a note
on each would cost more than the rows it speaks for. When most folded rows are rows of
one listing with a size column (`unzip -l`'s `Length`, see `lines/extremes`), one line at
the end says the largest size they hide, so that the largest rows shown can be read as
the largest; or names the folded row that is larger than every row shown.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator, Sequence

from tokenlab.optimizers.lines import extremes
from tokenlab.optimizers.text.render import SpanKind, TextSpan

_LISTING_SHARE = 0.5  # the rows of one width are at least this share of the folded lines read
_MIN_ROWS = 8  # fewer folded rows are read whole at a glance
_SAMPLE_ROWS = 256  # the folded lines read to tell the listing's width and size column


def largest_folded(lines: Sequence[bytes], starts: Sequence[int], spans: Sequence[TextSpan]) -> str:
    """`[largest Length of the folded rows: 56146]`, or "" when the folds hide no sized
    rows. `starts` holds each line's offset; only folds of whole lines count. The listing
    is told on a sample, then each line is read once for its size, none of them held."""
    folded = _folded_lines(starts, spans, len(lines))
    first_rows = [index for index in _indexes(folded, 1) if lines[index].strip()][:_SAMPLE_ROWS]
    if len(first_rows) < _MIN_ROWS:
        return ""
    sample = [_words(lines[index]) for index in first_rows]
    width = Counter(map(len, sample)).most_common(1)[0][0]
    rows = [row for row in sample if len(row) == width]
    if len(rows) < _LISTING_SHARE * len(sample):
        return ""
    header = _header(lines, first_rows[[len(row) for row in sample].index(width)], width)
    column = extremes.size_column(rows, header)
    if column is None:
        return ""
    hidden = extremes.largest_row((_words(lines[index]) for index in _indexes(folded, 1)), width, column)
    shown = extremes.largest_row((_words(lines[index]) for index in _indexes(folded, 0)), width, column)
    note = extremes.largest_note([hidden], [shown])
    label = header[column] if header else "size"
    return f"[largest {label} of the folded rows: {note.removeprefix('largest ')}]" if note else ""


def _words(line: bytes) -> list[str]:
    return line.decode("utf-8", "replace").split()


def _indexes(flags: bytearray, flag: int) -> Iterator[int]:
    return (index for index, value in enumerate(flags) if value == flag)


def _folded_lines(starts: Sequence[int], spans: Sequence[TextSpan], count: int) -> bytearray:
    """Per line: 1 where a fold of whole lines hides it."""
    folded = bytearray(count)
    for span in spans:
        first = bisect_left(starts, span.start)
        if span.kind is SpanKind.FOLD and first < count and starts[first] == span.start:
            end = min(bisect_left(starts, span.end), count)
            folded[first:end] = b"\x01" * (end - first)
    return folded


def _header(lines: Sequence[bytes], first_row: int, width: int) -> list[str] | None:
    """The listing's header: above its first folded row, past the rows of as many words
    and rule lines (`----  ----`), a line of as many words, each a name (`Length  Date
    Time  Name`, `%CPU`); None when something else comes first."""
    for index in range(first_row - 1, -1, -1):
        words = lines[index].decode("utf-8", "replace").split()
        if words and not any(char.isalnum() for char in "".join(words)):
            continue  # a rule under the header
        if len(words) != width:
            return None
        if all(any(char.isalpha() for char in word) and extremes.size_of(word) is None for word in words):
            return words
    return None
