"""The file-list family: `find`, `fd`, `git ls-files`, `ls -l` listings and `tree` drawings.

    __init__.py    `detect`: lines of paths, `ls -l` entries or a `tree` drawing
    optimizer.py      a listing folded into a short tree, or shown as printed
    parse.py          the listing's model: its limits, folders, notable files
    summary.py        the summary view: header, notable files, a folder tree in a budget
    printed.py        listings shown as printed, set-aside folders folded to one line
    long_listing.py   `ls -l`/`ls -lR` listings and `tree` drawings (also used by text/)
"""

from __future__ import annotations


def detect(data: bytes, sample: bytes) -> str | None:
    from tokenlab.optimizers.file_list.long_listing import looks_like_long_listing, looks_like_tree
    from tokenlab.optimizers.file_list.optimizer import looks_like_file_list

    if looks_like_file_list(sample):
        return "most lines are file paths"
    if looks_like_long_listing(sample):
        return "most lines are `ls -l` entries"
    if looks_like_tree(sample):
        return "a `tree` drawing of paths"
    return None
