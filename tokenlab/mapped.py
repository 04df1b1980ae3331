"""An input held as a read-only mapping of a file, and the passes that read it whole.

A large input is mapped rather than read into memory (`sources.opened_input`): the input
file itself, or standard input spooled to a file. A mapped page counts in the process's
memory while it is resident, and every page a pass reads becomes resident, so a pass over
the whole input gives back what it has read as it goes (`let_go`): the page cache keeps
the file, and a page read again is mapped again. Reading stays byte-exact either way.

A mapping offers slicing (which copies), `find`, `rfind`, `re` and memoryviews, not the
other methods of `bytes`; `in` would compare bytes with its items, which are ints, and so
never match: `holds` asks instead, and `count`, `starts_with` and `ends_with` stand for
the methods of those names. `as_bytes` gives code that needs `bytes` a copy.
"""

from __future__ import annotations

import mmap
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from typing import IO

from tokenlab.heap import map_large_buffers

RawInput = bytes | mmap.mmap

# Smaller inputs are read: a mapping costs a few system calls and a page fault per page,
# which small inputs (the speed guard's) would notice, and saves them nothing that matters.
MAPPED_BYTES = 32 << 20
# Standard input read before deciding where it is analysed: the warm worker takes inputs
# up to this size (`agent/client.py`); a larger one is spooled from here on.
STDIN_HEAD_BYTES = (8 << 20) + 1

# How much of a mapping a pass reads before it gives the pages back.
PASS_BYTES = 1 << 20
# How often an analysis of a mapped input gives back all its resident pages (`paged`).
PAGER_SECONDS = 0.1


def mapped_file(file: IO[bytes]) -> RawInput:
    """A file's bytes from its start: mapped when large, else read."""
    file.flush()
    size = os.fstat(file.fileno()).st_size
    if size < MAPPED_BYTES:
        file.seek(0)
        return file.read()
    return mapping(file)


def mapping(file: IO[bytes]) -> mmap.mmap:
    """The whole file, mapped read-only (the mapping stays valid once the file is closed)."""
    mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    mapped.madvise(mmap.MADV_SEQUENTIAL)
    return mapped


# A read that faults maps the pages of the aligned 64 KB around it (the kernel's
# fault-around), not only the page it reads: the pages just before a range are mapped
# again when its first bytes are read, after the pass gave them back with the range before.
FAULT_AROUND = 64 << 10


def let_go(raw: RawInput, start: int, end: int) -> None:
    """Give back the resident pages of a mapping's [start, end), once read, widened to the
    fault-around windows its reads mapped (nothing for bytes). Given back exactly, a pass
    over 64 KB ranges left 40% of a 200 MB log's pages resident: each range's reads mapped
    the end of the range before again."""
    if isinstance(raw, mmap.mmap) and not raw.closed:
        low = start - start % FAULT_AROUND
        end = min(end + -end % FAULT_AROUND, len(raw))
        if end > low:
            raw.madvise(mmap.MADV_DONTNEED, low, end - low)


class LetGoInWindows:
    """`let_go` for many small ranges read in ascending order (a diff's folded lines are
    hundreds of thousands of ranges): ranges about `PASS_BYTES` apart at most are gathered
    into one window, given back with one system call once it spans `PASS_BYTES`, rather
    than one call per range (a 100 MB diff made a million, 6 s of system time). The pages
    between a window's ranges are given back too; a page read again is mapped again. Call
    `close` once the last range is read."""

    def __init__(self, raw: RawInput) -> None:
        self._raw = raw if isinstance(raw, mmap.mmap) else None
        self._window: tuple[int, int] | None = None

    def add(self, start: int, end: int) -> None:
        if self._raw is None or end <= start:
            return
        if self._window is None:
            self._window = (start, end)
        else:
            low, high = self._window
            if start < low or start > high + PASS_BYTES:  # out of order, or far: a window of its own
                self.close()
                low, high = start, end
            self._window = (low, max(high, end))
        low, high = self._window
        if high - low >= PASS_BYTES:
            self.close()

    def close(self) -> None:
        """Give back the window gathered so far."""
        if self._raw is not None and self._window is not None:
            let_go(self._raw, *self._window)
        self._window = None


@contextmanager
def paged(raw: RawInput) -> Iterator[None]:
    """While an analysis reads a mapped input, give back all its resident pages every
    `PAGER_SECONDS` on a thread of its own: passes that read lines here and there (a folded
    group's values, the counts of the visible text) read pages all over the input, and
    this bounds what they hold at once whatever the pass. Nothing for bytes.

    In tokenlab's own processes its large transient buffers are given back once freed, too
    (`heap.map_large_buffers`)."""
    if isinstance(raw, bytes):
        yield
        return
    map_large_buffers()
    stop = threading.Event()

    def let_go_until_stopped() -> None:
        while not stop.wait(PAGER_SECONDS):
            let_go(raw, 0, len(raw))

    pager = threading.Thread(target=let_go_until_stopped, name="tokenlab-pager", daemon=True)
    pager.start()
    try:
        yield
    finally:
        stop.set()
        pager.join()


def holds(raw: RawInput, word: bytes) -> bool:
    """Whether `word` occurs in the input (`in`, for a mapping too)."""
    if isinstance(raw, bytes):
        return word in raw
    return find(raw, word) >= 0


def find(raw: RawInput, word: bytes, start: int = 0) -> int:
    """`raw.find(word, start)`, a mapping's pages given back as the search passes them."""
    if isinstance(raw, bytes):
        return raw.find(word, start)
    overlap = len(word) - 1
    while start < len(raw):
        end = min(len(raw), start + PASS_BYTES)
        at = raw.find(word, start, end + overlap)
        let_go(raw, start, end)
        if at >= 0:
            return at
        start = end
    return -1


def count(raw: RawInput, byte: bytes) -> int:
    """`raw.count(byte)` of one byte, a mapping's pages given back as the count passes them."""
    if isinstance(raw, bytes):
        return raw.count(byte)
    total = 0
    for start in range(0, len(raw), PASS_BYTES):
        end = min(len(raw), start + PASS_BYTES)
        total += raw[start:end].count(byte)
        let_go(raw, start, end)
    return total


def line_count(raw: RawInput) -> int:
    """Lines of `raw`, its last one counted whether or not it ends in a LF."""
    return count(raw, b"\n") + (len(raw) > 0 and not ends_with(raw, b"\n"))


def ends_with(raw: RawInput, word: bytes) -> bool:
    """`raw.endswith(word)`, for a mapping too."""
    if isinstance(raw, bytes):
        return raw.endswith(word)
    return len(raw) >= len(word) and raw[len(raw) - len(word) :] == word


def starts_with(raw: RawInput, word: bytes, at: int) -> bool:
    """`raw.startswith(word, at)`, for a mapping too (which has no `startswith`)."""
    if isinstance(raw, bytes):
        return raw.startswith(word, at)
    return raw[at : at + len(word)] == word


def as_bytes(raw: RawInput) -> bytes:
    """The input's bytes: itself, or copied out of a mapping (whose pages are given back)."""
    if isinstance(raw, bytes):
        return raw
    data = raw[:]
    let_go(raw, 0, len(raw))
    return data


def close(raw: RawInput) -> None:
    """Unmap a mapped input once nothing reads it (nothing for bytes)."""
    if isinstance(raw, mmap.mmap):
        try:
            raw.close()
        except BufferError:  # a view of it is still referenced: unmapped when that goes
            pass
