"""The text family: the fallback for whatever no other family recognises.

    optimizer.py   a document's structure kept, bodies behind refs; status fields,
                   counts, failure lines and the last line verbatim
    records.py     lines that are records of one shape (`ps`, `env`, `du`), folded as such
    render.py      the spans of a document rendered, small folds unfolded
"""
