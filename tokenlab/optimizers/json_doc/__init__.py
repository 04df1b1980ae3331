"""The JSON family: one JSON document (an API response, a linter's findings, a config).

    __init__.py    `detect`: `{` or `[` first, then one JSON document
    optimizer.py   decision fields kept byte for byte, bulky values behind refs
    layout.py      the document laid out within its limits: what stays, what folds
    compact.py     arrays of records shown one line per item
    findings.py    linter findings grouped by rule, each with its message
    records.py     how a record's keys read: names, statuses, failures (also used by
                   the XML and YAML families)
    scan.py        the byte-level scanner: values and their spans, never re-serialised
"""

from __future__ import annotations


def detect(data: bytes, sample: bytes) -> str | None:
    head = sample.lstrip()[:1]
    if head not in (b"{", b"["):
        return None
    from tokenlab.mapped import as_bytes
    from tokenlab.optimizers.json_doc.optimizer import looks_like_json

    if looks_like_json(as_bytes(data)):  # a mapped input is parsed as bytes
        return "parses as one JSON document"
    return None
