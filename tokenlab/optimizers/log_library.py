"""Frames in library code: the steps of a chain that happen in code the reader did not write.

A compiler's instantiation chain (`/usr/include/c++/12/bits/stl_algo.h:1940:31:   required
from ‘…’`) and a stack trace (`    at Object.<anonymous> (node_modules/expect/build/index.js:
1824:9)`) walk through library code between the reader's own lines: the reader looks at
the error and at the frames in their own files (`registry.cpp:31:39:   required from
here`). A run of `library_frames` or more consecutive frame lines located in library code
(`/usr/include`, `/usr/lib`, `node_modules/`, `site-packages/`, a cargo registry, node's
built-in `node:` modules) folds in place to `[… N frames in library code]`. A failure line
never folds, and a chain with no frame outside library code stays whole (its frames are
all there is to read).
"""

from __future__ import annotations

import re
from array import array

from tokenlab.optimizers import line_shapes
from tokenlab.optimizers.log_model import FOLD, Group, GroupKind, Lines, LogLimits, Plan

# A step of a chain: gcc/clang's `path:12:5:   required from …` and `path: In instantiation
# of …`, the include chain before a diagnostic, a JavaScript or Java stack frame.
_FRAME_RE = re.compile(
    rb"\s*(?:\S+:\d+(?::\d+)?:\s+(?:recursively )?required (?:from|by)\b"
    rb"|\S+: In (?:instantiation|substitution) of\b"
    rb"|In file included from \S+:\d+|\s+from \S+:\d+[,:]$"
    rb"|at (?:\S.* \()?\S+:\d+(?::\d+)?\)?$)"
)
# Where library code lives: system headers and libraries, installed packages, toolchains.
_LIBRARY_RE = re.compile(
    rb"(?:^|[\s(])(?:/usr/(?:include|lib|lib64|local/(?:include|lib))/"
    rb"|[^\s(]*?(?:node_modules|site-packages|dist-packages|\.cargo/registry|\.rustup/toolchains)/"
    rb"|node:[a-z_]|internal/(?:modules|process)/)"
)


def fold_library_frames(lines: Lines, plan: Plan, limits: LogLimits) -> None:
    """Fold each run of `library_frames` or more library frames in a chain that also has
    frames in the reader's own code."""
    clean = lines.clean
    total = len(lines)
    i = 0
    while i < total:
        if not _FRAME_RE.match(clean(i)):
            i += 1
            continue
        chain = i
        while chain < total and _FRAME_RE.match(clean(chain)):
            chain += 1
        library = [j for j in range(i, chain) if _LIBRARY_RE.search(clean(j))]
        if len(library) < chain - i:  # the chain reaches the reader's code
            foldable = [
                j
                for j in library
                if plan.role[j] != FOLD and not line_shapes.is_failure(lines.text(j, limits.line_bytes))
            ]
            for run in _consecutive(foldable):
                if len(run) >= limits.library_frames:
                    plan.groups.append(Group(GroupKind.LIBRARY, array("q", run)))
                    for j in run:
                        plan.role[j] = FOLD
        i = chain


def _consecutive(indices: list[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for index in indices:
        if runs and index == runs[-1][-1] + 1:
            runs[-1].append(index)
        else:
            runs.append([index])
    return runs
