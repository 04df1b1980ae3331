"""JSON optimizer: keep the structure and the decision fields, fold the bulk behind refs.

What an agent needs from a JSON document is its shape and the fields it decides on (ids,
names, statuses, errors, versions); telemetry, traces, padding, long arrays and long
strings are what make it expensive. `layout` decides what stays; this module is the
optimizer contract around it: validate, lay out, turn segments into parts. Whatever stays
visible is byte-identical to the input, and each folded value is replaced *at its field
position* by a JSON string holding its marker, e.g. `"telemetry": "{412 keys} #ref:ctx_…"`,
so the visible text still reads, and parses, as JSON.

Input that is not one valid JSON document is shown whole: guessing at the structure of
broken JSON would risk hiding the part that explains why it broke. The exception is a
document cut short, valid up to the input's end: `cut.py` says where it stops and shows
its start and its end.
"""

from __future__ import annotations

import orjson

from tokenlab.optimizers import Omission, OptimizerConfig, OptimizeResult, Part, visible
from tokenlab.optimizers.json_doc import cut as json_cut
from tokenlab.optimizers.json_doc import scan as json_scan
from tokenlab.optimizers.json_doc.config import DEFAULT_CONFIG, JsonDocConfig
from tokenlab.optimizers.json_doc.layout import laid_out, plan
from tokenlab.optimizers.json_doc.segments import Keep, Omit, Segment, Text

__all__ = [
    "JsonDocConfig",
    "Keep",
    "Omit",
    "Segment",
    "Text",
    "looks_like_json",
    "optimize",
    "plan",
]


def looks_like_json(data: bytes) -> bool:
    """True when `data` is exactly one valid JSON document, however deeply nested."""
    try:
        orjson.loads(data)
        return True
    except orjson.JSONDecodeError as error:
        if "depth" not in str(error) and "recursion" not in str(error):
            return False
    try:
        return json_scan.is_valid_document(data.decode("utf-8"))
    except UnicodeDecodeError:
        return False


def optimize(
    data: bytes, config: OptimizerConfig, doc_config: JsonDocConfig = DEFAULT_CONFIG
) -> OptimizeResult:
    text = _decode_valid_json(data)
    if text is None:
        return _cut_short(data) or OptimizeResult((visible(data),) if data else ())
    laid = laid_out(text, config, doc_config)
    if laid is None:
        # Not one valid JSON document: show it whole rather than guess at its structure.
        return OptimizeResult((visible(data),) if data else ())
    segments, signals = laid
    return OptimizeResult(to_parts(text, segments), signals)


def _cut_short(data: bytes, limits: json_cut.CutLimits = json_cut.DEFAULT_LIMITS) -> OptimizeResult | None:
    """A document cut short, laid out from where it starts to where it stops (`cut.py`)."""
    if len(data) < limits.min_bytes or not json_cut.ends_early(data):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    cut = json_cut.read_cut(text)
    if cut is None:
        return None
    parts, note = json_cut.cut_parts(text, cut, limits)
    return OptimizeResult(tuple(parts), (note,))


def _decode_valid_json(data: bytes) -> str | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if looks_like_json(data):
        return text
    return None


def to_parts(text: str, segments: list[Segment]) -> tuple[Part, ...]:
    parts: list[Part] = []
    pending: list[str] = []
    for segment in segments:
        if isinstance(segment, Keep):
            pending.append(text[segment.start : segment.end])
        elif isinstance(segment, Text):
            pending.append(segment.text)
        else:
            if pending:
                parts.append("".join(pending))
                pending = []
            omitted = text[segment.start : segment.end].encode("utf-8")
            parts.append(Omission(omitted, segment.reason))
    if pending:
        parts.append("".join(pending))
    return tuple(parts)
