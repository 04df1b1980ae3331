"""The git status family: long form, `--short`, `-b`, `-uall`, `--porcelain` v1 and v2.

    __init__.py    `detect`: a branch line and sections, or XY path lines
    optimizer.py   branch line, sections and remarks verbatim; every path named, entries
                   that share a status and folder on one line
"""

from __future__ import annotations


def detect(data: bytes, sample: bytes) -> str | None:
    from tokenlab.optimizers.git_status.optimizer import looks_like_git_status

    if looks_like_git_status(sample):
        return "git status: branch line and sections, or XY path lines"
    return None
