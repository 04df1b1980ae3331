"""Failure sections of a test run, and the lines that say why each failure failed.

Test runners print one section per failure under a heading: pytest's
`____ test_x ____`, cargo's `---- tests::x stdout ----`, jest's `● Suite › test`, node's
`✖ test (1.2ms)`, TAP's
`not ok 7 - name` with its YAML block, Go's `--- FAIL: TestX`, unittest's `FAIL: test_x`,
mocha's `1) suite`. Whatever is printed under such a heading belongs to that failure: the
log optimizer never folds it into a group shown under another section (a group line shows
the lines of one section), and never folds a section's *assertion detail* at all —
`Expected:`/`Received:` and `left:`/`right:` labels, the `+`/`-` lines of a diff, an
`expected:`/`actual:` block and what is indented under it, and the comment lines directly
under the heading (TAP's `#   at t/x.t line 12.`, `#          got: 'a'`, `#     expected:
'b'`, maybe after one blank line). Those lines are the failure;
a template merging them with another failure's would leave neither readable. A code
frame under the heading shows the line it points at (`> 40 | code`, read first) and its
caret; the source lines around it fold in place. With more than `sections_in_full`
failures, those after the first few keep their heading, assertion detail and failure
lines, and the rest of each (source excerpts, locals) folds in place.

A section runs from its heading to the next heading or `=` rule; when its heading is not
a title between rules and its body is indented deeper (jest, TAP, Go, mocha), it also ends
at the first line back at the heading's indentation, unless that line is left of it and
the body resumes after it (mocha prints a multi-line assertion message at the margin,
then the indented stack);
otherwise at two blank lines in a row. A heading printed as a comment (TAP's `#   Failed
test 'name'`), or a failed test's line with no indented body (`not ok 3 - name`), heads
the comment lines under it and ends at the first other line.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Callable

from tokenlab.mapped import holds
from tokenlab.optimizers.lines import families, scan
from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.optimizers.log.model import (
    FOLD,
    KEEP,
    LINE_INDEX,
    Group,
    GroupKind,
    Lines,
    LogLimits,
    Plan,
    indent,
)
from tokenlab.patterns import compile_on_use

# A failure's heading, by shape: a title between rules of `_` or `-`, a bullet title,
# a failed TAP test and its diagnostic (`#   Failed test 'name'`, read through the `#`
# comment lead), Go's and unittest's failure lines, a numbered failure.
_HEADING_RE = compile_on_use(
    rb"\s*(?:[_-]{3,} \S.* [_-]{3,}\s*$|(?:\xe2\x97\x8f|\xe2\x9c\x96) \S|not ok \d+\b|#\s+Failed test '|--- FAIL: |(?:FAIL|ERROR): \S+ \([\w.]+\)|\d+\) \S)"
)
_TITLED_RULE_RE = compile_on_use(rb"\s*[_-]{3,} \S")
# Bytes every heading holds, each looked for on its own (a search for all at once tries
# each at every byte: 7 ms a megabyte).
_MARKERS = (b"___ ", b"-- ", b"\xe2\x97\x8f ", b"\xe2\x9c\x96 ", b"not ok ", b"Failed test '", b"FAIL: ", b"ERROR: ", b") ")
# A bullet or numbered heading is a heading only above a deeper-indented body.
_NEEDS_BODY_RE = compile_on_use(rb"\s*(?:\xe2\x97\x8f|\xe2\x9c\x96|\d+\))")
# A rule that closes every section: `=====`, `=== title ===`.
_CLOSING_RULE_RE = compile_on_use(rb"\s*(?:={3,}(?: \S.* ={3,})?\s*$)")
# Why a test failed: a labelled value, a line of a diff, the line a code frame points at.
_DETAIL_RE = compile_on_use(
    rb"\s*(?:(?:Expected|Received|Actual|expected|received|actual|Difference|left|right)\b[^:\n]{0,30}:(?:\s|$)"
    rb"|[-+](?:\s|$)"
    rb"|>\s*\d+\s*\||\|\s*[\^~]+\s*$)"  # the line a code frame points at, its caret
    rb"|E(?:\s|$)"  # pytest's explanation lines, at the margin
)
# A label whose value is the block indented under it (`expected:` then YAML).
# A code frame's line (`   4 | code`, `> 5 | code`, `     |    ^`), and the pointed one.
_FRAME_LINE_RE = compile_on_use(rb"\s*+(?:>\s*+)?\d*+\s*+\|")  # each blank run taken whole: no split retried
_POINTED_RE = compile_on_use(rb"\s*>\s*\d+\s*\|")
_BLOCK_LABEL_RE = compile_on_use(rb"\s*(?:expected|actual|Expected|Actual|Received)\s*:\s*$")
# A diagnostic printed as a comment: `#   at t/x.t line 12.`, `    # got: 1`.
_COMMENT_RE = compile_on_use(rb"[ \t]*#(?:[ \t]|$)")
_COMMENTED_HEADING_RE = compile_on_use(rb"[ \t]*(?:#(?:[ \t]|$)|not ok \d)")


def failure_sections(lines: Lines) -> array[int] | None:
    """Each line's failure section (1, 2, …; 0 outside any), or None without sections."""
    clean = lines.clean
    total = len(lines)
    # The lines holding bytes every heading holds, found in one pass over the input:
    # only they are looked at (most logs have none).
    candidates = sorted({bisect_right(lines.ends, at) for at in scan.offsets(lines.data, _MARKERS)})
    if not candidates:
        return None
    of_line: array[int] | None = None  # made at the first heading: most candidates head nothing
    number = 0
    i = 0
    for candidate in candidates:
        if candidate < i or candidate >= total or not _is_heading(lines, candidate):
            continue
        i = candidate
        number += 1
        if of_line is None:
            of_line = array("I", bytes(4 * total))
        own = indent(clean(i))
        body = _next_filled(lines, i + 1)
        # A title between rules heads a body at the margin (pytest's traceback, cargo's
        # panic), whatever its first line's indentation.
        nested = not _TITLED_RULE_RE.match(clean(i)) and body < total and indent(clean(body)) > own
        # A heading printed as a comment (`#   Failed test 'x'`), or a failed test's line
        # with no indented body, heads only the comments under it: the next test's line
        # is no part of it.
        commented = not nested and _COMMENTED_HEADING_RE.match(clean(i)) is not None
        of_line[i] = number
        i += 1
        blanks = 0
        while i < total:
            line = clean(i)
            if not line.strip():
                blanks += 1
                if blanks >= 2 and not nested:
                    break
            else:
                blanks = 0
                if _is_heading(lines, i) or _CLOSING_RULE_RE.match(line):
                    break
                if commented and not _COMMENT_RE.match(line):
                    break
                if nested and indent(line) <= own:
                    resumes = _body_resumes(lines, i, own) if indent(line) < own else None
                    if resumes is None:
                        break
                    of_line[i:resumes] = array("I", [number]) * (resumes - i)
                    i = resumes
                    continue
            of_line[i] = number
            i += 1
    return of_line


def _body_resumes(lines: Lines, start: int, own: int) -> int | None:
    """Where a nested section's body resumes after lines left of its heading's
    indentation, if it does before a line at the heading's indentation (the next entry),
    the next heading, a closing rule or two blank lines: a failure's message printed as it
    is (mocha's multi-line assertion message at the margin, then its indented stack)
    belongs to that failure."""
    blanks = 0
    for i in range(start, len(lines)):
        line = lines.clean(i)
        if not line.strip():
            blanks += 1
            if blanks >= 2:
                return None
            continue
        blanks = 0
        if indent(line) > own:
            return i
        if indent(line) == own or _is_heading(lines, i) or _CLOSING_RULE_RE.match(line):
            return None
    return None


def _is_heading(lines: Lines, index: int) -> bool:
    line = lines.clean(index)
    if not _HEADING_RE.match(line):
        return False
    if _NEEDS_BODY_RE.match(line):
        body = _next_filled(lines, index + 1)
        return body < len(lines) and indent(lines.clean(body)) > indent(line)
    return True


def _next_filled(lines: Lines, start: int) -> int:
    """The first non-blank line from `start` (within a few lines), else past the end."""
    for i in range(start, min(len(lines), start + 3)):
        if lines.clean(i).strip():
            return i
    return len(lines)


# A heading's words that name its test: ids (`test_x[EUR-10]`, `tests::parse`, `TestX/case`,
# `TestParse`), never a plain word (`Failed`, `round`), which any line may hold.
_NAME_WORD_RE = compile_on_use(
    rb"[\w.:/\[\]\-]*(?:[A-Za-z][\w.:/\[\]\-]*[_.:/\[\d]|[a-z][A-Z])[\w.:/\[\]\-]*"
)


def told_names(lines: Lines, sections: array[int]) -> frozenset[bytes]:
    """The failures the sections tell in full, each by its heading's longest id."""
    names = set()
    for i, section in enumerate(sections):
        if section and (i == 0 or sections[i - 1] != section):
            words = _NAME_WORD_RE.findall(lines.clean(i))
            if words:
                names.add(max(words, key=len))
    return frozenset(names)


def restates(line: bytes, names: frozenset[bytes]) -> bool:
    """Whether `line` names a failure told in a section (`FAILED t.py::test_x[EUR-10] - …`
    after that test's section): a run's closing list of what failed."""
    for word in line.split():
        if word in names or word.rpartition(b"::")[2] in names:
            return True
    return False


def assertion_details(lines: Lines, sections: array[int], limits: LogLimits) -> list[int]:
    """The lines of each failure section that say why it failed, at most `detail_lines`
    a section: labelled values, diff lines, and the block under a bare label."""
    found: list[int] = []
    per_section: dict[int, int] = {}
    clean = lines.clean
    block_indent = -1
    for i, section in enumerate(sections):
        if not section:
            block_indent = -1
            continue
        line = clean(i)
        inside = block_indent >= 0 and line.strip() and indent(line) > block_indent
        if not inside:
            block_indent = -1
        said = inside or _DETAIL_RE.match(line) or _heading_comment(lines, i, sections, limits)
        if said and per_section.get(section, 0) < limits.detail_lines:
            per_section[section] = per_section.get(section, 0) + 1
            found.append(i)
        if _BLOCK_LABEL_RE.match(line):
            block_indent = indent(line)
    return found


def _heading_comment(lines: Lines, index: int, sections: array[int], limits: LogLimits) -> bool:
    """Whether the line at `index` is a diagnostic of its section's failure: one of the
    comment lines directly under the heading (one blank line may come between), among the
    first `heading_comment_lines` of them or reading as detail through its comment lead."""
    line = lines.clean(index)
    lead = _COMMENT_RE.match(line)
    if lead is None:
        return False
    section = sections[index]
    above, comments = index - 1, 0
    while above >= 0 and comments <= limits.detail_lines and sections[above] == section:
        text = lines.clean(above)
        heading = above == 0 or sections[above - 1] != section
        if not heading and not text.strip():  # the one blank line a heading may have under it
            heading = above >= 1 and (above == 1 or sections[above - 2] != section)
        if heading:
            return comments < limits.heading_comment_lines or _DETAIL_RE.match(line, lead.end()) is not None
        if not _COMMENT_RE.match(text):
            return False
        above, comments = above - 1, comments + 1
    return False


def by_section(members: array[int], sections: array[int] | None) -> list[array[int]]:
    """`members` split by failure section (those outside any section together), so that
    no group holds lines of two sections."""
    if sections is None:
        return [members]
    parts: dict[int, array[int]] = {}
    for i in members:
        parts.setdefault(sections[i], array(LINE_INDEX)).append(i)
    return list(parts.values())



def fold_like_sections(lines: Lines, sections: array[int], plan: Plan, limits: LogLimits) -> None:
    """Failure sections of one skeleton (a parametrised test failing for each of its
    values, with the same traceback), more than `sections_in_full`: the first stays, the
    others become one group line where the second was, naming the heading and failure
    lines once (`#` for what varies) and each section's values, paired (`lines.families`).
    A section of another skeleton (another assertion, another error) is left alone."""
    spans: dict[int, list[int]] = {}
    for i, section in enumerate(sections):
        if section:
            spans.setdefault(section, []).append(i)
    by_skeleton: dict[tuple[str, ...], list[list[int]]] = {}
    texts: dict[int, list[str]] = {}
    for members in spans.values():
        while len(members) > 1 and not lines.clean(members[-1]).strip():
            members.pop()  # the blank lines before the next heading are not the record's
        texts[members[0]] = [lines.text(i, limits.line_bytes) for i in members]
        by_skeleton.setdefault(families.skeleton(texts[members[0]]), []).append(members)
    for family in by_skeleton.values():
        if len(family) <= limits.sections_in_full:
            continue  # a few failures are each read in full
        found = families.family([texts[members[0]] for members in family])
        # Its failure and assertion detail lines are named with the heading: what failed.
        said = found and found.said([at for at, i in enumerate(family[0]) if _says_why(lines, i, limits)])
        if not said:
            continue
        group = Group(GroupKind.RECORDS, array(LINE_INDEX, [i for members in family[1:] for i in members]), said=said)
        group.units = len(family) - 1
        group.heads.extend(members[0] for members in family[1:])
        plan.groups.append(group)
        for i in group.lines:
            plan.role[i] = FOLD


def _says_why(lines: Lines, index: int, limits: LogLimits) -> bool:
    return _DETAIL_RE.match(lines.clean(index)) is not None or line_shapes.is_failure(lines.text(index, limits.line_bytes))


def condense_sections(lines: Lines, sections: array[int], plan: Plan, limits: LogLimits) -> None:
    """With more than `sections_in_full` failure sections, those after the first
    `verbatim_repeats` show their heading, assertion detail and failure lines; the rest
    of each (source excerpts, locals, separators) folds in place."""
    count = max(sections)
    if count <= limits.sections_in_full:
        return
    role = plan.role
    run: list[int] = []

    def flush() -> None:
        while run and not lines.clean(run[-1]).strip():
            run.pop()  # a blank line before the next heading stays
        if len(run) > 1:
            group = Group(GroupKind.RUN, array(LINE_INDEX, run))
            plan.groups.append(group)
            for i in run:
                role[i] = FOLD
        run.clear()

    for i, section in enumerate(sections):
        if section <= limits.verbatim_repeats or role[i] == FOLD or _shows_failure(lines, i, sections, role, limits):
            flush()
            continue
        run.append(i)
    flush()


def fold_frame_context(lines: Lines, sections: array[int], plan: Plan) -> None:
    """In a failure section, a code frame that points at a line (`> 5 | code` and its
    caret) shows that line; the source lines around it fold in place."""
    clean = lines.clean
    total = len(lines)
    i = 0
    while i < total:
        if not sections[i] or not _POINTED_RE.match(clean(i)):
            i += 1
            continue
        start = i
        while start > 0 and sections[start - 1] == sections[i] and _FRAME_LINE_RE.match(clean(start - 1)):
            start -= 1
        stop = i + 1
        while stop < total and sections[stop] == sections[i] and _FRAME_LINE_RE.match(clean(stop)):
            stop += 1
        for run in (range(start, i), range(i + 1, stop)):
            context = [j for j in run if plan.role[j] != KEEP]
            if len(context) > 1:
                plan.groups.append(Group(GroupKind.RUN, array(LINE_INDEX, context)))
                for j in context:
                    plan.role[j] = FOLD
        i = stop


def _shows_failure(lines: Lines, index: int, sections: array[int], role: bytearray, limits: LogLimits) -> bool:
    """Whether a line of a condensed section stays: its heading, assertion detail (kept
    already), a failure or summary line."""
    if index == 0 or sections[index - 1] != sections[index]:
        return True  # the heading
    line = lines.clean(index)
    text = lines.text(index, limits.line_bytes)
    detail = _DETAIL_RE.match(line) is not None or _heading_comment(lines, index, sections, limits)
    return (role[index] == KEEP and detail) or line_shapes.is_failure(text) or line_shapes.is_summary(text)


def record_blocks(lines: Lines, template: Callable[[int], bytes], min_records: int) -> array[int] | None:
    """Each line's record block, or 0 outside records; None without records.

    A *record* is a line followed by more indented lines naming frames or locks (a thread
    dump's thread, a deadlock report's waiter): its lines say something only together, so they
    fold only with lines of the same block. Consecutive records of one shape (the same
    templates, line for line, maybe blank lines between them), `min_records` or more, are
    one block whose lines fold position by position, so that its group lines read as one
    record; any other record is a block of its own."""
    records = _records(lines)
    if not records:
        return None
    blocks = array(LINE_INDEX, bytes(4 * len(lines)))  # block numbers count lines at most
    block = 0
    first = 0
    for at in range(1, len(records) + 1):
        if at < len(records) and _same_shape(lines, template, records[at - 1], records[at]):
            continue
        together = at - first >= min_records
        for record in records[first:at]:
            block += not together or record is records[first]
            for i in record:
                blocks[i] = block
        first = at
    return blocks


# A line of a thread's or task's stack: a frame (`at pkg.Cls.m(File.java:7)`, a numbered
# `#1 0x55bc… in main /src/a.c:21`: a memory checker's allocation site under its leak) or
# a lock it waits for or holds (`- locked <0x…>`, `waiting to lock monitor …`, `which is held by`).
_STACK_LINE_RE = compile_on_use(
    rb"\s+(?:at \S+\(|#\d+ +0x[0-9a-f]+ in |- (?:waiting|locked|parking)\b"
    rb"|waiting (?:to lock|on|for)\b|which is held by\b)"
)


# What `_STACK_LINE_RE` needs on a line, found in the whole input at once (when its lines
# hold no escapes, so that they are its bytes): each alternative with the word its matches
# start with, which is found far faster, and most logs hold none of. Searched one by one:
# an alternation has no word to look for first, so it was tried at every byte (0.14 s on
# a 20 MB log without a match, against 0.05 s).
_STACK_WORDS = (
    (b"at ", re.compile(rb"at \S+\(")),
    (b" 0x", re.compile(rb"#\d+ +0x[0-9a-f]+ in ")),
    (b"- ", re.compile(rb"- (?:waiting|locked|parking)\b")),
    (b"waiting ", re.compile(rb"waiting (?:to lock|on|for)\b")),
    (b"which is held by", re.compile(rb"which is held by\b")),
)


def _records(lines: Lines) -> list[range]:
    """Each line followed by more indented lines holding a stack frame or a lock, with
    those lines: a thread of a dump, a task waiting on another."""
    records: list[range] = []
    if lines.stripped is None and not any(
        holds(lines.data, word) and scan.search(pattern, lines.data) for word, pattern in _STACK_WORDS
    ):
        return records  # no line can hold a frame or a lock: no line need be read
    start = 0
    while start < len(lines):
        own = indent(lines.clean(start))
        stop = start + 1
        while stop < len(lines) and lines.clean(stop).strip() and indent(lines.clean(stop)) > own:
            stop += 1
        if (
            stop > start + 1
            and lines.clean(start).strip()
            and any(_STACK_LINE_RE.match(lines.clean(i)) for i in range(start + 1, stop))
        ):
            records.append(range(start, stop))
        start = stop
    return records


def _same_shape(lines: Lines, template: Callable[[int], bytes], record: range, following: range) -> bool:
    between = range(record.stop, following.start)
    return (
        len(record) == len(following)
        and all(not lines.clean(i).strip() for i in between)
        and all(template(a) == template(b) for a, b in zip(record, following))
    )
