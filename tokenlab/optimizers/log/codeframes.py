"""Framed diagnostic records in any frame style, read as wholes and grouped by rule.

Many linters print each diagnostic as a block of its own, set apart by blank lines: a
header holding its location (`src/a.js:3:5 lint/rule …`, `error: message (rule) at
src/a.js:3:5:`, `In FILE line 3:`) and a source frame (numbered gutter lines `12 |` or
`12 │`, a `>` on the line pointed at, caret lines `^^^`, `^-- CODE (severity): message`),
often with notes and a fix after it. Folded a line at a time, lines of different records
merge into templates no one can read (`[×305]     |`). Here each record is a whole:

- records are grouped by rule and message: the skeleton (`lines.families`) of the header
  without its location and of its message line, or, when the header is a location only,
  of each labelled caret line (one location can hold several diagnostics);
- the first record of each rule is shown whole, frame and fix included;
- the others fold into one group line per rule, which lists every further location with
  the values of the message that vary, paired, and how many there are.

The pointer shape (a header without its location, a pointer line under it: rustc's and
ruff's `-->`, a drawn frame's corner `,-[a.js:3:5]`, an indented location alone) is read
by `units.pointer_of`.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from dataclasses import dataclass

from tokenlab.optimizers.lines import families, scan
from tokenlab.optimizers.log.model import FOLD, KEEP, Group, GroupKind, Lines, LogLimits, Plan
from tokenlab.patterns import compile_on_use

# A line starting a paragraph at the margin: after a blank line (or the input's start).
# A blank line, from the LF before it (found a slice at a time, `scan.matches`: no LF
# after the first, and a slice's end stands for the LF that follows it); the paragraph
# starts at the line after, if that line starts at the margin.
_BLANK_LINE_RE = compile_on_use(rb"\n[ \t]*\r?(?=\n|\Z)")
_FIRST_PARAGRAPH_RE = compile_on_use(rb"[ \t]*\r?\n(?=\S)")  # after blank first line
# A record's header: a location first (`src/a.js:3:5 rule`), last (`… at src/a.js:3:5:`),
# or said in words (`In FILE line 3:`). Matched on one line only.
_HEADER_RE = compile_on_use(
    rb"(?P<first>[^\s:]+:\d+(?::\d+)?)(?=[\s:]|$)"
    rb"|.*\sat\s(?P<last>[^\s:]+:\d+(?::\d+)?):?\s*$"
    rb"|(?P<words>In\s\S+\sline\s\d+):\s*$"
)
# A source frame's line: a numbered gutter (`  12 |`, `> 12 │`) or a caret line with its
# label under a source line (`     ^-- SC2086 (info): …`). A bare caret line is no frame:
# a traceback draws them too.
_FRAME_LINE_RE = compile_on_use(
    rb"^[ \t]*(?:>[ \t]*)?\d+[ \t]*(?:\||\xe2\x94\x82)|^[ \t]*\^[-~^]*[ \t]+\S", re.MULTILINE
)
_CARET_RE = compile_on_use(rb"[ \t]*(?:(?:\||\xe2\x94\x82)[ \t]*)?\^[-~^]*(?:[ \t]+(?P<label>\S.*))?$")
# A rule drawn after a header (`━━━━`): its length follows the path's, so it is no part
# of the header's shape.
_TRAILING_RULE_RE = compile_on_use(r"\s*(\W)\1{2,}\s*$")
_WORD_RE = compile_on_use(r"[A-Za-z]{2,}")


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic of a record: its title lines (what its rule and message are read
    from) and its own caret line, when the record holds several."""

    title: tuple[str, ...]
    caret: int | None = None


@dataclass(frozen=True)
class Record:
    """A framed record: its lines (`stop` exclusive, blank lines after it excluded), its
    location as printed and its diagnostics."""

    start: int
    stop: int
    location: str
    diagnostics: tuple[Diagnostic, ...]


def plan_records(lines: Lines, plan: Plan, limits: LogLimits) -> None:
    """Show the first record of each rule whole and fold the others into one group line
    per rule; their lines are taken out of the rest of the plan (`plan.role`)."""
    found = find_records(lines, limits)
    if len(found) < limits.min_group:
        return
    by_rule: dict[tuple[str, ...], list[tuple[Record, Diagnostic]]] = {}
    for record in found:
        for diagnostic in record.diagnostics:
            by_rule.setdefault(families.skeleton(diagnostic.title), []).append((record, diagnostic))
    shown = {members[0][0].start for members in by_rule.values()}
    owner: dict[int, tuple[str, ...]] = {}  # each folded line's rule
    for record in found:
        plan.in_frames.update(range(record.start + 1, record.stop))
        if record.start in shown:
            for i in range(record.start, record.stop):
                plan.role[i] = KEEP
            continue
        first = families.skeleton(record.diagnostics[0].title)
        stop = record.stop
        while stop < len(lines) and not lines.clean(stop).strip() and plan.role[stop] == 0:
            stop += 1  # its blank lines go with it: else, between folded records, they pile up
        carets = {d.caret: families.skeleton(d.title) for d in record.diagnostics if d.caret is not None}
        for i in range(record.start, stop):
            owner[i] = carets.get(i, first)
    folded: dict[tuple[str, ...], list[int]] = {}
    for i, rule in owner.items():
        folded.setdefault(rule, []).append(i)
    for rule, members in by_rule.items():
        if rule not in folded:
            continue  # its other records are shown, as examples of other rules
        group = Group(GroupKind.FRAMED, array("q", sorted(folded[rule])), units=len(members) - 1)
        titles = [diagnostic.title for _, diagnostic in members]
        group.said = _said(titles, [record.location for record, _ in members[1:]])
        plan.groups.append(group)
        for i in group.lines:
            plan.role[i] = FOLD


def _said(titles: list[tuple[str, ...]], locations: list[str]) -> str:
    """A rule's group line: its title with the values that vary as `#`, then each further
    record's location and varying values (`{src/a.js:3:5 prefix, :9:2 spec}`)."""
    family = families.family(titles)
    assert family is not None  # the titles share a skeleton: they are one family
    headline = " … ".join(" ".join(family.headline(at).split()) for at in range(len(titles[0])))
    values = family.rows()[1:]  # the values that differ from the example's too
    rows: list[str] = []
    previous = ""
    for location, row in zip(locations, values, strict=True):
        path, place = _split_location(location)
        rows.append(((place if path == previous else location) + f" {row}").strip())
        previous = path
    return f"{headline} {{{', '.join(rows)}}}"


_PLACE_RE = compile_on_use(r":\d+(?::\d+)?$| line (\d+)$")


def _split_location(location: str) -> tuple[str, str]:
    """(file, place in it as a row after another of the file shows it): `src/a.js`,
    `:3:5`; `In zgrep`, `3` (after `In zgrep line 2`)."""
    place = _PLACE_RE.search(location)
    assert place is not None  # a header's location ends with its place (`_HEADER_RE`)
    return location[: place.start()], place[1] or place[0]


def find_records(lines: Lines, limits: LogLimits) -> list[Record]:
    """The framed records, in order. Only paragraph starts at the margin are read, and
    the lines of the records they head: a build's lines without a frame are not."""
    matches = ((i, _HEADER_RE.match(lines.clean(i))) for i in _paragraph_starts(lines))
    headers = [(i, header) for i, header in matches if header is not None]
    if not headers:
        return []
    bounds = [*(i for i, _ in headers[1:]), len(lines)]  # a record ends where the next begins
    margins = [_extent(lines, i, bound, limits)[0] for (i, _), bound in zip(headers, bounds, strict=True)]
    recurring = _recurring_paragraphs(margins)
    found: list[Record] = []
    for (start, header), bound in zip(headers, bounds, strict=True):
        record = _record(lines, start, _extent(lines, start, bound, limits, recurring)[1], header)
        if record is not None:
            found.append(record)
    return found


def _paragraph_starts(lines: Lines) -> list[int]:
    """The lines at the margin after a blank line or at the start. In colour, escapes make
    blank lines look full: each line's text without them is read."""
    if lines.stripped is not None:
        texts = lines.stripped
        return [i for i, text in enumerate(texts) if text[:1].strip() and (i == 0 or not texts[i - 1].strip())]
    data = lines.data
    starts = [0] if data[:1].strip() else [1] if _FIRST_PARAGRAPH_RE.match(data) else []
    # One search over a large input that finds few blank lines would hold the GIL, and
    # every page it reads, until it returned: `scan.matches` reads it a slice at a time.
    after_blank = (match.end() + 1 for match in scan.matches(_BLANK_LINE_RE, data))
    starts += [bisect_right(lines.ends, at) for at in after_blank if data[at : at + 1].strip()]
    return [i for i in starts if i < len(lines)]


def _has_frame(lines: Lines, start: int, stop: int) -> bool:
    if lines.stripped is not None:
        return any(_FRAME_LINE_RE.match(lines.stripped[i]) for i in range(start, stop))
    return _FRAME_LINE_RE.search(lines.data, lines.start(start), lines.ends[stop - 1]) is not None


def _extent(
    lines: Lines, start: int, limit: int, limits: LogLimits, recurring: frozenset[bytes] | None = None
) -> tuple[list[bytes], int]:
    """(first lines of the paragraphs at the margin after the first, end of the record):
    a record runs over its paragraphs, each indented, or at the margin and one that other
    records hold too (`recurring`; a `Did you mean:` block), up to `limit` and at most
    `note_lines` lines."""
    limit = min(limit, start + limits.note_lines)
    end = start + 1
    margin: list[bytes] = []
    while end < limit and lines.clean(end).strip():
        end += 1
    while end < limit:
        following = end
        while following < limit and not lines.clean(following).strip():
            following += 1
        if following >= limit:
            break
        first = lines.clean(following)
        if not first[:1].isspace():
            margin.append(first.strip())
            if recurring is None or first.strip() not in recurring:
                break
        end = following
        while end < limit and lines.clean(end).strip():
            end += 1
    return margin, end


def _recurring_paragraphs(margins: list[list[bytes]]) -> frozenset[bytes]:
    """First lines of paragraphs at the margin that follow two records or more."""
    seen: dict[bytes, int] = {}
    for margin in margins:
        if margin:
            seen[margin[0]] = seen.get(margin[0], 0) + 1
    return frozenset(text for text, count in seen.items() if count > 1)


def _record(lines: Lines, start: int, stop: int, header: re.Match[bytes]) -> Record | None:
    """The record over `start`..`stop`, if it holds a source frame and no other header at
    the margin (a run of diagnostics without blank lines between them is not one record)."""
    if stop - start < 2 or not _has_frame(lines, start + 1, stop):
        return None
    for i in range(start + 1, stop):
        line = lines.clean(i)
        if line[:1].strip() and _HEADER_RE.match(line):
            return None
    text = lines.text(start, len(lines.clean(start)) + 1)
    which = header.lastgroup or "first"
    location = header[which].decode("utf-8", "replace")
    begin, end = header.span(which)
    rest = text[:begin] + ("…" if begin else "") + text[end:]
    rest = _TRAILING_RULE_RE.sub("", rest)
    if len(_WORD_RE.findall(rest)) < 2:
        labelled = _labelled_carets(lines, start + 1, stop)
        if labelled:
            return Record(start, stop, location, tuple(labelled))
    message = _message_line(lines, start + 1, stop)
    title = (rest.strip(),) if message is None else (rest.strip(), message)
    return Record(start, stop, location, (Diagnostic(title),))


def _labelled_carets(lines: Lines, start: int, stop: int) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for i in range(start, stop):
        caret = _CARET_RE.match(lines.clean(i))
        if caret is not None and caret["label"]:
            found.append(Diagnostic((caret["label"].decode("utf-8", "replace").strip(),), caret=i))
    return found


def _message_line(lines: Lines, start: int, stop: int) -> str | None:
    """The first line after the header when it says the message (`  × Some message.`):
    neither a frame's line nor a source line a caret points into."""
    for i in range(start, stop):
        line = lines.clean(i)
        if not line.strip():
            continue
        following = lines.clean(i + 1) if i + 1 < stop else b""
        if _FRAME_LINE_RE.match(line) or _CARET_RE.match(following):
            return None
        return lines.text(i, len(line) + 1).strip()
    return None
