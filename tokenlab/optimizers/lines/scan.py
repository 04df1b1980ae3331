"""Patterns looked for over a whole large input, a slice at a time.

A regex call holds the GIL until it returns, and one search over 100 MB that finds nothing
takes about half a second: meanwhile the tokenizer thread counting the raw input beside the
optimizer (`counting/crew.py`) waits to start its next block. Slices of about a megabyte
let it in between (a 100 MB log's raw count beside its optimizer went from 13.1 s to 11.7 s;
alone it takes 10.0 s). A mapped input's pages are given back as each pass goes
(`tokenlab/mapped.py`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from tokenlab.mapped import find, let_go

SLICE_BYTES = 1 << 20


def matches(pattern: re.Pattern[bytes], data: bytes) -> Iterator[re.Match[bytes]]:
    """`pattern.finditer(data)`, for a pattern none of whose matches holds a LF but as its
    first byte: each slice ends just before a LF, so that such a match starts in the slice
    after, and what follows a slice's end is a LF, as the pattern's `\\Z` then assumes."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + SLICE_BYTES)
        end = len(data) if end < 0 else end
        yield from pattern.finditer(data, start, end)
        let_go(data, start, end)
        start = end


def offsets(data: bytes, words: Iterable[bytes]) -> Iterator[int]:
    """Where each of `words` occurs in `data` (word by word, each in order). A word is
    found far faster than a pattern of several, which is tried at every byte."""
    for word in words:
        at = find(data, word)
        while at >= 0:
            yield at
            at = find(data, word, at + 1)


def search(pattern: re.Pattern[bytes], data: bytes) -> re.Match[bytes] | None:
    """The first of `matches`."""
    return next(matches(pattern, data), None)
