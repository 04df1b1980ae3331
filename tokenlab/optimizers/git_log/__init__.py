"""The git log family: `git log` (plain, `--stat`, `-p`, `--format=fuller`), `git show`, and
`git diff --stat`.

    __init__.py    `detect`: commit lines with headers, or a `--stat` listing
    optimizer.py   one line per commit under a heading per day; a single commit's patch
                   through the diff family
    parse.py       whether an input is a git log, and its commits read as offsets
    stat.py        `--stat` listings: `path | N +-` lines and their summary
"""

from __future__ import annotations


def detect(data: bytes, sample: bytes) -> str | None:
    from tokenlab.optimizers.git_log.parse import looks_like_git_log
    from tokenlab.optimizers.git_log.stat import looks_like_stat_listing

    if looks_like_git_log(sample):
        return "git log or git show: commit lines with headers or hashes"
    if looks_like_stat_listing(data):
        return "git diff --stat: `path | N +-` lines and a files-changed summary"
    return None
