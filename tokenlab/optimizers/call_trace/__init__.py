"""The call trace family: `strace` (`-f`, `-tt`, `-r`) and `ltrace` listings.

    __init__.py    `detect`: most lines are calls printed as `name(args) = result`
    optimizer.py   the traced program's own output, its writes to stdout and stderr,
                   failed calls and process events stay; other calls fold with counts
"""

from __future__ import annotations


def detect(data: bytes, sample: bytes) -> str | None:
    if b"(" not in sample or b" = " not in sample:  # every finished call prints its result so
        return None
    from tokenlab.optimizers.call_trace.optimizer import looks_like_call_trace

    if looks_like_call_trace(sample):
        return "a call trace: lines of name(args) = result"
    return None
