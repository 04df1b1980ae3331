"""Multi-line records folded: each shape's first record whole, the others one group line.

A block between blank lines, rules or repeated headlines that reads as a record (`_structured`)
is grouped with the blocks of its skeleton (`lines.families`); a shape seen often enough
shows its first record whole and one group line naming every other record's varying
values. A record of another skeleton (another error, another assertion) is another shape
and stays whole, and a few failures that differ in more than a name are each read whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from tokenlab.counting.runs import InputSlices
from tokenlab.mapped import line_count
from tokenlab.optimizers import Granularity, Omission, Part, Span, join_literals, visible
from tokenlab.optimizers.lines import bounds
from tokenlab.optimizers.lines.families import Family, family, kin, kin_family, skeleton
from tokenlab.optimizers.lines.shapes import is_failure, is_location
from tokenlab.patterns import compile_on_use


@dataclass(frozen=True)
class RecordLimits:
    """When records fold: a shape seen this often, an input this small (every line is split
    into slots), and folding that pays for itself."""

    min_records: int = 3
    max_input_bytes: int = 1 << 20
    # Folded records must hold at least this share of the input: else the input is read
    # by its family's own rules, and records are only part of it.
    min_folded_share: float = 0.5
    # A group line costs at most this share of the bytes it stands for.
    max_line_share: float = 0.5
    # Failing records of one shape, this many or fewer, that differ in more than one value
    # are each shown whole (`_reports_failure`); more of them fold like other records.
    whole_failures: int = 5
    # Records may also be headed by a repeated headline, with no blank line between them
    # (`Lines.headline_blocks`): for plain text; a structured document's family (YAML's
    # list of objects) has its own rules for its items.
    by_headline: bool = False


DEFAULT_LIMITS = RecordLimits()
# Plain text: records between blank lines or rules, or headed by a repeated headline.
TEXT_LIMITS = RecordLimits(by_headline=True)

_ANSI_RE = compile_on_use(rb"\x1b\[[0-?]*[ -/]*[@-~]")


def fold_records(
    data: bytes, granularity: Granularity = Granularity.FINE, limits: RecordLimits = DEFAULT_LIMITS
) -> tuple[Part, ...] | None:
    """The input with each shape of multi-line record (blocks between blank lines or
    document separators that are `_structured`, of one skeleton, seen `min_records` times
    or more, not all alike) shown by its first record whole and one group line where its
    second stood, listing every other record's varying values as a row (`Family.said`);
    the separators after a folded record fold with it. In the blocks left, lines of one
    skeleton (`terraform_data.x[3]: Creating...`, a list's items) fold the same way, each
    line a record (`_line_groups`). None unless folded records make up most of the input.
    COARSE: one ref, on a first line, holds every folded line; FINE: one ref per group."""
    if len(data) > limits.max_input_bytes or b"\n" not in data:
        return None
    if limits.min_records > 2 and not bounds.may_hold_records(data, limits.by_headline):
        return None  # one block, or two after a leading separator: no record repeats
    lines = bounds.split_lines(data, _newlines(data))
    best: _Folding | None = None
    def headline(at: int) -> tuple[str, ...]:
        return skeleton([_text(data[lines.texts[at] : lines.ends[at]])])

    headed = lines.headline_blocks(data, headline, limits.min_records) if limits.by_headline else []
    for blocks in (lines.blank_blocks(), lines.ruled_blocks(), headed):
        found = _folding(data, lines, blocks, limits)
        if found is not None and (best is None or found.cost < best.cost):
            best = found
    if best is None or not best.groups or best.folded + best.failing < limits.min_folded_share * len(data):
        return None
    groups = list(best.groups)
    for number, (first, last) in enumerate(best.blocks):
        if number in best.said_whole:
            continue
        for low, high in lines.paragraphs(first, last):  # a ruled record's paragraphs apart
            texts = best.texts[number][low - first : high - first]
            groups += _line_groups(texts, lines.starts[low:high], lines.ends[low:high], limits)
    return parts_with_groups(data, groups, granularity)


@dataclass(frozen=True)
class _Folding:
    """The input's blocks, their texts (read through the lines' prefix), the groups their
    families fold into, the blocks folded or shown whole as the first of their family or
    as failing records, the bytes folded, and the bytes of the failing records kept whole
    (records too, to tell whether records make up most of the input)."""

    blocks: list[tuple[int, int]]
    texts: list[list[str]]
    groups: list[Group]
    said_whole: set[int]
    folded: int
    failing: int = 0

    @property
    def cost(self) -> int:
        """What is left to read, less the input's length (the same for every way of cutting
        it into blocks): the group lines' bytes, less the bytes folded."""
        return sum(len(group.line.encode()) for group in self.groups if group.line) - self.folded


def _folding(data: bytes, lines: bounds.Lines, blocks: list[tuple[int, int]], limits: RecordLimits) -> _Folding | None:
    """The families of `blocks` that fold (`_structured` blocks of one skeleton, seen
    `min_records` times or more, not all alike, their group line short enough); None
    when there are too few blocks. A folded record's extent runs to the next block, so
    that the separators after it fold with it."""
    if len(blocks) < limits.min_records:
        return None
    starts, ends = lines.starts, lines.ends
    texts = [[_text(data[lines.texts[i] : ends[i]]) for i in range(first, last)] for first, last in blocks]
    # A record's bytes, with the separators after it up to the next record (a box's
    # opening corner line goes with the record it opens).
    extent = [
        (_opened_at(data, lines, first), _opened_at(data, lines, following[0]))
        for (first, _), following in zip(blocks, blocks[1:])
    ]
    extent.append((_opened_at(data, lines, blocks[-1][0]), len(data)))
    groups: list[Group] = []
    said_whole: set[int] = set()
    failing = 0
    structured = [number for number, block in enumerate(texts) if _structured(block)]
    failing_blocks = [number for number, block in enumerate(texts) if _fails(block)]
    for shape, fold in ((skeleton, family), (kin, kin_family)):
        by_shape: dict[tuple[str, ...], list[int]] = {}
        for number in structured:
            if number not in said_whole:
                by_shape.setdefault(shape(texts[number]), []).append(number)
        strays = _strays_by_kin(by_shape, texts, limits) if fold is family else {}
        for members in (run for alike in by_shape.values() for run in _runs_between(alike, failing_blocks)):
            if len(members) < limits.min_records:
                continue
            found = fold([texts[number] for number in members])
            if found is None:
                continue
            members, found = _with_strays(members, found, strays, texts)
            if len(found.varying) > 1 and len(members) <= limits.whole_failures and _reports_failure(found):
                said_whole.update(members)  # a few failures that differ in more than a name: each is read
                failing += sum(end - start for start, end in (extent[number] for number in members))
                continue
            folded, at = members[1:], extent[members[1]][0]
            above = [group.line for group in groups if group.line and group.at < at]
            line = found.said(_telling_lines(found, named=fold is kin_family), above)
            hidden = sum(ends[blocks[n][1] - 1] - starts[blocks[n][0]] for n in folded)
            if line is None or len(line.encode()) > limits.max_line_share * hidden:
                continue
            groups.append(Group(line, [extent[number] for number in folded], at))
            said_whole.update(members)
    folded_bytes = sum(end - start for group in groups for start, end in group.spans)
    return _Folding(blocks, texts, groups, said_whole, folded_bytes, failing)


def _runs_between(members: list[int], failing_blocks: list[int]) -> list[list[int]]:
    """Records of one shape cut where a failing record of another shape lies between them:
    a group line stands where its first record was, so records after a failure folded into
    a group before it would read as having come before it (what a build did after an error
    is part of what the reader asks). Each run folds on its own."""
    runs: list[list[int]] = [[members[0]]]
    others = iter(number for number in failing_blocks if number > members[0])
    failure = next(others, None)
    for number in members[1:]:
        cut = False
        while failure is not None and failure < number:
            cut = cut or failure not in members
            failure = next(others, None)
        if cut:
            runs.append([])
        runs[-1].append(number)
    return runs


def _strays_by_kin(
    by_shape: dict[tuple[str, ...], list[int]], texts: list[list[str]], limits: RecordLimits
) -> dict[tuple[str, ...], list[int]]:
    """The records whose skeleton is seen too few times to fold, by their `kin`."""
    strays: dict[tuple[str, ...], list[int]] = {}
    for members in by_shape.values():
        if len(members) < limits.min_records:
            for number in members:
                strays.setdefault(kin(texts[number]), []).append(number)
    return strays


def _with_strays(
    members: list[int], found: Family, strays: dict[tuple[str, ...], list[int]], texts: list[list[str]]
) -> tuple[list[int], Family]:
    """`members` with the `strays` of their kin, which differ from them in names only
    (`LOG_LEVEL: debug` among `LOG_LEVEL: info`), so that the group line names the odd
    value beside the record holding it, as it does an odd number. Failures take no strays:
    a record reporting another error stays whole."""
    kind = kin(texts[members[0]])
    if kind not in strays or _reports_failure(found):
        return members, found
    joined = sorted([*members, *strays[kind]])
    merged = kin_family([texts[number] for number in joined])
    if merged is None or _reports_failure(merged):
        return members, found
    del strays[kind]
    return joined, merged


def _opened_at(data: bytes, lines: bounds.Lines, first: int) -> int:
    """Where the record whose first line is `first` starts: at the box's opening corner
    line before it, if one opens it."""
    before = first - 1
    if before >= 0 and bounds.opens_box(data, lines.starts[before], lines.ends[before]):
        return lines.starts[before]
    return lines.starts[first]


def _telling_lines(found: Family, named: bool) -> list[int]:
    """The lines of a family's first record shown as templates with its headline, so that
    each record's values are read in their line: its failure lines that vary (`assertion
    failed: max_err <= 3 (max_err=# at sample #)`), its lines whose location varies (`at
    #: worker (racy.c:#)`: where each record is) and, with `named`, its lines whose
    varying values hold a name (no digit: `at #: bump_req_get (race.c:#)`)."""
    first = found.split[0]
    varying = {at for at, _ in found.varying}
    failing = {at for at in varying if _tells_why("".join(_joined(*first[at])))}
    naming = {at for at, p in found.varying if named and not any(c.isdigit() for c in first[at][1][p])}
    locating = {at for at, p in found.varying if _locates(*first[at], p)}
    return sorted(failing | naming | locating)


# A file's name right before a value: the value is its line (`(racy.c:` then `6`).
_FILE_BEFORE_RE = compile_on_use(r"[\w./\-]\.[A-Za-z]\w{0,9}:$")


def _locates(constants: list[str], values: list[str], position: int) -> bool:
    """Whether a line's value at `position` is a location, or the line number of the file
    named right before it."""
    return is_location(values[position]) or _FILE_BEFORE_RE.search(constants[position][-32:]) is not None


# A failed check's line, beside the failure lines of `shapes.is_failure`.
_ASSERTION_RE = compile_on_use(r"\bassert(?:ion)?\b", re.IGNORECASE)
# A record's label saying it failed (`Failed example:`, `Failure in test x`).
_FAILED_LABEL_RE = compile_on_use(r"^\W*(?:Failed|Failure|Failing)\b")


def _reports_failure(found: Family) -> bool:
    """Whether a family's records report a failure (an error line, a failed check, a
    `Failed …` label). A few such records are folded only when they differ from the first
    in one value (the name of what failed: `worker-23`), which a group line names as
    plainly as the record does; ones differing in more (what was expected, what was got,
    where) are kept whole, neither said as rows of a table nor folded line by line."""
    return _fails(found.records[0])


def _fails(record: Sequence[str]) -> bool:
    """Whether a record reports a failure: an error line, a failed check, a `Failed …` label."""
    return any(_tells_why(line) or _FAILED_LABEL_RE.match(line) for line in record)


def _tells_why(line: str) -> bool:
    return is_failure(line) or _ASSERTION_RE.search(line) is not None


def _joined(constants: list[str], values: list[str]) -> list[str]:
    return [text for pair in zip(constants, [*values, ""], strict=True) for text in pair]


def _line_groups(texts: list[str], starts: list[int], ends: list[int], limits: RecordLimits) -> list[Group]:
    """A block's lines of one skeleton, `min_records` or more, each one a record. The
    first in natural order stays (`worker[0]` before `worker[2]`, whatever order they came
    in: the one a reader asks for first), and one group line after it stands for the
    others (without values when they are all alike)."""
    by_skeleton: dict[tuple[str, ...], list[int]] = {}
    for at, text in enumerate(texts):
        by_skeleton.setdefault(skeleton([text]), []).append(at)
    groups: list[Group] = []
    for members in by_skeleton.values():
        if len(members) < limits.min_records:
            continue
        first = min(members, key=lambda at: _natural(texts[at]))
        members = [first, *(at for at in members if at != first)]
        found = family([[texts[at]] for at in members])
        if found is None:
            continue
        line = found.said()
        hidden = sum(ends[at] - starts[at] for at in members[1:])
        if line is not None and len(line.encode()) > limits.max_line_share * hidden:
            continue
        groups.append(Group(line, sorted((starts[at], ends[at]) for at in members[1:]), ends[first]))
    return groups


_DIGITS_RE = compile_on_use(r"(\d+)")


def _natural(text: str) -> list[tuple[int, str]]:
    """A line's sort key with its numbers read as numbers: `x[2]` before `x[10]`."""
    return [(int(piece), "") if number % 2 else (0, piece) for number, piece in enumerate(_DIGITS_RE.split(text)) if piece]


@dataclass(frozen=True)
class Group:
    """Folded records: the group line (None when they are all alike), their spans of the
    input, and where the group line goes (where the first of them was, or after the
    record shown whole). `label` replaces `×N more like the one above` when the spans are
    no whole records (lines left out of records that stay)."""

    line: str | None
    spans: list[Span]
    at: int
    label: str | None = None


def _structured(lines: list[str]) -> bool:
    """Whether a block reads as a record rather than a paragraph: three lines or more, some
    indented otherwise than its first (a resource's fields, a document's keys, a
    traceback's frames under it; a test's output under its indented `Start` line)."""
    if len(lines) < 3:
        return False
    base = len(lines[0]) - len(lines[0].lstrip())
    return any(len(line) - len(line.lstrip()) != base for line in lines[1:] if line.strip())


def _newlines(data: bytes) -> list[int]:
    found: list[int] = []
    at = data.find(b"\n")
    while at >= 0:
        found.append(at)
        at = data.find(b"\n", at + 1)
    return found


def _text(line: bytes) -> str:
    if b"\x1b" in line:
        line = _ANSI_RE.sub(b"", line)
    return visible(line.rstrip(b"\r\n"))


def parts_with_groups(
    data: bytes, groups: list[Group], granularity: Granularity, kind: str | None = None
) -> tuple[Part, ...]:
    """The input's text with each group's folded spans left out and its line where it goes;
    `kind` names what the spans are (`members`) when they are neither records nor lines."""
    coarse = granularity is Granularity.COARSE
    folded = sorted(span for group in groups for span in group.spans)
    lines_at = {group.at: group for group in groups}  # at most one group line starts a span
    parts: list[Part] = []
    if coarse:
        # Spans are lines when every group leaves lines out of records that stay.
        kind = kind or ("lines" if groups and all(group.label for group in groups) else "records")
        reason = f"all {len(folded):,} folded {kind}, concatenated in original order"
        # The input's lines beside what is folded, as a log's header gives them: a count of
        # records alone reads as the input's size.
        total = line_count(data)
        header = (
            f"[lines: {len(folded):,} of {total:,} folded: "
            if kind == "lines"
            else f"[{kind}: {total:,} lines; {len(folded):,} {kind} folded: "
        )
        parts += [header, Omission(InputSlices(data, folded), reason, tuple(folded)), "]\n"]
    at = 0
    stops = dict(folded)
    for place in sorted({*lines_at, *stops}):
        parts.append(_shown(data[at:place]))
        group = lines_at.get(place)
        if group is not None:
            parts += _group_line(data, group, coarse, kind)
        at = stops.get(place, place)
    parts.append(_shown(data[at:]))
    return tuple(join_literals(parts))


def _shown(kept: bytes) -> str:
    """Kept text as a reader reads it: without colour codes, as group lines are said (the
    input's exact bytes are behind the footer's ref)."""
    return visible(_ANSI_RE.sub(b"", kept) if b"\x1b" in kept else kept)


def _group_line(data: bytes, group: Group, coarse: bool, kind: str | None) -> list[Part]:
    """`[×N more like the one above]` and the group's line; FINE: with the group's own ref."""
    shown = f" {group.line}" if group.line is not None else ""
    said = group.label or f"×{len(group.spans):,} more like the one above"
    if coarse:
        return [f"[{said}]{shown}\n"]
    kind = kind or ("lines" if group.label else "records")
    label = f"{len(group.spans)} {kind} like: {(group.line or '')[:80]}"
    omission = Omission(b"".join(data[a:b] for a, b in group.spans), label, tuple(group.spans))
    return [f"[{said} ", omission, f"]{shown}\n"]
