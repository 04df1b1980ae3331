"""The search results family: hit lists of grep -rn, git grep -n, rg, ack and ag.

    __init__.py    `detect`: `path:12:text` hits (with `-A/-B/-C` context), rg's
                   `--heading` form, or `path:3` counts
    parse.py       the model: each printed line's file, number and span; the limits
    names.py       the searched name inferred from the hits, the lines that define it,
                   and which paths are tests or docs
    optimizer.py   every file named with its hit count, definitions first, sources before
                   tests, the further hits behind one ref (COARSE) or each file's (FINE)
    views.py       each file as shown at a cap of hits; files that show nothing share a line

`-l` listings (paths only) are file lists, read by the file_list family.
"""

from __future__ import annotations


def detect(data: bytes, sample: bytes) -> str | None:
    from tokenlab.optimizers.search_results.optimizer import form_of_input

    form = form_of_input(data)  # reads the same first 64 KB as `sample`, minding a cut line
    if form is None:
        return None
    return f"search results: {form.value} hit lines"
