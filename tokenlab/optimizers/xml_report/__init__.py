"""The XML family: test and lint reports (JUnit/surefire, checkstyle) and other XML.

    __init__.py    `detect`: `<` first, then one well-formed document
    optimizer.py    failing testcases and their suites kept, runs of passing ones behind refs;
                    other XML folds long runs of same-tag siblings
    checkstyle.py   checkstyle reports read as diagnostics and grouped as a log's lines
    scan.py         the scanner: `Element`s with byte offsets, entities never expanded
"""

from __future__ import annotations


def detect(data: bytes, sample: bytes) -> str | None:
    if sample.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] != b"<":
        return None
    from tokenlab.mapped import as_bytes
    from tokenlab.optimizers.xml_report.optimizer import looks_like_xml

    if looks_like_xml(as_bytes(data)):  # a mapped input is parsed as bytes
        return "one well-formed XML document"
    return None
