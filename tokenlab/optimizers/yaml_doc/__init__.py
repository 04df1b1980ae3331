"""The YAML family: CI configs, Kubernetes documents, any `key: value` document.

    __init__.py    `detect`: key: value and - item lines, not a list of diagnostics
    optimizer.py   key paths and decision fields verbatim; long block scalars and bulky
                   fields behind refs; lists of similar items compact
"""

from __future__ import annotations

import re

from tokenlab.patterns import compile_on_use

# A diagnostic's location leading a line: `src/a.c:12:`, `lib/a.js: line 3, col 5,`. A file
# of these with one problem per file parses as YAML (`path: message`); it is tool output.
_DIAGNOSTIC_RE = compile_on_use(rb"^\S+\.\w+(?::\d+[:,]|: line \d+, col(?:umn)? \d+,)", re.MULTILINE)


def detect(data: bytes, sample: bytes) -> str | None:
    if b":" not in sample:
        return None
    if len(_DIAGNOSTIC_RE.findall(sample)) * 2 > sample.count(b"\n"):
        return None
    from tokenlab.optimizers.yaml_doc.optimizer import looks_like_yaml

    if looks_like_yaml(sample):
        return "key: value and - item lines with consistent indentation"
    return None
