"""The text family: the fallback for whatever no other family recognises.

    __init__.py    `detect`: recognises anything (it is asked last)
    optimizer.py   a document's structure kept, bodies behind refs; status fields,
                   counts, failure lines and the last line verbatim
    records.py     lines that are records of one shape (`ps`, `env`, `du`), folded as such
    render.py      the spans of a document rendered, small folds unfolded
    sizes.py       the largest size an outlined listing's folds hide, said once under it
"""

from __future__ import annotations


def detect(data: bytes, sample: bytes) -> str | None:
    return "no structure recognised: plain text" if data else "empty input"
