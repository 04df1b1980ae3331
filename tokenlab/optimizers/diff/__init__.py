"""The diff family: unified and combined diffs.

    __init__.py    `detect`: file headers and `@@` hunk headers
    optimizer.py   plans which lines leave the visible text (maps its input)
    parse.py       a diff read into per-file sections, never raising
    render.py      the cuts, as columns of ints, and the parts built from them
    repeats.py     hunk bodies that repeat one shown earlier
    tables.py      the bounded hash tables `repeats.py` finds them by
"""

from __future__ import annotations

import re

from tokenlab.patterns import compile_on_use

_DIFF_START_RE = compile_on_use(rb"^(?:diff --git |diff -|--- \S.*\n\+\+\+ \S)", re.MULTILINE)
# `@@ -1,4 +1,5 @@`, or a combined diff's `@@@ -1,40 -1,40 +1,48 @@@` during a merge.
_HUNK_RE = compile_on_use(rb"^@@(@*) -\d+(?:,\d+)?(?: -\d+(?:,\d+)?)* \+\d+(?:,\d+)? @@\1", re.MULTILINE)


def detect(data: bytes, sample: bytes) -> str | None:
    if _DIFF_START_RE.search(sample) and _HUNK_RE.search(sample):
        return "diff file headers and @@ hunk headers"
    return None
