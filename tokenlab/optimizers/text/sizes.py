"""The largest size the folds of an outlined listing hide, said once under it.

The outline folds a long listing's rows in many short runs (` … +5` after a row): a note
on each would cost more than the rows it speaks for. When most folded rows are rows of
one listing with a size column (`unzip -l`'s `Length`, see `lines/extremes`), one line at
the end says the largest size they hide, so that the largest rows shown can be read as
the largest; or names the folded row that is larger than every row shown.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from tokenlab.optimizers.lines import extremes
from tokenlab.optimizers.text.render import SpanKind, TextSpan

_LISTING_SHARE = 0.5  # the rows of one width are at least this share of the folded lines
_MIN_ROWS = 8  # fewer folded rows are read whole at a glance


def largest_folded(lines: Sequence[bytes], starts: Sequence[int], spans: Sequence[TextSpan]) -> str:
    """`[largest Length of the folded rows: 56146]`, or "" when the folds hide no sized
    rows. `starts` holds each line's offset; only folds of whole lines count."""
    folded = _folded_lines(starts, spans)
    if len(folded) < _MIN_ROWS:
        return ""
    words = {index: lines[index].decode("utf-8", "replace").split() for index in folded}
    width = Counter(map(len, words.values())).most_common(1)[0][0]
    hidden = [index for index in folded if len(words[index]) == width]
    if width < 2 or len(hidden) < _LISTING_SHARE * len(folded):
        return ""
    rows = [words[index] for index in hidden]
    header = _header(lines, hidden[0], width)
    column = extremes.size_column(rows, header)
    if column is None:
        return ""
    split = (line.decode("utf-8", "replace").split() for index, line in enumerate(lines) if index not in words)
    shown = [row for row in split if len(row) == width]
    note = extremes.largest_note(
        extremes.sized_rows(rows, column, [row[-1] for row in rows]),
        extremes.sized_rows(shown, column, [row[-1] for row in shown]),
    )
    label = header[column] if header else "size"
    return f"[largest {label} of the folded rows: {note.removeprefix('largest ')}]" if note else ""


def _folded_lines(starts: Sequence[int], spans: Sequence[TextSpan]) -> list[int]:
    """The lines that folds of whole lines hide, in order."""
    line_of = {start: index for index, start in enumerate(starts)}
    folded: list[int] = []
    for span in spans:
        first = line_of.get(span.start)
        if span.kind is not SpanKind.FOLD or first is None:
            continue
        index = first
        while index + 1 < len(starts) and starts[index + 1] <= span.end and starts[index] < span.end:
            folded.append(index)
            index += 1
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
