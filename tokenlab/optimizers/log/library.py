"""Frames in library code: the steps of a chain that happen in code the reader did not write.

A compiler's instantiation chain (`…/bits/stl_algo.h:1940:31:   required from ‘…’`), a
stack trace (`    at Object.<anonymous> (node_modules/expect/build/index.js:1824:9)`) and a
Python traceback (`  File "/usr/lib/python3.11/json/decoder.py", line 337, in decode` with
its source lines) walk through library code between the reader's own frames, and the
reader looks at the error and at their own frames (`registry.cpp:31:39:   required from
here`). A run of `library_frames` or more consecutive frames in library code
(`/usr/include`, `/usr/lib`, `node_modules/`, `site-packages/`, Python's `lib/python3.11/`,
a cargo registry, the Rust standard library, the JDK's modules, node's built-in `node:`
modules) folds in place to `[… N frames in library code]`. A chain's first and last frames
(its innermost and outermost: where an exception was raised) and failure lines never fold,
and nothing folds in a log without a frame in the reader's code: there the library's
frames are all there is to read.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right

from tokenlab.optimizers.lines import scan
from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.optimizers.log.model import FOLD, LINE_INDEX, Group, GroupKind, Lines, LogLimits, Plan, indent
from tokenlab.patterns import compile_on_use

# A step of a chain: gcc/clang's `path:12:5:   required from …` and `path: In instantiation
# of …`, the include chain before a diagnostic, a JavaScript or Java stack frame (node's
# TAP output drops the `at `: `Test.run (node:internal/test_runner/test:796:25)`).
# The indentation is taken whole, once: `from` is led by some of it, not by more blanks
# (tried at each split of a long indentation, a line of blanks was read again from each).
_FRAME_RE = compile_on_use(
    rb"\s*+(?:\S+:\d+(?::\d+)?:\s+(?:recursively )?required (?:from|by)\b"
    rb"|\S+: In (?:instantiation|substitution) of\b"
    rb"|In file included from \S+:\d+|(?<=\s)from \S+:\d+[,:]$"
    rb"|at (?:\S.* \()?\S+:\d+(?::\d+)?\)?$|\S[^()]* \(\S+:\d+:\d+\)$)"
)
# A frame whose first line has lines of its own indented under it: a Python traceback's
# `File` line (pytest --tb=short: `path:12: in f`) with its source and caret lines, a Rust
# backtrace's numbered symbol (`  4: rangeset::tests::merges`) with its `at path:66:9`.
_HEADED_FRAME_RE = compile_on_use(rb'\s*File "[^"]+", line \d+|[^\s:]+\.py:\d+: in \S|\s+\d+: \S')
# Where a frame may start, found over the whole input at once rather than by trying the
# patterns above on each line (a third of a large log's optimizer time): each line either
# pattern matches begins, after its blanks, as `_FRAME_LEAD_RE` says, or holds one of
# `_FRAME_INNER_WORDS`, or ends with `:line:column)`. `_frame` judges the lines found.
# (A pattern led by a line break is looked for as fast as a word; the first line is tried
# on its own.)
_FRAME_LEAD_RE = compile_on_use(rb"[^\S\r\n]*+(?:from |at |File \"|\d+: \S|In file included from )")
# One pattern per line break: led by a class of two bytes, the scan tried the pattern at
# every byte (0.15 s on a 20 MB log, against 0.035 s for the two).
_FRAME_LEADS_RES = (re.compile(rb"\n" + _FRAME_LEAD_RE.pattern), re.compile(rb"\r" + _FRAME_LEAD_RE.pattern))
_FRAME_INNER_WORDS = (b"required ", b": In ", b": in ")
_FRAME_LINE_END_RE = compile_on_use(rb":\d+:\d+\)(?=[\r\n]|\Z)")


# Where library code lives: system headers and libraries, installed packages, toolchains,
# the Rust standard library, the JDK's modules (`at java.base/java.util.…`).
_LIBRARY_RE = compile_on_use(
    rb"(?:^|[\s(])(?:/usr/(?:include|lib|lib64|local/(?:include|lib))/"
    rb"|[^\s(]*?(?:node_modules|site-packages|dist-packages|\.cargo/registry|\.rustup/toolchains|lib/python\d[\d.]*)/"
    rb"|node:[a-z_]|internal/(?:modules|process)/|\"<frozen |/rustc/[0-9a-f]+/library/|(?:java|jdk)\.[\w.]+/)"
)


def fold_library_frames(lines: Lines, plan: Plan, limits: LogLimits) -> None:
    """Fold each run of `library_frames` or more library frames inside a chain, when the
    log shows frames in the reader's own code."""
    chains = _chains(lines)
    library = [
        [any(_LIBRARY_RE.search(lines.clean(j)) for j in frame) for frame in chain] for chain in chains
    ]
    if all(all(flags) for flags in library):
        return  # no frame in the reader's code: the library's frames are all there is to read
    for chain, flags in zip(chains, library, strict=True):
        # A chain's ends stay: where it starts, and where it ends (where an exception was raised).
        foldable = [
            frame
            for frame, in_library in zip(chain[1:-1], flags[1:-1], strict=True)
            if in_library
            and all(
                plan.role[j] != FOLD and not line_shapes.is_failure(lines.text(j, limits.line_bytes))
                for j in frame
            )
        ]
        for run in _consecutive(foldable):
            if len(run) >= limits.library_frames:
                folded = array(LINE_INDEX, (j for frame in run for j in frame))
                plan.groups.append(Group(GroupKind.LIBRARY, folded, units=len(run)))
                for j in folded:
                    plan.role[j] = FOLD


def _chains(lines: Lines) -> list[list[range]]:
    """Each run of consecutive frames, as the line ranges of its frames."""
    chains: list[list[range]] = []
    i = 0
    for start in _frame_starts(lines):
        if start < i:
            continue  # inside the frames of the chain just read
        i = start
        frames: list[range] = []
        while i < len(lines) and (frame := _frame(lines, i)) is not None:
            frames.append(frame)
            i = frame.stop
        if frames:
            chains.append(frames)
    return chains


def _frame_starts(lines: Lines) -> list[int]:
    """The lines, ascending, where a frame may start: every line, when the lines are not
    the input's bytes as they are (escapes were removed)."""
    if lines.stripped is not None:
        return list(range(len(lines)))
    data, ends = lines.data, lines.ends
    offsets = [0] if _FRAME_LEAD_RE.match(data) else []
    for leads in _FRAME_LEADS_RES:
        offsets += [found.start() + 1 for found in scan.matches(leads, data)]
    offsets += [found.start() for found in scan.matches(_FRAME_LINE_END_RE, data)]
    offsets += scan.offsets(data, _FRAME_INNER_WORDS)
    return sorted({bisect_right(ends, offset) for offset in offsets})


def _frame(lines: Lines, start: int) -> range | None:
    """The lines of the frame starting at `start`, if one does: one line, or a frame's
    first line with the lines indented under it (a Python frame's source, a Rust frame's
    location)."""
    line = lines.clean(start)
    if _FRAME_RE.match(line):
        return range(start, start + 1)
    if not _HEADED_FRAME_RE.match(line):
        return None
    end = start + 1
    while (
        end < len(lines)
        and indent(lines.clean(end)) > indent(line)
        and not _HEADED_FRAME_RE.match(lines.clean(end))
    ):
        end += 1
    return range(start, end)


def _consecutive(frames: list[range]) -> list[list[range]]:
    runs: list[list[range]] = []
    for frame in frames:
        if runs and frame.start == runs[-1][-1].stop:
            runs[-1].append(frame)
        else:
            runs.append([frame])
    return runs
