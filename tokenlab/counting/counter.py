"""Exact token counts at scale: the raw input's index, and text made of its pieces.

An analysis counts the raw input, the visible text and every omission. For a
well-compressed input the omissions hold almost the whole input again, so counting them
naively is a second tokenizer pass. Instead:

* The raw input is counted once, on tokenizer threads (tiktoken releases the GIL, so
  this runs beside the optimizer; see "tokenizer threads" below), and the count is kept
  as an index: the exact count of each ~4 KB chunk, cut at safe cuts
  (`tokens.SAFE_CUT_RE`), where o200k_base's pre-tokenizer always splits. One tokenizer
  call counts a whole block of chunks: they are joined with the special token
  `<|endoftext|>`, which the tokenizer never merges with its neighbours, and each
  chunk's count is the distance between two of them.
* A text whose long runs are byte-for-byte runs of the raw input (an omission holding
  folded lines in their original order, a JSON subtree) is cut at its own safe cuts
  inside those runs; each run's middle is counted from the index, and only what lies
  between runs (where they join, or bytes that are not in the input) is tokenized again.
  A text that does not decompose into long runs is tokenized whole, in chunks.
* An optimizer that knows which input ranges it shows or omits (a diff's kept and folded
  lines: runs too short for the search above) hands the counter those ranges: the raw
  count is then also cut at their ends, and a `MappedText` is counted run by run from the
  index, an `InputSlices` (a diff's folds) range by range wherever its joins are safe cuts
  of the joined text. Only the bytes between runs, and runs that do not begin and end at
  safe cuts of the text, are tokenized.

Every count is exact: counts only ever add up across safe cuts, and equal bytes counted
in isolation have equal counts. Nothing is estimated.
"""

from __future__ import annotations

import os
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain, compress, islice, pairwise, repeat
from operator import add, itemgetter, le, not_, sub

from tokenlab.counting import tokens
from tokenlab.counting.crew import _Crew
from tokenlab.counting.index import (
    DEFAULT_LIMITS,
    IndexLimits,
    RawIndex,
    _block_cuts,
    _count_times,
    _cuts,
    _index_block,
    count_each,
)
from tokenlab.counting.runs import (
    InputSlices,
    MappedText,
    Runs,
    _aligned_segments,
    _careful_spans,
    _find_runs,
    _slice_interiors,
)
from tokenlab.mapped import LetGoInWindows, let_go, starts_with

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from concurrent.futures import Future
    from typing import Self

_REPEATED_GAP_BYTES = 256


@dataclass(frozen=True)
class _Pending:
    """A text being counted: raw spans to look up in the index, and submitted pieces."""

    starts: Sequence[int]  # [starts[i], ends[i]) of the raw input, counted from the index
    ends: Sequence[int]
    jobs: list[Future[list[int]]]
    counted: int = 0  # tokens of spans already looked up in the index (`_counted_now`)


@dataclass(frozen=True)
class Started:
    """A text whose pieces' counting has started (`TokenCounter.start_pieces`)."""

    pieces: list[_Pending]


class TokenCounter:
    """Counts for one analysis; close it (or use `with`) to cancel what it left queued.

    `workers` bounds the tokenizer threads a large raw count uses (default: one per core).
    """

    def __init__(self, limits: IndexLimits = DEFAULT_LIMITS, workers: int | None = None) -> None:
        self.limits = limits
        self._workers = workers or os.cpu_count() or 2
        self._crew = _Crew()
        # Blocks not yet in the index, and their sizes in bytes.
        self._raw_blocks: deque[tuple[Future[tuple[array[int], array[int]]], int]] = deque()
        self._late_helpers = False  # whether helpers may still join the raw count
        self._raw: bytes | None = None
        self._index: RawIndex | None = None
        self._hint = 0  # where the last text's last run ended in the raw input
        self._prefetched: dict[int, tuple[bytes | InputSlices, _Pending]] = {}

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._crew.close()

    def start_raw(
        self, data: bytes, cuts: Iterable[Sequence[int]] | None = None, *, helpers_at_start: bool = True
    ) -> None:
        """Begin indexing `data` on the tokenizer threads (once per data).

        `cuts` are batches of offsets, ascending across batches, where the runs of
        `MappedText`s counted later begin and end; the index is cut there too, wherever
        that is a safe cut. Each block is submitted as soon as `cuts` has passed it, so a
        planner that yields its cuts as it goes overlaps the count (its first blocks are
        small, so that counting starts on its first cuts); this returns when `cuts` is
        exhausted. Data of `limits.parallel_bytes` or more is also counted on helper
        threads: from the start, or without `helpers_at_start` only once the caller waits
        for the count with `limits.late_helper_bytes` of it not yet begun. A late helper's
        encoding (55 MB) is then built after the caller's own work (the optimizer) is done
        and has freed its memory, and costs nothing when the count kept pace.
        """
        if self._raw is data:
            return
        if data:  # an empty input is counted without a tokenizer
            tokens.encoding()  # load the vocabulary here, not in a tokenizer thread
        self._raw = data
        self._index = RawIndex(data)
        # At least two blocks per thread when helpers may join, when there is room.
        block_bytes = max(
            self.limits.chunk_bytes * 16, min(self.limits.block_bytes, len(data) // (2 * self._workers))
        )
        first_block_bytes = block_bytes if cuts is None else min(self.limits.first_block_bytes, block_bytes)
        # An empty input's index is the one it starts with: no job, and no tokenizer thread.
        blocks = pairwise(_cuts(data, 0, len(data), first_block_bytes, growing_to=block_bytes)) if data else ()
        unsubmitted = deque(blocks)
        self._raw_blocks.clear()
        inside: list[int] = []  # cuts strictly inside the first unsubmitted block
        for batch in cuts or ():
            done = 0  # cuts of this batch already placed
            while unsubmitted:
                start, end = unsubmitted[0]
                first = bisect_right(batch, start, done)
                done = bisect_left(batch, end, first)
                inside += batch[first:done]
                if done == len(batch):  # the batch ends inside this block
                    break
                self._submit_block(data, *unsubmitted.popleft(), inside)
                inside = []
                self.take_counted()
        while unsubmitted:
            self._submit_block(data, *unsubmitted.popleft(), inside)
            inside = []
        large = len(data) >= self.limits.parallel_bytes
        if large and helpers_at_start:
            self._crew.add_helpers(self._workers - 1)
        self._late_helpers = large and not helpers_at_start

    def _submit_block(self, data: bytes, start: int, end: int, inside: list[int]) -> None:
        # As machine ints while the block waits for a thread: a diff's blocks have a cut
        # at each end of most folds, and the planner may run far ahead of the count.
        cuts = array("q", _block_cuts(data, start, end, self.limits.chunk_bytes, inside))
        let_go(data, start, end)  # every block's cuts are found first: its count reads it again
        job = self._crew.submit(_index_and_let_go, data, cuts)
        self._raw_blocks.append((job, end - start))

    def take_counted(self) -> None:
        """Add the blocks counted so far to the index, without waiting for any.

        A block's chunk ends and counts wait in its job until then, in the tokenizer
        thread's heap: left there while a large diff was planned and rendered (70 MB at
        1 GB), they were freed only as the count was read, leaving that heap resident
        beside the index they had moved into. Taken in as they come, each block's space
        serves the next.
        """
        while self._raw_blocks and self._raw_blocks[0][0].done():
            self._next_block()

    def _backlog_is_large(self) -> bool:
        """Whether `limits.late_helper_bytes` of the raw input wait in blocks that no
        tokenizer thread has started (jobs start in order: these are the last blocks)."""
        waiting = 0
        for job, size in reversed(self._raw_blocks):
            if waiting >= self.limits.late_helper_bytes or job.running() or job.done():
                break
            waiting += size
        return waiting >= self.limits.late_helper_bytes

    def raw_index(self) -> RawIndex:
        """The index of the data given to `start_raw`, once every block is counted."""
        while self._raw_blocks:
            self._next_block()
        return self._next_block()

    def _next_block(self) -> RawIndex:
        """The index with the next block in input order added (waiting for it), if any is left."""
        assert self._index is not None, "start_raw() first"
        if self._raw_blocks:
            if self._late_helpers and not self._raw_blocks[0][0].done() and self._backlog_is_large():
                self._late_helpers = False
                self._crew.add_helpers(self._workers - 1)
            self._index.extend(*self._raw_blocks.popleft()[0].result())
        return self._index

    def count_texts(self, texts: Sequence[bytes | MappedText | InputSlices | Started]) -> list[int]:
        """Exact count of each text (decoded with U+FFFD replacement), reusing the raw index.

        Texts given to `prefetch` before are not decomposed again: their counting started then.
        Small texts (markers, secrets) are counted together, one batch per block of bytes.
        A `Started` text's pieces are counted and added up.
        """
        pending: list[tuple[int, _Pending]] = []
        small: list[int] = []
        small_texts: list[bytes] = []
        for position, text in enumerate(texts):
            if isinstance(text, Started):
                pending += zip(repeat(position), text.pieces)
                continue
            owner, found = self._prefetched.get(id(text), (None, None))
            if owner is text and found is not None:
                pending.append((position, found))
            elif isinstance(text, MappedText) or len(text) >= self.limits.min_aligned_bytes:
                pending.append((position, self._start(text)))
            elif len(text):  # small ranges of the input are joined: counted with the other small texts
                small.append(position)
                small_texts.append(bytes(text))
            # else an empty text: it counts 0, with no job and no tokenizer thread
        self._prefetched.clear()
        counts = [0] * len(texts)
        batches = self._batches(small_texts, small)  # queued behind the raw count's blocks
        for (position, _), count in zip(pending, self._finish([found for _, found in pending])):
            counts[position] += count
        for batch, job in batches:
            for position, count in zip(batch, job.result()):
                counts[position] = count
        return counts

    def _batches(self, texts: list[bytes], positions: list[int]) -> list[tuple[list[int], Future[list[int]]]]:
        """Whole texts, submitted together in batches of about one block."""
        return [
            ([positions[at] for at in batch], self._crew.submit(count_each, [texts[at] for at in batch]))
            for batch in _batched(list(map(len, texts)), self.limits.block_bytes)
        ]

    def start_pieces(self, pieces: Iterable[bytes | MappedText]) -> Started:
        """Start counting a text given as pieces cut at its safe cuts (`runs.pieces_at_safe_cuts`),
        holding none of them: what each leaves to count is submitted as it comes, and its spans
        of the input are looked up as soon as the raw count has passed them. `count_texts`
        adds up their counts."""
        return Started([self._counted_now(self._start(piece)) for piece in pieces])

    def _counted_now(self, found: _Pending) -> _Pending:
        """`found` with its spans looked up in the index, waiting for the raw count to pass
        them: a long text read a piece at a time (a large diff's visible text, a span every
        few lines) then holds a total per piece, not each piece's spans until the last is read."""
        if not found.starts:
            return found
        if all(map(le, found.ends, islice(found.ends, 1, None))):
            index = self._index_through(found.ends[-1])
        else:
            index = self.raw_index()
        indexed, edges = self._looked_up(index, found.starts, found.ends)
        return _Pending((), (), found.jobs + self._tokenize(edges), found.counted + indexed)

    def _index_through(self, offset: int) -> RawIndex:
        """The index once it reaches `offset` of the input (or the whole of it)."""
        index = self._next_block() if self._index is None else self._index
        while self._raw_blocks and index.offsets[-1] < offset:
            index = self._next_block()
        return index

    def prefetch(self, texts: Sequence[bytes | InputSlices]) -> None:
        """Start counting texts now (they must stay unchanged); `count_texts` collects them."""
        for text in texts:
            if id(text) not in self._prefetched:
                self._prefetched[id(text)] = (text, self._start(text))

    def _start(self, text: bytes | MappedText | InputSlices) -> _Pending:
        """Find the text's long runs of raw bytes and submit the rest to be tokenized.

        Needs only the raw bytes, not their index: it may run while the raw count does.
        """
        if isinstance(text, MappedText):
            return self._start_mapped(text)
        if isinstance(text, InputSlices):
            if text.raw is not self._raw:  # not ranges of the input counted: tokenized whole
                return _Pending([], [], self._tokenize([memoryview(bytes(text))]))
            starts, ends, between = _slice_interiors(text)
            return _Pending(starts, ends, self._tokenize(list(map(memoryview, between))))
        raw = self._raw if self._raw is not None and len(text) >= self.limits.min_aligned_bytes else None
        view = memoryview(text)
        if raw is None:
            return _Pending([], [], self._tokenize([view]))
        if len(text) == len(raw) and text == raw:
            return _Pending([0], [len(raw)], [])
        runs = _find_runs(text, raw, self.limits, self._hint)
        if runs is None:
            return _Pending([], [], self._tokenize([view]))
        if runs:
            self._hint = runs[-1][1] + runs[-1][2]
        starts, ends, rest, done = [], [], [], 0
        for start, end, raw_start in _aligned_segments(text, runs, self.limits):
            rest.append(view[done:start])
            starts.append(raw_start)
            ends.append(raw_start + end - start)
            done = end
        rest.append(view[done:])
        return _Pending(starts, ends, self._tokenize([piece for piece in rest if len(piece)]))

    def _start_mapped(self, text: MappedText) -> _Pending:
        """Runs that begin and end at safe cuts of the text come from the index.

        Runs come by the hundred thousand (a large diff's kept and folded lines), so the
        common case is checked with C-level maps over all runs at once; only runs whose
        ends are not safe cuts of the text take the loop in `_careful_spans`. (An end that
        is not a safe cut of the input is not a cut of the index: `_finish` counts the few
        bytes from it to the next cut.)
        """
        assert self._raw is not None, "start_raw() first"
        data, raw = text.data, self._raw
        starts, raw_starts, lengths = _nonempty(text.runs)
        ends = array("q", map(add, starts, lengths))
        safe_at = partial(map, tokens.SAFE_CUT_RE.match)  # at offset - 1: is offset a safe cut?
        before = partial(map, sub)
        good = list(
            map(
                all,
                zip(
                    safe_at(repeat(data), before(starts, repeat(1))),
                    safe_at(repeat(data), before(ends, repeat(1))),
                    map(
                        partial(starts_with, raw), map(data.__getitem__, map(slice, starts, ends)), raw_starts
                    ),
                ),
            )
        )
        # Where each run counted from the index starts and ends in the text, and starts in raw.
        firsts: Sequence[int] = starts
        lasts: Sequence[int] = ends
        raw_firsts: Sequence[int] = raw_starts
        if not all(good):
            mapped = list(zip(compress(starts, good), compress(ends, good), compress(raw_starts, good)))
            careful = list(compress(zip(starts, raw_starts, lengths), map(not_, good)))
            mapped = sorted(mapped + _careful_spans(data, raw, careful))
            firsts, lasts, raw_firsts = map(partial(array, "q"), _columns(mapped))
            del mapped
        # Lazily: a list of ints from the columns would take 40 bytes a run where they take 8.
        gap_slices = map(slice, chain((0,), lasts), chain(firsts, (len(data),)))
        gaps = Counter(filter(None, map(data.__getitem__, gap_slices)))
        # Short gaps repeat (a diff's `… 3 lines`): each distinct one is counted once.
        long = [gap for gap in gaps if len(gap) > _REPEATED_GAP_BYTES]
        jobs = self._tokenize([memoryview(gap) for gap in long for _ in range(gaps.pop(gap))])
        jobs += self._count_repeated(gaps)
        raw_lasts = array("q", map(add, raw_firsts, map(sub, lasts, firsts)))
        return _Pending(raw_firsts, raw_lasts, jobs)

    def _finish(self, pending: list[_Pending]) -> list[int]:
        """The counts: spans from the index (their edges tokenized as they are found), plus the rest.

        Spans in input order (a diff's) are looked up block by block as the raw count
        finishes them, so this overlaps the count's last blocks, and their edges are
        queued in batches meanwhile, for helpers to share.
        """
        totals = [found.counted for found in pending]
        edges = [list[bytes]() for _ in pending]
        edge_bytes = [0] * len(pending)
        jobs = [list(found.jobs) for found in pending]
        done = [0] * len(pending)  # spans looked up so far
        in_order = [all(map(le, found.ends, islice(found.ends, 1, None))) for found in pending]
        has_spans = any(found.starts for found in pending)  # none without a raw count
        while has_spans:
            index = self._next_block()
            counted = index.offsets[-1] if self._raw_blocks else len(index.data) + 1
            for at, found in enumerate(pending):
                if done[at] < len(found.ends) and (in_order[at] or not self._raw_blocks):
                    stop = bisect_right(found.ends, counted, done[at])
                    indexed, more_edges = self._looked_up(
                        index, found.starts[done[at] : stop], found.ends[done[at] : stop]
                    )
                    totals[at] += indexed
                    edges[at] += more_edges
                    edge_bytes[at] += sum(map(len, more_edges))
                    done[at] = stop
                if edges[at] and (edge_bytes[at] >= self.limits.block_bytes // 4 or not self._raw_blocks):
                    jobs[at] += self._tokenize(edges[at])
                    edges[at], edge_bytes[at] = [], 0
            if not self._raw_blocks:
                break
        return [total + sum(sum(job.result()) for job in text_jobs) for total, text_jobs in zip(totals, jobs)]

    @staticmethod
    def _looked_up(index: RawIndex, starts: Sequence[int], ends: Sequence[int]) -> tuple[int, list[bytes]]:
        """Spans [starts[i], ends[i]) counted from the index, and their edges left to tokenize.

        A slice of spans at a time: a large diff's context folds are two million spans,
        whose counts as lists of ints took 80 bytes a span when looked up all at once.
        """
        total, edges = 0, list[bytes]()
        read = LetGoInWindows(index.data)
        for low in range(0, len(starts), _SPANS_LOOKED_UP):
            high = low + _SPANS_LOOKED_UP
            total += _looked_up_slice(index, starts[low:high], ends[low:high], edges, read)
        read.close()
        return total, edges

    def _count_repeated(self, repeated: Counter[bytes]) -> list[Future[list[int]]]:
        """Jobs that count each distinct piece once, in batches of about one block."""
        pieces = list(repeated)
        return [
            self._crew.submit(
                _count_times, [pieces[at] for at in batch], [repeated[pieces[at]] for at in batch]
            )
            for batch in _batched(list(map(len, pieces)), self.limits.block_bytes)
        ]

    def _tokenize(self, pieces: Sequence[bytes | memoryview]) -> list[Future[list[int]]]:
        """Submit pieces in batches of about one block, big pieces cut at safe cuts."""
        cut = [
            piece[a:b]
            for piece in pieces
            for a, b in pairwise(_cuts(piece, 0, len(piece), self.limits.block_bytes))
        ]
        return [
            self._crew.submit(count_each, [cut[at] for at in batch])
            for batch in _batched(list(map(len, cut)), self.limits.block_bytes)
        ]


# Spans looked up in the index at once (`TokenCounter._looked_up`).
_SPANS_LOOKED_UP = 1 << 15


def _looked_up_slice(
    index: RawIndex, starts: Sequence[int], ends: Sequence[int], edges: list[bytes], read: LetGoInWindows
) -> int:
    """`TokenCounter._looked_up` for a slice of spans: their count, their edges added to `edges`."""
    # Spans that start and end at cuts of the index: two lookups each, in C.
    firsts = index.before_cuts(starts)
    lasts = index.before_cuts(ends)
    total = sum(lasts) - sum(firsts)
    for at in [at for at, pair in enumerate(zip(firsts, lasts)) if -1 in pair]:
        indexed, partial = index.span(starts[at], ends[at])
        total += indexed - (lasts[at] - firsts[at])
        # Copied, so that the pages read at the span's two ends are given back now: a
        # large log's omission has a span between every two lines shown. As bytes, not a
        # view of them: a diff's edges wait for a tokenizer by the hundred thousand.
        edges += [bytes(piece) for piece in partial if len(piece)]
        read.add(starts[at], starts[at] + len(partial[0]))
        read.add(ends[at] - len(partial[-1]), ends[at])
    return total


def _nonempty(runs: Runs) -> tuple[array[int], array[int], array[int]]:
    """The columns of the runs that hold bytes."""
    if all(runs.length):
        return runs.at, runs.raw, runs.length
    kept = runs.length
    at, raw, length = (array("q", compress(column, kept)) for column in (runs.at, runs.raw, kept))
    return at, raw, length


def _columns(rows: list[tuple[int, int, int]]) -> tuple[list[int], list[int], list[int]]:
    """The three columns of `rows` (a third of the time of `zip(*rows)` on long lists)."""
    return list(map(itemgetter(0), rows)), list(map(itemgetter(1), rows)), list(map(itemgetter(2), rows))


def _batched(sizes: Sequence[int], limit: int) -> list[range]:
    """Consecutive items in batches of at most `limit` bytes (an item alone may pass it)."""
    batches: list[range] = []
    first, size = 0, 0
    for at, item in enumerate(sizes):
        if at > first and size + item > limit:
            batches.append(range(first, at))
            first, size = at, 0
        size += item
    if first < len(sizes):
        batches.append(range(first, len(sizes)))
    return batches


def _index_and_let_go(data: bytes, cuts: array[int]) -> tuple[array[int], array[int]]:
    """`_index_block`, giving back the pages of a mapped input once they are counted; its
    ends and counts as machine ints, 8 bytes each where a list's take 40, until the index
    takes them in."""
    ends, counts = _index_block(data, cuts)
    let_go(data, cuts[0], cuts[-1])
    return array("q", ends), array("q", counts)
