"""The JSON family: one JSON document (an API response, a linter's findings, a config).

    __init__.py    `detect`: `{` or `[` first, then one JSON document (or one cut short)
    optimizer.py   decision fields kept byte for byte, bulky values behind refs
    layout.py      the document laid out within its limits: what stays, what folds
    arrays.py      its arrays: which items show (whole, one line each, anomalies), what folds
    config.py      its limits (`JsonDocConfig`)
    segments.py    what a layout is made of (kept, omitted, added) and its labels
    compact.py     arrays of records shown one line per item
    cut.py         a document cut short: where it stops, its top level, its start and end
    findings.py    linter findings grouped by rule, each with its message
    records.py     how a record's keys read: names, statuses, failures (also used by
                   the XML and YAML families)
    scan.py        the byte-level scanner: values and their spans, never re-serialised
"""

from __future__ import annotations


_JSON_WHITESPACE = b" \t\r\n"


def detect(data: bytes, sample: bytes) -> str | None:
    head = sample.lstrip()[:1]
    if head not in (b"{", b"["):
        return None
    if _first_line_ends_a_document(sample):
        return None
    from tokenlab.mapped import as_bytes
    from tokenlab.optimizers.json_doc.optimizer import looks_like_json

    whole = as_bytes(data)  # a mapped input is parsed as bytes
    if looks_like_json(whole):
        return "parses as one JSON document"
    from tokenlab.optimizers.json_doc.cut import ends_early

    if ends_early(whole):
        return "one JSON document cut short: it parses up to the input's end"
    return None


def _first_line_ends_a_document(sample: bytes) -> bool:
    """Whether the first line is a whole JSON document and more than whitespace follows it
    (JSON lines, one record per line): then the input is not one document, as a parser
    reads the same first value and meets the rest after it. Known from the sample, so a
    large input is neither parsed nor copied to find out."""
    first, newline, rest = sample.partition(b"\n")
    if not newline or not rest.strip(_JSON_WHITESPACE):
        return False
    import orjson

    try:
        orjson.loads(first)
    except orjson.JSONDecodeError:  # not a document by itself (or nested past orjson's depth)
        return False
    return True
