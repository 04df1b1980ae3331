"""The diff optimizer's cuts, and the parts built from them: the visible text between
omissions, the omissions with refs of their own, and the summary line naming the grouped ones.

A 1 GB diff has over two million cuts (a fold each side of most changes), held from the
plan until the last part is built. So they are columns of machine ints (`array`), 25
bytes a cut, with the few cuts that carry text (a whole file's or a repeated body's label)
in a dict by position; the parts are built a stretch at a time from slices of the
columns, never from a list of every cut's span. `optimizer.py` decides the cuts.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import IntEnum
from functools import lru_cache
from itertools import accumulate, compress, islice
from operator import mul, sub

from tokenlab.counting.runs import InputSlices, Runs
from tokenlab.optimizers import Excerpt, Omission, Part, visible


class CutKind(IntEnum):
    META = 0
    CONTEXT = 1
    FILE = 2
    REPEAT = 3  # a hunk body identical to one shown earlier


_OWN_REF_REASONS = {CutKind.FILE: "whole-file diff", CutKind.REPEAT: "hunk body"}


def _mask(*kinds: CutKind) -> bytes:
    """A `bytes.translate` table: 1 for each of `kinds`, 0 for every other byte."""
    return bytes(int(code in kinds) for code in range(256))


_IS_META = _mask(CutKind.META)
_IS_CONTEXT = _mask(CutKind.CONTEXT)
_OWN_REF_COARSE = _mask(CutKind.FILE, CutKind.REPEAT)
_OWN_REF_FINE = _mask(CutKind.CONTEXT, CutKind.FILE, CutKind.REPEAT)


@dataclass(slots=True)
class Cuts:
    """Line ranges that leave the visible text, in input order, as parallel columns."""

    starts: array[int] = field(default_factory=lambda: array("q"))  # byte offsets in the input
    ends: array[int] = field(default_factory=lambda: array("q"))
    lines: array[int] = field(default_factory=lambda: array("q"))  # lines in each cut
    kinds: bytearray = field(default_factory=bytearray)  # a `CutKind` each
    # By position: a whole-file or repeat cut's label, and the lines shown after a near
    # repeat's marker.
    labels: dict[int, tuple[str, bytes]] = field(default_factory=dict)

    def extend(self, other: Cuts) -> None:
        offset = len(self.starts)
        self.labels.update((at + offset, label) for at, label in other.labels.items())
        self.starts += other.starts
        self.ends += other.ends
        self.lines += other.lines
        self.kinds += other.kinds


FOLD_LINE = b"\xe2\x80\xa6 %d lines\n"  # "… N lines": what a folded context run leaves


@lru_cache(maxsize=1024)
def _fold_line(lines: int) -> bytes:
    """One object for each count's fold line: a large diff's folds are hundreds of
    thousands of a few counts."""
    return FOLD_LINE % lines


def parts(data: bytes, fine: bool, cuts: Cuts) -> Iterator[Part]:
    """The visible text's parts, in order: the summary line, then the text between the
    omissions that have refs of their own, an `Excerpt` at a time."""
    if not cuts.starts:
        whole = visible(bytes(data))  # a mapped input is decoded from a copy
        yield from (whole,) if whole else ()
        return
    yield from _summary(data, cuts, fine)
    own = cuts.kinds.translate(_OWN_REF_FINE if fine else _OWN_REF_COARSE)
    view = memoryview(data)  # input stretches are joined without a copy each first
    lead, done = b"", 0  # text after the last omission; the first cut not yet placed
    for at in compress(range(len(own)), own):
        label, omission = _own_omission(data, cuts, at)
        yield from _excerpts(view, cuts, fine, lead, done, at, label.encode())
        yield omission
        lead, done = b"\n" + cuts.labels.get(at, ("", b""))[1], at + 1
    yield from _excerpts(view, cuts, fine, lead, done, len(own), b"")


def _own_omission(data: bytes, cuts: Cuts, at: int) -> tuple[str, Omission]:
    """A cut with a ref of its own: the label shown before its marker, and its omission."""
    span = (cuts.starts[at], cuts.ends[at])
    kind = CutKind(cuts.kinds[at])
    if kind is CutKind.CONTEXT:
        reason = f"{cuts.lines[at]} unchanged context lines"
        return f"\u2026 {cuts.lines[at]} lines ", Omission(data[span[0] : span[1]], reason, (span,))
    label, after = cuts.labels[at]
    reason = f"{_OWN_REF_REASONS[kind]}, {label[1:-2]}"
    if after:
        differing = after.count(b"\n")
        reason += f" the {differing} lines shown after it"
    return label, Omission(data[span[0] : span[1]], reason, (span,))


# The text between two omissions is built in excerpts of about this many bytes of input
# each: a diff with few omissions of its own (no lockfile, no repeated body) is one such
# text, most of the input.
_EXCERPT_BYTES = 1 << 20


def _excerpts(
    view: memoryview, cuts: Cuts, fine: bool, lead: bytes, done: int, at: int, tail: bytes
) -> Iterator[Part]:
    """The text from the end of cut `done - 1` (the input's start) to the start of cut `at`
    (the input's end), the cuts between leaving their gaps, as parts of about
    `_EXCERPT_BYTES` of input each, each cut at the end of a stretch of input (a line of
    the input ends it, the gap after it begins the next)."""
    first, size = done, 0
    starts, ends = cuts.starts, cuts.ends
    for cut in range(done, at):
        size += starts[cut] - (ends[cut - 1] if cut else 0)
        if size >= _EXCERPT_BYTES:
            shown = _stretches(cuts, first, cut, len(view))
            yield from _excerpt(view, lead, *shown, _gaps(cuts, fine, first, cut), b"")
            lead, first, size = _gaps(cuts, fine, cut, cut + 1)[0], cut + 1, 0
    yield from _excerpt(view, lead, *_stretches(cuts, first, at, len(view)), _gaps(cuts, fine, first, at), tail)


def _stretches(cuts: Cuts, first: int, last: int, size: int) -> tuple[array[int], array[int]]:
    """Where the stretches of input shown before each of cuts [first, last] start and end
    (with `last` past the last cut, the last one runs to the input's end, at `size`)."""
    starts = array("q", [cuts.ends[first - 1] if first else 0])
    starts += cuts.ends[first:last]
    ends = cuts.starts[first:last]
    ends.append(cuts.starts[last] if last < len(cuts.starts) else size)
    return starts, ends


def _gaps(cuts: Cuts, fine: bool, first: int, last: int) -> list[bytes]:
    """What each of cuts [first, last) leaves between the stretches: `… N lines` for a
    context fold grouped behind the summary's ref (COARSE), else nothing."""
    if fine:
        return [b""] * (last - first)
    is_context = cuts.kinds[first:last].translate(_IS_CONTEXT)
    return list(map(mul, map(_fold_line, cuts.lines[first:last]), is_context))


def _excerpt(
    view: memoryview, lead: bytes, starts: array[int], ends: array[int], gaps: list[bytes], tail: bytes
) -> list[Part]:
    """Visible text between two omissions: `lead`, each stretch of input [starts[i], ends[i])
    followed by gaps[i] (`tail` after the last), as one Excerpt that names its runs of input.

    Kept in bytes, checked to decode once: every stretch of input ends at a line end (or
    the input's end), so decoding the whole equals decoding each stretch.
    """
    pieces: list[bytes | memoryview] = [lead] * (2 * len(starts) + 1)
    pieces[1::2] = map(view.__getitem__, map(slice, starts, ends))
    pieces[2::2] = [*gaps, tail]
    lengths = list(map(sub, ends, starts))
    at_in_text = islice(accumulate(map(len, pieces), initial=0), 1, None, 2)
    runs = Runs(compress(at_in_text, lengths), compress(starts, lengths), compress(lengths, lengths))
    joined = b"".join(pieces)
    try:
        joined.decode("utf-8")
    except UnicodeDecodeError:  # shown as U+FFFD, not as themselves: no run is claimed then
        return [text] if (text := visible(joined)) else []
    if not joined:
        return []
    return [Excerpt(joined, runs) if runs else joined.decode("utf-8")]


def _summary(data: bytes, cuts: Cuts, fine: bool) -> list[Part]:
    """The first line: where the grouped omissions went (git metadata; COARSE's context folds)."""
    parts: list[Part] = []
    is_meta = cuts.kinds.translate(_IS_META)
    if any(is_meta):
        meta = _grouped(data, cuts, is_meta, f"git metadata lines from {sum(is_meta)} places")
        parts += ["[diff: git metadata in ", meta]
    is_context = b"" if fine else cuts.kinds.translate(_IS_CONTEXT)
    if any(is_context):
        context_lines = sum(compress(cuts.lines, is_context))
        said = f"{context_lines} unchanged context lines from {sum(is_context)} runs (each shown as `… N lines`)"
        lead = "; " if parts else "[diff: "
        parts += [lead + "unchanged lines shown as `… N lines` in ", _grouped(data, cuts, is_context, said)]
    if parts:
        parts.append("]\n")
    return parts


def _grouped(data: bytes, cuts: Cuts, chosen: bytes, said: str) -> Omission:
    """The cuts `chosen` (a 0 or 1 each) behind one ref, held as ranges of the input (a large
    diff's context is much of it): stored and counted from the input, never joined."""
    starts, ends = array("q", compress(cuts.starts, chosen)), array("q", compress(cuts.ends, chosen))
    slices = InputSlices.of_columns(data, starts, ends)
    return Omission(slices, f"{said}, concatenated in original order", slices.spans)
