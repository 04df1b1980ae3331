"""Texts made of the raw input's bytes: where their long runs lie in the input (`_find_runs`),
and the stretches of those runs that begin and end at safe cuts, so that the index counts them.

Names with a leading underscore are the `counting` package's own: `counter.py` uses them.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice, repeat
from operator import add, eq, lt, sub
from typing import overload

from tokenlab.counting import tokens
from tokenlab.counting.index import IndexLimits, _last_safe_cut
from tokenlab.mapped import LetGoInWindows, find, starts_with

Run = tuple[int, int, int]  # (start in text, start in raw, length): equal bytes


class Runs:
    """Runs (`Run`s) as three columns of ints: where each starts in the text, where in the
    raw input, and its length.

    A large diff's visible text holds a run between every two folds, hundreds of thousands
    of them: as a tuple of three ints each, about 170 bytes a run, here 24.
    """

    __slots__ = ("at", "length", "raw")

    def __init__(self, at: Iterable[int] = (), raw: Iterable[int] = (), length: Iterable[int] = ()) -> None:
        self.at, self.raw, self.length = array("q", at), array("q", raw), array("q", length)

    @classmethod
    def of(cls, runs: Iterable[Run]) -> Runs:
        """The runs given as `Run` tuples."""
        rows = list(runs)
        return cls((row[0] for row in rows), (row[1] for row in rows), (row[2] for row in rows))

    def extend(self, other: Runs, offset: int = 0) -> None:
        """Add `other`'s runs, their starts in the text moved on by `offset`."""
        self.at.extend(map(add, other.at, repeat(offset)) if offset else other.at)
        self.raw.extend(other.raw)
        self.length.extend(other.length)

    def __len__(self) -> int:
        return len(self.at)

    def __iter__(self) -> Iterator[Run]:
        return zip(self.at, self.raw, self.length)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Runs):
            return NotImplemented
        return (self.at, self.raw, self.length) == (other.at, other.raw, other.length)

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list

    def __repr__(self) -> str:
        return f"Runs.of({list(self)!r})"


@dataclass(frozen=True)
class MappedText:
    """A text with the runs of raw input bytes it is known to hold, in text order."""

    data: bytes
    runs: Runs


def pieces_at_safe_cuts(blocks: Iterable[bytes], runs: Runs) -> Iterator[bytes | MappedText]:
    """A long text, given in blocks, as pieces cut at its safe cuts, each with the runs
    (`runs`, by offset in the whole text) that fall in it: the pieces' counts add up to the
    text's, and only one piece is held at a time. A cut found in a block is a cut of the
    whole text (its look-ahead saw enough), so each piece ends at the last one a block has."""
    carry, start = b"", 0  # bytes not yet given; where they start in the text
    for block in blocks:
        carry += block
        cut = _last_safe_cut(carry, 1, len(carry) - 1) if len(carry) > 1 else None
        if cut is None:
            continue
        yield _piece(carry[:cut], runs, start)
        carry, start = carry[cut:], start + cut
    if carry:
        yield _piece(carry, runs, start)


def _piece(data: bytes, runs: Runs, start: int) -> bytes | MappedText:
    """`data`, the text from `start`, with the runs that fall in it (cut at its ends)."""
    end = start + len(data)
    low = max(0, bisect_right(runs.at, start) - 1)
    high = bisect_left(runs.at, end)
    if low >= high:
        return data
    at, raw, length = runs.at[low:high], runs.raw[low:high], runs.length[low:high]
    if at[0] < start:  # a run that begins in the piece before
        inside = max(0, at[0] + length[0] - start)
        raw[0] += length[0] - inside
        at[0], length[0] = start, inside
    length[-1] = min(length[-1], end - at[-1])
    return MappedText(data, Runs(map(sub, at, repeat(start)), raw, length))


def _careful_spans(data: bytes, raw: bytes, runs: list[Run]) -> list[tuple[int, int, int]]:
    """Runs whose ends are not safe cuts, counted from the safe cuts just inside them.

    A diff's blank context line (" \\n") next to a fold makes such a run; the index has
    those inner cuts too (`start_raw`). A run that does not match the input is skipped.
    """
    mapped = []
    safe_after, size = tokens.SAFE_CUT_RE.match, len(data)
    for start, raw_start, length in runs:
        end, raw_end = start + length, raw_start + length
        if not starts_with(raw, data[start:end], raw_start):
            continue
        first: int | None = start
        if (start and not safe_after(data, start - 1)) or (raw_start and not safe_after(raw, raw_start - 1)):
            found = tokens.SAFE_CUT_RE.search(data, start, end)
            first = found.end() if found else None
        last: int | None = end
        if (end < size and not safe_after(data, end - 1)) or (
            raw_end < len(raw) and not safe_after(raw, raw_end - 1)
        ):
            last = _last_safe_cut(data, start, end - 1)
        if first is not None and last is not None and first < last:
            mapped.append((first, last, raw_start + first - start))
    return mapped


def _common_prefix(a: bytes, i: int, b: bytes, j: int) -> int:
    """Length of the longest common prefix of a[i:] and b[j:], by block compares."""
    limit = min(len(a) - i, len(b) - j)
    done, step = 0, 4096
    while done < limit:
        size = min(step, limit - done)
        if a[i + done : i + done + size] == b[j + done : j + done + size]:
            done += size
            step = min(step * 2, 1 << 20)
            continue
        low, high = 0, size  # a prefix of `low` bytes matches, of `high` does not
        while high - low > 1:
            middle = (low + high) // 2
            if a[i + done : i + done + middle] == b[j + done : j + done + middle]:
                low = middle
            else:
                high = middle
        return done + low
    return done


def _find_runs(text: bytes, raw: bytes, limits: IndexLimits, hint: int = 0) -> list[Run] | None:
    """Runs of `text` found in `raw`, in text order; None if the text is too fragmented.

    Texts built from the input usually follow it in order, so each search starts where
    the previous run ended (`hint`) and goes back to the start only when that fails.
    """
    runs: list[Run] = []
    max_runs = 8 + limits.runs_per_mb * len(text) // (1 << 20)
    search_budget = 2 * len(raw) + len(text)  # bytes scanned by find(), bounded
    at = 0
    while at < len(text):
        probe = text[at : at + limits.probe_bytes]
        # `mapped.find`: a probe that is not in the input (a group line) is searched for
        # through all of it, and a mapping's pages must be given back as the search passes
        # them (all of a 1 GB log's were resident at once when they were not).
        found = find(raw, probe, hint)
        search_budget -= (found - hint) if found >= 0 else len(raw) - hint
        if found < 0 and hint:
            found = find(raw, probe)  # out of order: search from the start
            search_budget -= found if found >= 0 else len(raw)
        if search_budget < 0:
            return None
        if found < 0:  # not raw bytes (a marker, a summary line): skip a line
            newline = text.find(b"\n", at)
            at = len(text) if newline < 0 else newline + 1
            continue
        length = _common_prefix(raw, found, text, at)
        runs.append((at, found, length))
        if len(runs) > max_runs:
            return None
        at, hint = at + length, found + length
    return runs


def _aligned_segments(text: bytes, runs: list[Run], limits: IndexLimits) -> list[tuple[int, int, int]]:
    """(start, end, raw start) of long stretches of `text`, each inside one run and
    starting and ending at safe cuts of `text`, in order."""
    segments = []
    for start, raw_start, length in runs:
        if length < limits.min_run_bytes:
            continue
        end = start + length
        if tokens.is_safe_cut(text, start):
            first: int | None = start
        else:
            found = tokens.SAFE_CUT_RE.search(text, start, end)
            first = found.end() if found else None
        last = _last_safe_cut(text, start, end)
        if first is None or last is None or last - first < limits.min_run_bytes // 2:
            continue
        segments.append((first, last, raw_start + first - start))
    return segments


Span = tuple[int, int]  # [start, end) of the raw input


class InputSlices:
    """Ranges of the raw input that, joined, make a text: held as offsets, never joined.

    An omission that is most of a large input (a log's folded lines) is stored and counted
    from these ranges, so the analysis does not hold a second copy of the input. `bytes()`
    joins them, for callers that need the text itself. The offsets are two columns of
    machine ints, 16 bytes a range: a 1 GB diff's folds are two million ranges, which as
    tuples took 80 bytes each.
    """

    __slots__ = ("ends", "raw", "starts")

    def __init__(self, raw: bytes, spans: Iterable[Span]) -> None:
        self.raw = raw
        self.starts, self.ends = _merged(array("q"), array("q"), spans)

    @classmethod
    def of_columns(cls, raw: bytes, starts: array[int], ends: array[int]) -> InputSlices:
        """The ranges [starts[i], ends[i]), in order, taken as they are when none is empty
        and none ends where the next starts."""
        slices = cls.__new__(cls)
        slices.raw = raw
        if all(map(lt, starts, ends)) and not any(map(eq, ends, islice(starts, 1, None))):
            slices.starts, slices.ends = starts, ends
        else:
            slices.starts, slices.ends = _merged(array("q"), array("q"), zip(starts, ends))
        return slices

    @property
    def spans(self) -> SpanColumns:
        """The ranges, as (start, end) pairs."""
        return SpanColumns(self.starts, self.ends)

    def __len__(self) -> int:
        return sum(self.ends) - sum(self.starts)

    def __bytes__(self) -> bytes:
        return b"".join(self.blocks())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, InputSlices):
            other = bytes(other)
        return isinstance(other, bytes) and bytes(self) == other

    def __hash__(self) -> int:
        return hash(bytes(self))

    def blocks(self, size: int = 1 << 20) -> Iterator[memoryview]:
        """The text in input order, in pieces of at most `size` bytes, without copying; the
        pages of a mapped input are given back once each piece is read."""
        view = memoryview(self.raw)
        read = LetGoInWindows(self.raw)
        try:
            for start, end in zip(self.starts, self.ends):
                for at in range(start, end, size):
                    yield view[at : min(end, at + size)]
                    read.add(at, min(end, at + size))
        finally:
            read.close()


class SpanColumns(Sequence[Span]):
    """(start, end) pairs read from two columns of offsets, made one at a time."""

    __slots__ = ("ends", "starts")

    def __init__(self, starts: array[int], ends: array[int]) -> None:
        self.starts, self.ends = starts, ends

    def __len__(self) -> int:
        return len(self.starts)

    @overload
    def __getitem__(self, at: int) -> Span: ...

    @overload
    def __getitem__(self, at: slice) -> SpanColumns: ...

    def __getitem__(self, at: int | slice) -> Span | SpanColumns:
        if isinstance(at, slice):
            return SpanColumns(self.starts[at], self.ends[at])
        return self.starts[at], self.ends[at]

    def __iter__(self) -> Iterator[Span]:
        return zip(self.starts, self.ends)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(self) == len(other) and all(map(eq, self, other))

    __hash__ = None  # type: ignore[assignment]  # as a list

    def __repr__(self) -> str:
        return f"SpanColumns({list(self)!r})"


def _merged(starts: array[int], ends: array[int], spans: Iterable[Span]) -> tuple[array[int], array[int]]:
    """`starts` and `ends` extended with the non-empty spans, each adjacent pair joined into one."""
    for start, end in spans:
        if end <= start:
            continue
        if ends and ends[-1] == start:
            ends[-1] = end
        else:
            starts.append(start)
            ends.append(end)
    return starts, ends


def _slice_interiors(slices: InputSlices) -> tuple[array[int], array[int], list[bytes]]:
    """The joined text as interiors of its ranges (counted from the raw count's index) and
    the bytes between them (tokenized), so that counts add up.

    An interior starts at its range's start where the joined text can be cut there (the
    text's start, or a join `_joins_at_safe_cut` accepts), else at the range's first safe
    cut; it ends at the range's end likewise, else at its last safe cut. Those inner cuts
    are checked inside the range (look-behind and look-ahead included), so every interior's
    ends are safe cuts of the joined text: its count is the interiors' counts plus the
    counts of the joined bytes between them. A range that begins and ends at such joins
    is counted whole from the index (a diff's folded lines, whose ends are cuts of the raw
    count), with nothing of it tokenized again. Where every range is its own interior (a
    diff's context folds, two million ranges at 1 GB), the interiors are the slices' own
    columns, not a copy of them.
    """
    raw, spans = slices.raw, slices.spans
    interiors = _Interiors(slices)
    between: list[bytes] = []
    pending: list[bytes] = []
    cut_at_end = True
    read = LetGoInWindows(raw)
    for at, (start, end) in enumerate(spans):
        # Whether the text can be cut where this range starts (the text's start, or the
        # join checked with the range before) and where it ends.
        cut_at_start = cut_at_end
        cut_at_end = at + 1 == len(spans) or _joins_at_safe_cut(raw, (start, end), spans[at + 1])
        first: int | None = start
        if not cut_at_start:
            found = tokens.SAFE_CUT_RE.search(raw, start + 1, end)
            first = found.start() + 1 if found else None
        last: int | None = end
        if first is not None and not cut_at_end:
            last = _last_safe_cut_within(raw, first, end)
        if first is None or last is None or last <= first:
            interiors.skip(at)
            pending.append(raw[start:end])
            read.add(start, end)
            continue
        pending.append(raw[start:first])
        if joined := b"".join(pending):
            between.append(joined)
        interiors.add(at, first, last)
        pending = [raw[last:end]]
        # Only each range's edges were read (the joins' bytes included): a large log's
        # coarse omission has a range between every two lines shown, and their pages
        # would pile up between the pager's rounds (all of a 1 GB log's, when load kept
        # the pager from running).
        read.add(start, max(first, min(end, start + _JOIN_LOOKAHEAD_BYTES)))
        read.add(max(start, min(last, end - 2)), end)
    read.close()
    if joined := b"".join(pending):
        between.append(joined)
    return interiors.starts, interiors.ends, between


class _Interiors:
    """The interiors `_slice_interiors` finds: the slices' own columns while each range so
    far is its own interior, copied from the first range that is not."""

    __slots__ = ("ends", "shared", "starts")

    def __init__(self, slices: InputSlices) -> None:
        self.shared = True
        self.starts, self.ends = slices.starts, slices.ends

    def add(self, at: int, first: int, last: int) -> None:
        """Range `at`'s interior is [first, last)."""
        if self.shared and first == self.starts[at] and last == self.ends[at]:
            return
        self.skip(at)
        self.starts.append(first)
        self.ends.append(last)

    def skip(self, at: int) -> None:
        """Range `at` has no interior (or one that is not the range): stop sharing the columns."""
        if self.shared:
            self.shared = False
            self.starts, self.ends = self.starts[:at], self.ends[:at]


# Bytes of the next range a join's look-ahead may read (SAFE_CUT_RE reads a few; a longer
# run of blanks before the first printable byte makes the join count as unsafe).
_JOIN_LOOKAHEAD_BYTES = 64


def _joins_at_safe_cut(raw: bytes, before: Span, after: Span) -> bool:
    """Whether the text that joins range `before` to range `after` can be cut at the join.

    The cut's look-behind reads the last two bytes of `before` and its look-ahead the first
    bytes of `after`: both are matched in a copy of just those bytes, which ends before
    whatever follows `after`, so a look-ahead that would need more is refused (the range is
    then counted from its inner safe cuts, as before), never wrongly accepted.
    """
    (low, end), (start, high) = before, after
    if end - low < 2:  # the look-behind would reach into the range before `before`
        return False
    around = raw[end - 2 : end] + raw[start : min(high, start + _JOIN_LOOKAHEAD_BYTES)]
    return tokens.SAFE_CUT_RE.match(around, 1) is not None


def _last_safe_cut_within(raw: bytes, low: int, end: int) -> int | None:
    """The last safe cut of `raw` in [low, end) whose look-ahead does not pass `end`."""
    at = raw.rfind(b"\n", low - 1, end)
    for _ in range(64):  # a few lines back at most; then the range has no interior
        if at < max(low - 1, 0):
            return None
        if tokens.SAFE_CUT_RE.match(raw, at, end) is not None:
            return at + 1
        at = raw.rfind(b"\n", low - 1, at)
    return None
