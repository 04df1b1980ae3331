"""A text written piece by piece: held in memory while small, in a file with no name once large.

A large input's visible text can be most of the input (a diff keeps every changed line):
held whole, it was the largest holder of a large diff's analysis, twice while its pieces
were joined. The Optimize stage writes it here as it renders it; what counts it, looks in
it and prints it reads it back a block at a time. The file has no name
(`spool.unnamed_file`), so nothing is left behind however the process ends, and `close`
gives it back at once (a long-lived host closes each packet's text when it has answered).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator

from tokenlab.spool import unnamed_file

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from typing import IO

# Up to this size the text stays in memory (every fixture, every small command's output).
MEMORY_BYTES = 8 << 20
# Read back and copied out in blocks of this size.
BLOCK_BYTES = 1 << 20


class SpooledText:
    """UTF-8 bytes written in order: `write` appends, `blocks` reads them back."""

    __slots__ = ("_file", "_last", "_memory_bytes", "_pieces", "_size")

    def __init__(self, data: bytes = b"", memory_bytes: int | None = None) -> None:
        self._pieces: list[bytes] = []
        self._file: IO[bytes] | None = None
        self._size = 0
        self._last = b""
        self._memory_bytes = MEMORY_BYTES if memory_bytes is None else memory_bytes
        self.write(data)

    def write(self, data: bytes) -> None:
        if not data:
            return
        self._size += len(data)
        self._last = data[-1:]
        if self._file is not None:
            self._file.write(data)
            return
        self._pieces.append(data)
        if self._size > self._memory_bytes:
            self._file = unnamed_file(None)
            self._file.writelines(self._pieces)
            self._pieces = []

    def __len__(self) -> int:
        return self._size

    @property
    def spilled(self) -> bool:
        """Whether the text is in its file rather than in memory."""
        return self._file is not None

    def endswith_newline(self) -> bool:
        return self._last == b"\n"

    def blocks(self, size: int = BLOCK_BYTES, start: int = 0) -> Iterator[bytes]:
        """The text from `start`, in blocks of up to `size` bytes."""
        if self._file is None:
            whole = self.getvalue()
            for at in range(start, len(whole), size):
                yield whole[at : at + size]
            return
        self._file.flush()
        descriptor = self._file.fileno()
        for at in range(start, self._size, size):
            yield os.pread(descriptor, min(size, self._size - at), at)

    def getvalue(self) -> bytes:
        """The whole text (for callers that need it at once: keep it only while needed)."""
        if self._file is not None:
            return b"".join(self.blocks())
        if len(self._pieces) > 1:
            self._pieces = [b"".join(self._pieces)]
        return self._pieces[0] if self._pieces else b""

    def tail(self, size: int) -> bytes:
        """The last `size` bytes (fewer if the text is shorter)."""
        start = max(0, self._size - size)
        return b"".join(self.blocks(start=start))

    def truncate(self, size: int) -> None:
        """Keep the first `size` bytes only."""
        if self._file is not None:
            self._file.flush()
            self._file.truncate(size)
            self._file.seek(size)
        else:
            kept = self.getvalue()[:size]
            self._pieces = [kept] if kept else []
        self._size = size
        self._last = self.tail(1)

    def missing(self, needles: Iterable[bytes]) -> list[bytes]:
        """The needles the text does not hold, in one pass over it."""
        wanted = list(dict.fromkeys(needle for needle in needles if needle))
        overlap = max(map(len, wanted), default=1) - 1
        carry = b""
        for block in self.blocks():
            window = carry + block
            wanted = [needle for needle in wanted if needle not in window]
            if not wanted:
                return []
            carry = window[-overlap:] if overlap else b""
        return wanted

    def equals(self, other: SpooledText) -> bool:
        """Whether the two texts are the same bytes."""
        if len(self) != len(other):
            return False
        return all(mine == theirs for mine, theirs in zip(self.blocks(), other.blocks()))

    def write_to(self, out: IO[bytes]) -> None:
        for block in self.blocks():
            out.write(block)

    def close(self) -> None:
        """Give back the file (or the memory) at once; the text is empty after."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self._pieces, self._size, self._last = [], 0, b""

    def __enter__(self) -> SpooledText:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
