"""The per-line states of an outline and the runs they form.

Each line of a document gets one state byte; runs of equal states are cut with one regex
over the state bytes, which is what keeps the outline linear on long inputs.
"""

from __future__ import annotations

import re

from tokenlab.patterns import compile_on_use

FOLD, KEEP, BLANK, LONG, REPEAT, REPEAT_BODY = 0, 1, 2, 3, 4, 5
RUN_RE = compile_on_use(rb"\x00+|\x01+|\x03|\x04\x05*")
_BLANK_RUN_STATE_RE = compile_on_use(rb"\x02+(\x00?)")  # no lookahead: linear on long runs
BLANKISH = b" \t\r\f\v|"  # a pydoc gutter line ("     |  ") separates like a blank line


def _settle_blank_run(run: re.Match[bytes]) -> bytes:
    """Blank lines fold with the folded line after them; all others stay."""
    before_fold = run.group(1)
    blank = b"\x00" if before_fold else b"\x01"
    return blank * (len(run.group()) - len(before_fold)) + before_fold


def settle_blank_runs(states: bytearray) -> bytearray:
    """`states` with each run of blank lines settled (see `_settle_blank_run`)."""
    return bytearray(_BLANK_RUN_STATE_RE.sub(_settle_blank_run, states))
