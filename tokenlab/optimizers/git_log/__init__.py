"""The git log family: `git log` (plain, `--stat`, `-p`, `--format=fuller`), `git show`, and
`git diff --stat`.

    optimizer.py   one line per commit under a heading per day; a single commit's patch
                   through the diff family
    stat.py        `--stat` listings: `path | N +-` lines and their summary
"""
