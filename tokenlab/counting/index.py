"""The raw input's index: the exact count of each chunk between safe cuts, and the arithmetic
of safe cuts and sentinels that builds it (`counter.py` says how it is used).

One tokenizer call counts a whole block of chunks, joined with the special token
`<|endoftext|>` (`SENTINEL`), which the tokenizer never merges with its neighbours: each
chunk's count is the distance between two of them. Names with a leading underscore are the
`counting` package's own: `counter.py` and `runs.py` use them.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate, compress, islice, pairwise, repeat
from operator import add, eq, mul, not_, sub

from tokenlab.counting import tokens
from tokenlab.counting.crew import _thread_encoding

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
    # A helper that joins late (`TokenCounter.start_raw`) comes only if this much of the
    # input still waits for a tokenizer when the caller comes to wait for the count: its
    # encoding takes the time one thread counts some 2 MB in, and each thread then counts
    # half of the rest (with 8 MB left that saves about 0.2 s, with 40 MB 2 s).
    late_helper_bytes: int = 8 << 20


DEFAULT_LIMITS = IndexLimits()


class RawIndex:
    """The exact token count of `data` and of every chunk between its `offsets`.

    Built block by block in input order (`TokenCounter`), so spans in the blocks counted
    so far can be counted before the rest of the input is.
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.offsets = array("q", [0])  # 0, …: safe cuts, ascending
        self.before = array("q", [0])  # tokens in data[:offsets[i]]

    @property
    def total(self) -> int:
        return self.before[-1]

    def extend(self, ends: Sequence[int], counts: Sequence[int]) -> None:
        """Add the next block's chunks: where each ends and its count."""
        self.offsets.extend(ends)
        self.before.extend(islice(accumulate(counts, initial=self.before[-1]), 1, None))

    def before_cuts(self, offsets: Sequence[int]) -> list[int]:
        """The tokens before each of `offsets` that is a cut, and -1 for each other.

        Looked up by bisection in C-level maps: spans that start and end at cuts are
        counted by two lookups each. (A dict by offset took about 100 bytes a cut, which a
        large diff has hundreds of thousands of, one at each end of a fold.)
        """
        cuts, before = self.offsets, self.before
        at = list(map(min, map(bisect_left, repeat(cuts), offsets), repeat(len(cuts) - 1)))
        hits = map(eq, map(cuts.__getitem__, at), offsets)
        # before + 1, times 1 or 0, less 1: the count at a cut, else -1.
        return list(map(sub, map(mul, map(add, map(before.__getitem__, at), repeat(1)), hits), repeat(1)))

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
    if not text:  # an empty input's index needs no tokenizer (building one costs ~0.2 s)
        return memoryview(b"")
    encoder = _thread_encoding()
    core = getattr(encoder, "_core_bpe", None)
    to_buffer = getattr(core, "encode_to_tiktoken_buffer", None)
    if to_buffer is not None:  # skips building a list of ints; releases the GIL likewise
        return memoryview(to_buffer(text, {SENTINEL})).cast("B")
    ids = encoder.encode(text, allowed_special={SENTINEL}, disallowed_special=())
    return memoryview(array("I", ids)).cast("B")


def _count_one(text: str) -> int:
    """`tokens.count`, holding 4 bytes per token rather than a list of ints when it can."""
    if not text:
        return 0
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


def _index_block(data: bytes, cuts: Sequence[int]) -> tuple[Sequence[int], list[int]]:
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


def _count_times(pieces: list[bytes], times: list[int]) -> list[int]:
    """The total count of pieces that occur `times` times each, as a one-item list."""
    return [sum(map(mul, count_each(pieces), times))]


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
