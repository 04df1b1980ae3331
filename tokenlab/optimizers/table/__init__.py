"""The table family: CSV, TSV, `;`-separated records, and aligned tables as psql prints them.

    __init__.py    `detect`: an aligned table, or a header and records of equal field count
    optimizer.py   header, a census per column, the first and the anomalous rows
    aligned.py     aligned tables (`---+---` rule, `|` columns, `(N rows)`), also found
                   inside YAML by the YAML family
    cells.py       a one-column value that is a JSON document, laid out as JSON
"""

from __future__ import annotations


def detect(data: bytes, sample: bytes) -> str | None:
    from tokenlab.optimizers.table.aligned import looks_aligned
    from tokenlab.optimizers.table.optimizer import sniff

    if looks_aligned(sample):
        return "aligned tables: a header, a ---+--- rule under it, rows in | columns"
    delimiter = sniff(sample)
    if delimiter is not None:
        return f"a header row and records of equal field count split by {delimiter!r}"
    return None
