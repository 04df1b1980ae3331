"""The text family: the fallback for whatever no other family recognises.

    __init__.py    `detect`: recognises anything (it is asked last)
    optimizer.py   a document's structure kept, bodies behind refs; status fields,
                   counts, failure lines and the last line verbatim
    config.py      its limits and the words it keeps lines for
    document.py    a document's headings, fences, record blocks and signals; each
                   line's state in the outline
    outliner.py    the per-line rules of prose: what a line is, whether it stays
    listings.py    long folded listings sampled, a series' rare member lines kept
    listing_counts.py  what a folded listing's note counts: values, names, sizes
    long_line.py   a long kept line cut after its first sentence
    signal_words.py  where signal and failure words stand, names set aside
    line_states.py the per-line states and their runs
    records.py     lines that are records of one shape (`ps`, `env`, `du`), folded as such
    record_shapes.py  which record shape a listing has, and its limits
    render.py      the spans of a document rendered, small folds unfolded
    sizes.py       the largest size an outlined listing's folds hide, said once under it
"""

from __future__ import annotations


def detect(data: bytes, sample: bytes) -> str | None:
    return "no structure recognised: plain text" if data else "empty input"
