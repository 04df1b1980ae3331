"""The file-list family: `find`, `fd`, `git ls-files`, `ls -l` listings and `tree` drawings.

    optimizer.py      a listing folded into a short tree, or shown as printed
    parse.py          the listing's model: its limits, folders, notable files
    summary.py        the summary view: header, notable files, a folder tree in a budget
    printed.py        listings shown as printed, set-aside folders folded to one line
    long_listing.py   `ls -l`/`ls -lR` listings and `tree` drawings (also used by text/)
"""
