"""A runtime checker's or a debugger's report in plain text: where the error happened
stays visible, the notation it explains every time folds.

A runtime checker or a debugger prints what went wrong (`WRITE of size 8 at 0x… thread
T0`, `allocated by thread T0 here:`) and under it a stack of numbered frames, innermost
first (`#0 0x… in ring_push /src/ring.c:15`, `#1 … in main /src/ring.c:21`, then the C
library's start-up frames). A reader reads the line above the stack and its first frames,
up to and including the last frame of the first run in the reader's own code (frames in
library code before it stay too: an allocator's entry point is where the memory came
from); the library frames after them (`__libc_start_main`, `_start`) are alike in every
report and fold. A frame is in the reader's code when it names a `file:line` outside the
system's and a library's build tree (`../sysdeps/…`, `/usr/…`, `/lib…`, `node_modules/`).

A legend (a line naming itself one, `Shadow byte legend (…):`, `Legend:`, with the lines
indented under it) explains the report's symbols, the same in every run of the tool: its
title line stays and its entries fold.
"""

from __future__ import annotations

import re

from tokenlab.patterns import compile_on_use

# A numbered frame: `#3 0x55bcd16d2120 in _start (…)`, gdb's `#0  main () at a.c:4`.
_FRAME_RE = compile_on_use(rb"[ \t]*#(\d{1,4})[ \t]+\S")
# A location in the reader's code: a `path:line` led by a blank, not in a library's tree.
_OWN_LOCATION_RE = compile_on_use(
    rb"\s(?!\.\./|/usr/|/lib|/opt/|/System/)"
    rb"(?![^\s:]*(?:node_modules|site-packages|dist-packages)/)[^\s():]+:\d+"
)


def stack_lines(lines: list[bytes]) -> tuple[list[int], list[int]]:
    """(lines kept, lines folded) of the input's numbered stacks: each stack's head line
    and first frames kept, its library frames after them folded. A stack with no frame in
    the reader's code is left as it is: there its frames are all there is to read."""
    kept: list[int] = []
    folded: list[int] = []
    index = 0
    while index < len(lines):
        frame = _FRAME_RE.match(lines[index])
        if frame is None or frame[1] != b"0":
            index += 1
            continue
        end = index + 1
        while end < len(lines) and _frame_number(lines[end]) == end - index:
            end += 1
        own = [at for at in range(index, end) if _OWN_LOCATION_RE.search(lines[at])]
        if own:
            last = own[0]
            while last + 1 < end and last + 1 in own:
                last += 1
            if index > 0 and lines[index - 1].strip():
                kept.append(index - 1)  # what the stack is of
            kept += range(index, last + 1)
            folded += range(last + 1, end)
        index = end
    return kept, folded


# A legend's title: the word `legend`, the line ending with a colon.
_LEGEND_RE = compile_on_use(rb"[^\n]{0,80}\blegend\b[^\n]{0,80}:[ \t\r]*", re.IGNORECASE)


def legend_lines(lines: list[bytes]) -> list[int]:
    """The entries of each legend: the lines indented under its title line."""
    entries: list[int] = []
    for index, line in enumerate(lines):
        if b"egend" not in line or not _LEGEND_RE.fullmatch(line):
            continue
        margin = _indent(line)
        end = index + 1
        while end < len(lines) and lines[end].strip() and _indent(lines[end]) > margin:
            end += 1
        entries += range(index + 1, end)
    return entries


def _indent(line: bytes) -> int:
    return len(line) - len(line.lstrip(b" \t"))


def _frame_number(line: bytes) -> int:
    """A numbered frame's number; -1 for any other line."""
    frame = _FRAME_RE.match(line)
    return int(frame[1]) if frame is not None else -1
