"""A large input of JSON lines (one object a line), folded by shape with bounded state.

JSON lines are plain text to the classifier (the JSON family takes one document), and the
text outline splits its input into a list of lines and reads them over several passes:
at 100 MB that held the input about nine times over. JSON lines of `min_bytes` or more
(the size from which the pipeline maps an input, `tokenlab/mapped.py`) are read here
instead, once, a chunk at a time, a mapping's pages given back as it goes; read or
mapped, the result is the same. What it keeps does not grow with the input:

- per shape (a record's top-level keys in order, and the failure word of a short
  top-level value such as `"status": "failed"`, if any): how many lines have it and
  where its first `shown_per_shape` lines are; past `max_shapes` shapes the input is no
  series of records and the text outline reads it after all;
- per top-level field, while it has at most `value_kinds` distinct short scalar values:
  how many lines hold each (`status: "succeeded" ×185,213, "failed" ×186`).

Visible: one header line counting the lines, their shapes and those values; then the
first lines of each shape, whole up to `line_bytes` (a record of another shape, such as
a failure with an `error` field, is what a reader looks for among alike records), and
between them one fold line per run of lines left out. The folded lines are input ranges
(`InputSlices`), never copied: FINE stores each run behind its fold line, COARSE all of
them behind one ref at the end. Smaller inputs keep the text outline.

`raw` is `bytes` or a mapping (`mmap`), read alike: slices, `find` and item access.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import orjson

from tokenlab.counting.runs import InputSlices
from tokenlab.mapped import MAPPED_BYTES, let_go
from tokenlab.optimizers import Granularity, Omission, OptimizerConfig, OptimizeResult, Part, Span, visible
from tokenlab.patterns import compile_on_use


@dataclass(frozen=True)
class JsonLinesConfig:
    min_bytes: int = MAPPED_BYTES  # smaller inputs keep the text outline (they are read, not mapped)
    shown_per_shape: int = 2  # the first lines of each shape shown whole
    max_shapes: int = 64  # more shapes than this: no series of records
    value_kinds: int = 8  # a field with at most this many distinct short values is counted per value
    value_chars: int = 40  # longer values are data, not a state
    fields_counted: int = 64  # fields whose values are counted, at most
    shapes_described: int = 6  # shapes named in the header; the rest are counted
    keys_described: int = 12  # keys named per shape
    fields_described: int = 12  # few-valued fields whose values are counted in the header
    line_bytes: int = 2000  # a shown line longer than this is cut, the rest folded
    sample_bytes: int = 1 << 16  # read to decide whether the input is JSON lines
    chunk_bytes: int = 1 << 20  # read at a time


DEFAULT_LIMITS = JsonLinesConfig()

# A short value that says a record failed: `"status": "failed"`, `"level": "ERROR"`.
_FAILURE_VALUE_RE = compile_on_use(
    r"(?i)(?:error|err|fail|failed|failure|fatal|critical|crit|panic|aborted|abort|killed|timeout|timed out|crashed)"
)
_NOT_AN_OBJECT = ("(not a JSON object)",)

Shape = tuple[tuple[str, ...], str]  # top-level keys, and the failure value if any


@dataclass
class _ShapeCensus:
    lines: int = 0
    shown: list[int] = field(default_factory=list)  # line numbers


@dataclass
class _Census:
    """What the pass over the input keeps: bounded by the number of shapes and fields."""

    lines: int = 0
    shapes: dict[Shape, _ShapeCensus] = field(default_factory=dict)
    values: dict[str, Counter[str]] = field(default_factory=dict)
    varied: set[str] = field(default_factory=set)  # fields with too many distinct values
    shown: list[tuple[int, int, int]] = field(default_factory=list)  # (line, start, end)


def looks_like_json_lines(raw: bytes, limits: JsonLinesConfig = DEFAULT_LIMITS) -> bool:
    """Whether the input is `min_bytes` or more and its first lines (at least two, in its
    first `sample_bytes`) are each one JSON object."""
    if len(raw) < limits.min_bytes:
        return False
    sample = raw[: limits.sample_bytes]
    lines = [line for line in sample.split(b"\n")[:-1] if line.strip()]
    return len(lines) >= 2 and all(_parsed_object(line) is not None for line in lines)


def fold_json_lines(
    raw: bytes, config: OptimizerConfig, limits: JsonLinesConfig = DEFAULT_LIMITS
) -> OptimizeResult | None:
    """The input folded by shape, or None when it has more than `max_shapes` shapes."""
    census = _census(raw, limits)
    if census is None:
        return None
    parts = tuple(_parts(raw, census, config.granularity, limits))
    return OptimizeResult(parts, signals=_failing_lines(raw, census, limits))


def _failing_lines(raw: bytes, census: _Census, limits: JsonLinesConfig) -> tuple[str, ...]:
    """The shown lines of each shape holding a failure value, those shown whole: the records
    a reader looks for first among alike ones, which the SIGNAL stage checks are visible."""
    failing = {number for shape, counted in census.shapes.items() if shape[1] for number in counted.shown}
    return tuple(
        visible(raw[start:end]).strip()
        for number, start, end in sorted(census.shown)
        if number in failing and end - start <= limits.line_bytes
    )


def _lines(raw: bytes, limits: JsonLinesConfig) -> Iterator[tuple[int, bytes]]:
    """(start offset, line without its LF) of each line, read a chunk at a time."""
    start = 0
    while start < len(raw):
        end = raw.find(b"\n", min(start + limits.chunk_bytes, len(raw))) + 1 or len(raw)
        chunk = raw[start:end]
        let_go(raw, start, end)
        offset = start
        for line in chunk.split(b"\n")[: -1 if chunk.endswith(b"\n") else None]:
            yield offset, line
            offset += len(line) + 1
        start = end


def _census(raw: bytes, limits: JsonLinesConfig) -> _Census | None:
    census = _Census()
    for number, (start, line) in enumerate(_lines(raw, limits)):
        record = _parsed_object(line)
        shape = _shape(record, limits) if record is not None else (_NOT_AN_OBJECT, "")
        counted = census.shapes.get(shape)
        if counted is None:
            if len(census.shapes) == limits.max_shapes:
                return None
            counted = census.shapes[shape] = _ShapeCensus()
        counted.lines += 1
        if len(counted.shown) < limits.shown_per_shape:
            counted.shown.append(number)
            census.shown.append((number, start, start + len(line)))
        if record is not None:
            _count_values(census, record, limits)
        census.lines = number + 1
    return census


def _parsed_object(line: bytes) -> dict[str, object] | None:
    try:
        parsed = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _shape(record: dict[str, object], limits: JsonLinesConfig) -> Shape:
    failure = next(
        (
            value
            for value in record.values()
            if isinstance(value, str)
            and len(value) <= limits.value_chars
            and _FAILURE_VALUE_RE.fullmatch(value)
        ),
        "",
    )
    return tuple(record), failure


def _count_values(census: _Census, record: dict[str, object], limits: JsonLinesConfig) -> None:
    """Count each short scalar value per field, until a field has too many to be a state."""
    for key, value in record.items():
        if key in census.varied:
            continue
        counts = census.values.get(key)
        if counts is None:
            if len(census.values) + len(census.varied) >= limits.fields_counted:
                continue
            counts = census.values[key] = Counter()
        shown = _scalar(value, limits)
        if shown is None or (shown not in counts and len(counts) == limits.value_kinds):
            census.varied.add(key)
            del census.values[key]
            continue
        counts[shown] += 1


def _scalar(value: object, limits: JsonLinesConfig) -> str | None:
    """A scalar value as JSON, if short; None for containers, floats and long strings."""
    if isinstance(value, dict | list | float):
        return None
    shown = orjson.dumps(value).decode()
    return shown if len(shown) <= limits.value_chars else None


def _parts(raw: bytes, census: _Census, granularity: Granularity, limits: JsonLinesConfig) -> Iterator[Part]:
    """The header, the shown lines and a fold line for each run of lines between them."""
    yield _header(census, limits) + "\n"
    folded: list[Span] = []
    previous_line, previous_end = -1, 0
    for number, start, end in sorted(census.shown):
        if number > previous_line + 1:
            yield from _fold(raw, [(previous_end, start)], number - previous_line - 1, granularity, folded)
        cut = _cut(raw, start, end, limits)
        yield visible(raw[start:cut])
        if cut < end:
            yield " …"
            yield from _folded_rest(raw, (cut, end), granularity, folded)
        yield "\n"
        previous_line, previous_end = number, min(end + 1, len(raw))
    if census.lines > previous_line + 1:
        yield from _fold(
            raw, [(previous_end, len(raw))], census.lines - previous_line - 1, granularity, folded
        )
    if folded and granularity is Granularity.COARSE:
        yield "[folded lines: "
        yield Omission(InputSlices(raw, folded), "JSON lines alike the lines shown")
        yield "]\n"


def _fold(
    raw: bytes, spans: list[Span], lines: int, granularity: Granularity, folded: list[Span]
) -> Iterator[Part]:
    """One fold line for a run of lines; FINE stores the run behind it, COARSE at the end."""
    yield f"[… {lines:,} lines]"
    if granularity is Granularity.FINE:
        yield " "
        yield Omission(InputSlices(raw, spans), "JSON lines alike the lines shown")
    else:
        folded.extend(spans)
    yield "\n"


def _folded_rest(raw: bytes, span: Span, granularity: Granularity, folded: list[Span]) -> Iterator[Part]:
    """The rest of a cut line: FINE stores it behind the line, COARSE at the end."""
    if granularity is Granularity.FINE:
        yield " "
        yield Omission(InputSlices(raw, [span]), "the rest of a long JSON line")
    else:
        folded.append(span)


def _cut(raw: bytes, start: int, end: int, limits: JsonLinesConfig) -> int:
    """Where a shown line is cut: its end, or before `line_bytes` at a UTF-8 boundary."""
    if end - start <= limits.line_bytes:
        return end
    cut = start + limits.line_bytes
    while cut > start and raw[cut] & 0xC0 == 0x80:
        cut -= 1
    return cut


def _header(census: _Census, limits: JsonLinesConfig) -> str:
    """`[N JSON lines, K shapes: …; field: value ×count, …]`."""
    shapes = sorted(census.shapes.items(), key=lambda item: -item[1].lines)
    described = [
        f"{counted.lines:,} × {_described(shape, limits)}"
        for shape, counted in shapes[: limits.shapes_described]
    ]
    if len(shapes) > limits.shapes_described:
        rest = sum(counted.lines for _shape, counted in shapes[limits.shapes_described :])
        described.append(f"{rest:,} of {len(shapes) - limits.shapes_described} other shapes")
    plural = "" if len(shapes) == 1 else "s"
    header = f"[{census.lines:,} JSON lines, {len(shapes)} shape{plural}: {'; '.join(described)}"
    states = [
        f"{key}: " + ", ".join(f"{value} ×{count:,}" for value, count in counts.most_common())
        for key, counts in census.values.items()
        if len(counts) > 1
    ][: limits.fields_described]
    return header + (". " + "; ".join(states) if states else "") + "]"


def _described(shape: Shape, limits: JsonLinesConfig) -> str:
    keys, failure = shape
    if keys == _NOT_AN_OBJECT:
        return keys[0]
    named = ", ".join(keys[: limits.keys_described]) + (", …" if len(keys) > limits.keys_described else "")
    return "{" + named + "}" + (f" ({failure})" if failure else "")
