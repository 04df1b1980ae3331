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
  index. Only the bytes between runs, and runs that do not begin and end at safe cuts of
  the text, are tokenized.

Every count is exact: counts only ever add up across safe cuts, and equal bytes counted
in isolation have equal counts. Nothing is estimated.
"""

from __future__ import annotations

import os
import threading
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter, deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from functools import partial
from itertools import accumulate, compress, islice, pairwise, repeat
from operator import add, itemgetter, le, mul, not_, sub
from typing import Any, Self, TypeVar

from tokenlab.counting import tokens

SENTINEL = "<|endoftext|>"
_SENTINEL_ID = 199999
# The sentinel as it appears in a buffer of native uint32 token ids. Every o200k_base id
# is below 2**18, so each id's most significant byte is zero and the sentinel's other
# three bytes are not: the pattern can only occur aligned, as the sentinel itself.
_SENTINEL_TOKEN = array("I", [_SENTINEL_ID]).tobytes()


@dataclass(frozen=True)
class IndexLimits:
    """Tunables; the defaults suit inputs from kilobytes to gigabytes on a few cores."""

    chunk_bytes: int = 4096  # index granularity: a chunk ends at the first safe cut past this
    block_bytes: int = 1 << 20  # one tokenizer job; its transient memory is a few times this
    # The raw count's first block when a planner gives cuts; the next ones double up to
    # `block_bytes`, so counting starts on its first cuts, not after a whole block of them.
    first_block_bytes: int = 64 << 10
    min_aligned_bytes: int = 256 * 1024  # smaller texts are simply tokenized
    min_run_bytes: int = 16 * 1024  # shorter runs of raw bytes are not worth looking up
    probe_bytes: int = 64  # how much of a text is searched for in the raw input
    runs_per_mb: int = 24  # more runs than this means the text is too fragmented to map
    # Raw counts of inputs this large get helper threads (`_Crew`), each of which builds an
    # encoding of its own for the count (about 0.2 s and 55 MB).
    parallel_bytes: int = 32 << 20


DEFAULT_LIMITS = IndexLimits()


Run = tuple[int, int, int]  # (start in text, start in raw, length): equal bytes


@dataclass(frozen=True)
class MappedText:
    """A text with the runs of raw input bytes it is known to hold, in text order."""

    data: bytes
    runs: Sequence[Run]


class RawIndex:
    """The exact token count of `data` and of every chunk between its `offsets`.

    Built block by block in input order (`TokenCounter`), so spans in the blocks counted
    so far can be counted before the rest of the input is.
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.offsets = array("q", [0])  # 0, …: safe cuts, ascending
        self.before = array("q", [0])  # tokens in data[:offsets[i]]
        # `before` by offset: spans that start and end at cuts are counted by two lookups.
        self.before_offset = {0: 0}

    @property
    def total(self) -> int:
        return self.before[-1]

    def extend(self, ends: list[int], counts: list[int]) -> None:
        """Add the next block's chunks: where each ends and its count."""
        befores = list(accumulate(counts, initial=self.before[-1]))[1:]
        self.offsets.extend(ends)
        self.before.extend(befores)
        self.before_offset.update(zip(ends, befores))

    def span(self, start: int, end: int) -> tuple[int, list[memoryview]]:
        """Tokens of `data[start:end]` counted in isolation: (indexed part, rest to tokenize)."""
        view = memoryview(self.data)
        first = bisect_left(self.offsets, start)
        last = bisect_right(self.offsets, end) - 1
        # The last cut must be safe inside the span: its look-ahead may not pass `end`.
        while last > first and not tokens.is_safe_cut(self.data, self.offsets[last], end):
            last -= 1
        if last <= first:
            return 0, [view[start:end]]
        low, high = self.offsets[first], self.offsets[last]
        return self.before[last] - self.before[first], [view[start:low], view[high:end]]


def _encode_with_sentinels(text: str) -> memoryview:
    """Token ids of `text` as native uint32 bytes; `SENTINEL` in it is the special token."""
    encoder = _thread_encoding()
    core = getattr(encoder, "_core_bpe", None)
    to_buffer = getattr(core, "encode_to_tiktoken_buffer", None)
    if to_buffer is not None:  # skips building a list of ints; releases the GIL likewise
        return memoryview(to_buffer(text, {SENTINEL})).cast("B")
    ids = encoder.encode(text, allowed_special={SENTINEL}, disallowed_special=())
    return memoryview(array("I", ids)).cast("B")


def _count_one(text: str) -> int:
    """`tokens.count`, holding 4 bytes per token rather than a list of ints when it can."""
    encoder = _thread_encoding()
    to_buffer = getattr(getattr(encoder, "_core_bpe", None), "encode_to_tiktoken_buffer", None)
    if to_buffer is None:
        return len(encoder.encode_ordinary(text))
    return memoryview(to_buffer(text, set())).nbytes // 4


def count_each(pieces: Sequence[bytes | memoryview]) -> list[int]:
    """Exact token count of each piece decoded with U+FFFD replacement, in one call."""
    return _count_decoded([str(piece, "utf-8", "replace") for piece in pieces])


def _count_decoded(texts: list[str]) -> list[int]:
    """Exact token count of each text: one tokenizer call, counts read off the sentinels.

    Inputs cut into many short pieces (a diff's kept and folded lines) make thousands of
    pieces per block, so the work per piece stays in C: one join, one split, one map.
    """
    counts = _counts_between_sentinels(SENTINEL.join(texts), len(texts)) if len(texts) > 1 else None
    return [_count_one(text) for text in texts] if counts is None else counts


def _counts_between_sentinels(joined: str, count: int) -> list[int] | None:
    """The count of each of `count` texts joined by `SENTINEL`; None if a text holds one."""
    if joined.count(SENTINEL) != count - 1:
        return None
    ids = bytes(_encode_with_sentinels(joined))
    counts = [size >> 2 for size in map(len, ids.split(_SENTINEL_TOKEN))]
    return counts if len(counts) == count else None  # a mismatch cannot happen; never guess


def _cuts(data: bytes | memoryview, start: int, end: int, every: int, growing_to: int = 0) -> list[int]:
    """Safe cuts of data[start:end], at least `every` bytes apart, with both ends.

    With `growing_to`, the gaps double after each cut, up to that many bytes.
    """
    cuts = [start]
    while end - cuts[-1] > every:
        found = tokens.SAFE_CUT_RE.search(data, cuts[-1] + every, end)
        if found is None:
            break
        cuts.append(found.end())
        every = max(every, min(2 * every, growing_to))
    cuts.append(end)
    return cuts


def _block_cuts(data: bytes, start: int, end: int, chunk_bytes: int, extra: Sequence[int] = ()) -> list[int]:
    """Where a block of the raw input is cut into chunks: at safe cuts about `chunk_bytes`
    apart, and at each of `extra` (or the safe cuts around it, where it is not one)."""
    cuts = _cuts(data, start, end, chunk_bytes)
    if extra:  # strictly inside the block, so the look-behind byte and the end exist
        cuts = sorted(set(cuts).union(_nearest_safe_cuts(data, start, end, extra)))
    return cuts


_SENTINEL_BYTES = SENTINEL.encode()


def _index_block(data: bytes, cuts: list[int]) -> tuple[list[int], list[int]]:
    """Each chunk between `cuts`: where it ends, and its count.

    Runs on a tokenizer thread, which waits for the GIL whenever it needs it: so the cuts
    are found by the thread that submits the block, and the chunks are joined and decoded
    in a few C calls, not one Python string each. Every cut follows a newline, so no UTF-8
    sequence spans two chunks and decoding them joined decodes each as if alone.
    """
    chunks = map(data.__getitem__, map(slice, cuts, islice(cuts, 1, None)))
    joined = _SENTINEL_BYTES.join(chunks).decode("utf-8", "replace")
    counts = _counts_between_sentinels(joined, len(cuts) - 1)
    if counts is None:  # the input holds the sentinel's text
        del joined
        counts = count_each([memoryview(data)[a:b] for a, b in pairwise(cuts)])
    return cuts[1:], counts


def _careful_spans(data: bytes, raw: bytes, runs: list[Run]) -> list[tuple[int, int, int]]:
    """Runs whose ends are not safe cuts, counted from the safe cuts just inside them.

    A diff's blank context line (" \\n") next to a fold makes such a run; the index has
    those inner cuts too (`start_raw`). A run that does not match the input is skipped.
    """
    mapped = []
    safe_after, size = tokens.SAFE_CUT_RE.match, len(data)
    for start, raw_start, length in runs:
        end, raw_end = start + length, raw_start + length
        if not raw.startswith(data[start:end], raw_start):
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


def _count_times(pieces: list[bytes], times: list[int]) -> list[int]:
    """The total count of pieces that occur `times` times each, as a one-item list."""
    return [sum(map(mul, count_each(pieces), times))]


_REPEATED_GAP_BYTES = 256


def _nearest_safe_cuts(data: bytes, start: int, end: int, offsets: Sequence[int]) -> list[int]:
    """Each offset if it is a safe cut of data[start:end], else the safe cuts around it.

    A mapped run that begins or ends at a cut that is not safe (a diff's blank context line
    " \\n" next to a fold) is counted from the safe cuts just inside it.
    """
    safe = list(map(tokens.SAFE_CUT_RE.match, repeat(data), map(sub, offsets, repeat(1))))
    found = list(compress(offsets, safe))
    for at in compress(offsets, map(not_, safe)):
        after = tokens.SAFE_CUT_RE.search(data, at, end)
        before = _last_safe_cut(data, start, at)
        found += [
            cut for cut in (after.end() if after else None, before) if cut is not None and start < cut < end
        ]
    return found


# --- tokenizer threads --------------------------------------------------------------------
#
# tiktoken's pre-tokenizer regex keeps a lock-free match cache for the first thread that
# uses it and makes every other thread take a lock for each match. Threads sharing one
# encoding contend on that lock: measured here, two together tokenize slower than one
# alone, and a later thread alone runs a third slower than the first. So all counting
# runs on one long-lived tokenizer thread, the first user of the process's encoding, and
# a large raw count (`IndexLimits.parallel_bytes`) gets helpers: further threads that
# each build an encoding of their own (about 0.2 s and 55 MB), take the analysis's jobs
# beside thread 0 and free the encoding when its queue runs empty. (In a process that
# tokenized on another thread first, such as a server that answered a budgeted read,
# thread 0 takes the slower path; counts are the same.)

_thread_state = threading.local()
_lanes: list[ThreadPoolExecutor] = []
_lanes_lock = threading.Lock()
T = TypeVar("T")


def _thread_encoding() -> Any:
    """This thread's encoding: a helper's own, else the process's shared one."""
    return getattr(_thread_state, "encoding", None) or tokens.encoding()


def _lane(number: int) -> ThreadPoolExecutor:
    """Tokenizer thread `number` (0 runs every analysis's jobs; helpers from 1), started on first use."""
    with _lanes_lock:
        while len(_lanes) <= number:
            _lanes.append(ThreadPoolExecutor(1, f"tokenlab-tokenizer-{len(_lanes)}"))
        return _lanes[number]


class _Crew:
    """One analysis's tokenizer jobs, run in order on thread 0, with helpers for large ones.

    Thread 0 serves every analysis in the process: it runs one job of a crew, then queues
    the crew behind the others, so a small analysis is not kept waiting for a large one.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: deque[tuple[Future[Any], Callable[[], Any]]] = deque()
        self._queued = False  # a turn on thread 0 is queued or running
        self._futures: list[Future[Any]] = []

    def submit(self, function: Callable[..., T], *args: Any) -> Future[T]:
        """Queue a job."""
        future: Future[T] = Future()
        self._futures.append(future)
        with self._lock:
            self._jobs.append((future, partial(function, *args)))
            wake, self._queued = not self._queued, True
        if wake:
            _lane(0).submit(self._take_turn)
        return future

    def add_helpers(self, count: int) -> None:
        """Let `count` helper threads take this crew's jobs too, until its queue runs empty."""
        for number in range(1, count + 1):
            _lane(number).submit(self._help)

    def _next(self, helper: bool) -> tuple[Future[Any], Callable[[], Any]] | None:
        with self._lock:
            if self._jobs:
                return self._jobs.popleft()
            if not helper:
                self._queued = False
            return None

    def _take_turn(self) -> None:
        """Run this crew's next job on thread 0, then queue its next turn."""
        if (job := self._next(helper=False)) is not None:
            _run(*job)
            _lane(0).submit(self._take_turn)

    def _help(self) -> None:
        """Run jobs with an encoding of this thread's own while any are queued."""
        _thread_state.encoding = tokens.new_encoding()
        try:
            while (job := self._next(helper=True)) is not None:
                _run(*job)
        finally:
            _thread_state.encoding = None

    def close(self) -> None:
        """Cancel the jobs not started and wait for the running ones."""
        with self._lock:
            for future, _ in self._jobs:
                future.cancel()
                future.set_running_or_notify_cancel()  # as an executor would: now it is done
            self._jobs.clear()
        wait(self._futures)


def _run(future: Future[T], job: Callable[[], T]) -> None:
    if future.set_running_or_notify_cancel():
        try:
            future.set_result(job())
        except Exception as error:  # noqa: BLE001 (passed on: raised where the result is read)
            future.set_exception(error)


@dataclass(frozen=True)
class _Pending:
    """A text being counted: raw spans to look up in the index, and submitted pieces."""

    starts: Sequence[int]  # [starts[i], ends[i]) of the raw input, counted from the index
    ends: Sequence[int]
    jobs: list[Future[list[int]]]


class TokenCounter:
    """Counts for one analysis; close it (or use `with`) to cancel what it left queued.

    `workers` bounds the tokenizer threads a large raw count uses (default: one per core).
    """

    def __init__(self, limits: IndexLimits = DEFAULT_LIMITS, workers: int | None = None) -> None:
        self.limits = limits
        self._workers = workers or os.cpu_count() or 2
        self._crew = _Crew()
        self._raw_blocks: deque[Future[tuple[list[int], list[int]]]] = deque()  # not yet in the index
        self._raw: bytes | None = None
        self._index: RawIndex | None = None
        self._hint = 0  # where the last text's last run ended in the raw input
        self._prefetched: dict[int, tuple[bytes, _Pending]] = {}

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._crew.close()

    def start_raw(
        self, data: bytes, cuts: Iterable[Sequence[int]] | None = None, *, helpers: bool = True
    ) -> None:
        """Begin indexing `data` on the tokenizer threads (once per data).

        `cuts` are batches of offsets, ascending across batches, where the runs of
        `MappedText`s counted later begin and end; the index is cut there too, wherever
        that is a safe cut. Each block is submitted as soon as `cuts` has passed it, so a
        planner that yields its cuts as it goes overlaps the count (its first blocks are
        small, so that counting starts on its first cuts); this returns when `cuts` is
        exhausted. With `helpers`, data of `limits.parallel_bytes` or more is also counted
        on helper threads.
        """
        if self._raw is data:
            return
        tokens.encoding()  # load the vocabulary here, not in a tokenizer thread
        self._raw = data
        self._index = RawIndex(data)
        # At least two blocks per thread when helpers may join, when there is room.
        block_bytes = max(
            self.limits.chunk_bytes * 16, min(self.limits.block_bytes, len(data) // (2 * self._workers))
        )
        first_block_bytes = block_bytes if cuts is None else min(self.limits.first_block_bytes, block_bytes)
        unsubmitted = deque(pairwise(_cuts(data, 0, len(data), first_block_bytes, growing_to=block_bytes)))
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
        while unsubmitted:
            self._submit_block(data, *unsubmitted.popleft(), inside)
            inside = []
        if helpers and len(data) >= self.limits.parallel_bytes:
            self._crew.add_helpers(self._workers - 1)

    def _submit_block(self, data: bytes, start: int, end: int, inside: list[int]) -> None:
        cuts = _block_cuts(data, start, end, self.limits.chunk_bytes, inside)
        job = self._crew.submit(_index_block, data, cuts)
        self._raw_blocks.append(job)

    def raw_index(self) -> RawIndex:
        """The index of the data given to `start_raw`, once every block is counted."""
        while self._raw_blocks:
            self._next_block()
        return self._next_block()

    def _next_block(self) -> RawIndex:
        """The index with the next block in input order added (waiting for it), if any is left."""
        assert self._index is not None, "start_raw() first"
        if self._raw_blocks:
            self._index.extend(*self._raw_blocks.popleft().result())
        return self._index

    def count_texts(self, texts: Sequence[bytes | MappedText]) -> list[int]:
        """Exact count of each text (decoded with U+FFFD replacement), reusing the raw index.

        Texts given to `prefetch` before are not decomposed again: their counting started then.
        Small texts (markers, secrets) are counted together, one batch per block of bytes.
        """
        pending: dict[int, _Pending] = {}
        small: list[int] = []
        small_texts: list[bytes] = []
        for position, text in enumerate(texts):
            owner, found = self._prefetched.get(id(text), (None, None))
            if owner is text and found is not None:
                pending[position] = found
            elif isinstance(text, MappedText) or len(text) >= self.limits.min_aligned_bytes:
                pending[position] = self._start(text)
            else:
                small.append(position)
                small_texts.append(text)
        self._prefetched.clear()
        counts = [0] * len(texts)
        batches = self._batches(small_texts, small)  # queued behind the raw count's blocks
        for position, count in zip(pending, self._finish(list(pending.values()))):
            counts[position] = count
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

    def prefetch(self, texts: Sequence[bytes]) -> None:
        """Start counting texts now (they must stay unchanged); `count_texts` collects them."""
        for text in texts:
            if id(text) not in self._prefetched:
                self._prefetched[id(text)] = (text, self._start(text))

    def _start(self, text: bytes | MappedText) -> _Pending:
        """Find the text's long runs of raw bytes and submit the rest to be tokenized.

        Needs only the raw bytes, not their index: it may run while the raw count does.
        """
        if isinstance(text, MappedText):
            return self._start_mapped(text)
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
        runs = list(compress(text.runs, map(itemgetter(2), text.runs)))
        starts, raw_starts, lengths = _columns(runs)
        ends = list(map(add, starts, lengths))
        safe_at = partial(map, tokens.SAFE_CUT_RE.match)  # at offset - 1: is offset a safe cut?
        before = partial(map, sub)
        good = list(
            map(
                all,
                zip(
                    safe_at(repeat(data), before(starts, repeat(1))),
                    safe_at(repeat(data), before(ends, repeat(1))),
                    map(raw.startswith, map(data.__getitem__, map(slice, starts, ends)), raw_starts),
                ),
            )
        )
        # Where each run counted from the index starts and ends in the text, and starts in raw.
        firsts: Sequence[int] = starts
        lasts: Sequence[int] = ends
        raw_firsts: Sequence[int] = raw_starts
        if not all(good):
            mapped = list(zip(compress(starts, good), compress(ends, good), compress(raw_starts, good)))
            mapped = sorted(mapped + _careful_spans(data, raw, list(compress(runs, map(not_, good)))))
            firsts, lasts, raw_firsts = _columns(mapped)
        gaps = Counter(filter(None, map(data.__getitem__, map(slice, [0, *lasts], [*firsts, len(data)]))))
        # Short gaps repeat (a diff's `… 3 lines`): each distinct one is counted once.
        long = [gap for gap in gaps if len(gap) > _REPEATED_GAP_BYTES]
        jobs = self._tokenize([memoryview(gap) for gap in long for _ in range(gaps.pop(gap))])
        jobs += self._count_repeated(gaps)
        raw_lasts = list(map(add, raw_firsts, map(sub, lasts, firsts)))
        return _Pending(raw_firsts, raw_lasts, jobs)

    def _finish(self, pending: list[_Pending]) -> list[int]:
        """The counts: spans from the index (their edges tokenized as they are found), plus the rest.

        Spans in input order (a diff's) are looked up block by block as the raw count
        finishes them, so this overlaps the count's last blocks, and their edges are
        queued in batches meanwhile, for helpers to share.
        """
        totals = [0] * len(pending)
        edges = [list[memoryview]() for _ in pending]
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
    def _looked_up(
        index: RawIndex, starts: Sequence[int], ends: Sequence[int]
    ) -> tuple[int, list[memoryview]]:
        """Spans [starts[i], ends[i]) counted from the index, and their edges left to tokenize."""
        # Spans that start and end at cuts of the index: two lookups each, in C.
        firsts = list(map(index.before_offset.get, starts, repeat(-1)))
        lasts = list(map(index.before_offset.get, ends, repeat(-1)))
        total, edges = sum(lasts) - sum(firsts), list[memoryview]()
        for at in [at for at, pair in enumerate(zip(firsts, lasts)) if -1 in pair]:
            indexed, partial = index.span(starts[at], ends[at])
            total += indexed - (lasts[at] - firsts[at])
            edges += [piece for piece in partial if len(piece)]
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

    def _tokenize(self, pieces: list[memoryview]) -> list[Future[list[int]]]:
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
        found = raw.find(probe, hint)
        search_budget -= (found - hint) if found >= 0 else len(raw) - hint
        if found < 0 and hint:
            found = raw.find(probe)  # out of order: search from the start
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


def _last_safe_cut(text: bytes, low: int, high: int) -> int | None:
    """The last safe cut of `text` in [low, high]."""
    at = high
    for _ in range(64):  # a few lines back at most; then give up on this run
        if at < low:
            return None
        if tokens.is_safe_cut(text, at):
            return at
        at = text.rfind(b"\n", low, at - 1) + 1
        if at == 0:
            return None
    return None


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
