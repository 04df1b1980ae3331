"""Where an anomaly of a log ends: the lines that belong to the line it starts on.

A Python traceback runs to its exception line and the message after it. A diagnostic
(`file:line:col: severity …`) runs over the rest of its message when the tool wrapped it
(up to the line ending with its rule code, `[no-untyped-def]`), its indented follow-up and code frame
(`  |`, `12 |   code`, `= note: …`, `help: …`), notes at its own location, and notes
elsewhere that follow it (a candidate, a macro's definition, with the include chain
printed before each): a note belongs to the diagnostic before it, so it is shown or
folded with it and never grouped with another diagnostic's notes. A source line over a
caret is its frame's at any indentation, an empty one (a blank line) too.

A framed record (a header, then a pointer to its location: ` --> a.rs:3:5`, a drawn
frame's corner `,-[a.js:3:5]`, or an indented location alone after a blank line,
`    a.js:3:5:`) runs over its frame, notes and help to the next record (`framed_end`),
with or without blank lines between records. A record headed by its location alone
(`a.f90:14:52:`), then its frame, then its message (`Error: …`), runs to its message
(`message_after`). Either is read whole: its lines never fold with another record's.

Most anomalies of a large build are one line followed by another at the margin: one scan
of the input finds the lines that could carry on the line before (`continuing_lines`),
and an anomaly followed by none is known to be its line alone (`stands_alone`) without
reading it as each shape above would.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from tokenlab.optimizers import visible
from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.optimizers.log.model import FRAMED_POINTER_RE, LONE_LOCATION_RE, Lines, LogLimits, indent
from tokenlab.patterns import compile_on_use

# A line that starts a new record ends an exception message's continuation lines.
_RECORD_START_RE = compile_on_use(
    rb"\s*(?:\[?\d|\[?(?:TRACE|DEBUG|INFO|NOTICE|WARN|ERROR|FATAL|CRITICAL)\b|[=_-]{3,}"
    rb"|Traceback|During handling|The above exception)"
)

# A code frame's line, at any indentation: `  |`, `12 |   code`, `12 + edit`, `...`,
# `= note: …`, `help: …`, or a pointer.
_FRAME_RE = compile_on_use(
    rb"\s*(?:\d+\s*)?\|(?:\s|$)|\s*\d+\s+[-+~](?:\s|$)|\s*\.\.\.\s*$"  # source, suggested edits, gaps
    rb"|\s*= (?:note|help)\b|(?:help|note): |\s*(?:-->|:::) \S"
)
# A note at a location (`a.h:3:5: note: candidate: …`), and the include chain printed
# before one (`In file included from a.h:3,` / `                 from b.h:4:`).
LOCATED_NOTE_RE = compile_on_use(rb"\s*[^\s:]+:\d+(?::\d+)?: note: ")
_INCLUDED_RE = compile_on_use(rb"In file included from |\s+from \S+:\d+[,:]$")


def _note_follows(lines: Lines, index: int) -> bool:
    """Whether a note starts at `index`, maybe after the include chain leading to it."""
    while index < len(lines):
        line = lines.clean(index)
        if not _INCLUDED_RE.match(line):
            return LOCATED_NOTE_RE.match(line) is not None
        index += 1
    return False


# A message's rule code at its end (`[no-untyped-def]`, `[-Wunused]`): where a wrapped
# message stops.
CODE_AT_END_RE = compile_on_use(rb"\[[\w-]+\]\s*$")


def _wrapped_message_end(lines: Lines, start: int, limits: LogLimits) -> int:
    """Past the lines continuing the message of a diagnostic at a location whose header
    lacks its rule code, when a tool wrapped it (mypy --pretty breaks `error: Function is
    missing a type` before `annotation  [no-untyped-def]`): up to `continuation_lines`
    lines, none at a location, the last ending with the rule code. Else just past the
    header."""
    for end in range(start + 1, min(len(lines), start + 1 + limits.continuation_lines)):
        line = lines.clean(end)
        if not line.strip() or line_shapes.LOCATION_RE.match(visible(line)):
            break
        if CODE_AT_END_RE.search(line):
            return end + 1
    return start + 1


# A caret under a quoted source line (`    ^`, `  |  ^~~~`).
CARET_UNDER_RE = compile_on_use(rb"[ \t]*(?:\|[ \t|]*)?[~-]*\^[\^~-]*[ \t]*$")


def quoted_at(lines: Lines, index: int) -> bool:
    """Whether the line at `index` is a caret under a quoted source line, or the source
    line over one: a frame's, at whatever indentation the source has (at the margin too)."""
    return _caret_under(lines, index) or (index + 1 < len(lines) and _caret_under(lines, index + 1))


def _caret_under(lines: Lines, index: int) -> bool:
    # Asked at the end of every diagnostic of a large build: most lines hold no caret, and
    # such a line is not cut out of the input to be read.
    if not lines.holds_carets or (
        lines.stripped is None and lines.data.find(b"^", lines.start(index), lines.ends[index]) < 0
    ):
        return False
    return CARET_UNDER_RE.match(lines.clean(index)) is not None


def framed(lines: Lines, start: int) -> bool:
    """Whether the line at `start` heads a framed record (`pointer_of`)."""
    return pointer_of(lines, start) is not None


def pointer_of(lines: Lines, start: int) -> int | None:
    """The line pointing at the location of the framed record the line at `start` heads:
    the next line (` --> src/a.rs:3:5`, `  ,-[src/a.js:3:5]`), or the one after a blank
    line; a location alone (`    src/a.js:3:5:`) points only from further in than the
    header. None if it heads no framed record."""
    ends = lines.ends  # asked of every anomaly: no method calls before the common answer
    following = start + 1
    if following >= len(ends):
        return None
    if lines.stripped is not None or ends[following] - ends[start] <= 2:
        if not lines.clean(following).strip():
            following += 1  # the tool sets the pointer apart from its header
            if following >= len(ends):
                return None
    data, at = lines.data, ends[following - 1]
    # Asked of every anomaly of a large build: most are followed by no indented line and
    # no arrow, which is all that is read of them.
    if lines.stripped is None and data[at : at + 1] not in (b" ", b"\t"):
        if data.find(b"-->", at, lines.ends[following]) < 0:
            return None
    text = lines.clean(following)
    if FRAMED_POINTER_RE.match(text):
        if following == start + 1 or indent(text) > indent(lines.clean(start)):
            return following
        return None
    header = lines.clean(start)
    if LONE_LOCATION_RE.match(text) and indent(text) > indent(header) and header.strip():
        return following
    return None


def framed_end(lines: Lines, start: int, pointer: int, limits: LogLimits) -> int:
    """End (exclusive) of the framed record headed at `start` (header, pointer, frame,
    notes, help): its lines never stand apart, to be grouped with another record's. It
    ends at a blank line, or, when the tool sets its pointer apart by a blank line (and
    so its notes and further frames too), at a blank line before a line no further in
    than the header; without blank lines between records, at the next record's header
    (a note's, `info: defined here` over its own pointer, is part of this record); and
    before a summary (`INFO 35 errors`), which is the run's, not the record's. A drawn
    frame is read to its end, however long (a function quoted whole); other lines, at
    most `note_lines`."""
    clean = lines.clean
    base = indent(clean(start))
    spaced = pointer > start + 1
    stop = len(lines)
    end, others = pointer + 1, 0
    while end < stop:
        line = clean(end)
        if not line.strip():
            if not spaced:
                break
            following = end + 1
            while following < stop and not clean(following).strip():
                following += 1
            if following >= stop or indent(clean(following)) <= base:
                break
            end = following
            continue
        if not in_frame(line):
            others += 1
            if others > limits.note_lines:
                break
            if indent(line) <= base and not _SUBORDINATE_RE.match(line) and framed(lines, end):
                break
            if line_shapes.is_summary(visible(line)):
                break
        end += 1
    return end


# A record's own note, info or help, framed like a record: it belongs to the record above.
_SUBORDINATE_RE = compile_on_use(rb"[ \t]*(?:note|info|help|hint)\b", re.IGNORECASE)


def is_pointer(line: bytes) -> bool:
    """Whether the line says where a framed record is, in any of `pointer_of`'s shapes."""
    return FRAMED_POINTER_RE.match(line) is not None or LONE_LOCATION_RE.match(line) is not None


def in_frame(line: bytes) -> bool:
    """Whether the line is a pointer or a line of a drawn source frame: quoted source,
    whatever it says, and no record's header."""
    return _GUTTER_RE.match(line) is not None or FRAMED_POINTER_RE.match(line) is not None


# A line of a drawn source frame (`12 | code`, `   :    ^^^`, `   │`, `   ╵`, `  `----`,
# a suggested edit's `12 + code` and `   - code`): quoted source, whatever it says.
_GUTTER_RE = compile_on_use(
    rb"[ \t]*\d*[ \t]*(?:[|:`]|[-+](?:[ \t]|$)|\xc2\xb7|\xe2\x94[\x82\x80\x94\x98]|\xe2\x95[\xb5\xb0\xad])"
)


# A location alone on a line, said before the frame and message it heads (`a.f90:14:52:`,
# `File "a.ml", line 3, characters 4-9:`).
_LOCATION_FIRST_RE = compile_on_use(
    rb'[ \t]*(?:[^\s:]+:\d+(?::\d+)?(?:-\d+)?|File "[^"]+", line \d+(?:, characters \d+-\d+)?):[ \t]*$'
)
# The message under such a record's frame: its severity first (`Error: …`, `Warning: …`).
_SEVERITY_FIRST_RE = compile_on_use(rb"[ \t]*(?i:error|warning|fatal|note|remark|info)\b")


def message_after(lines: Lines, start: int, limits: LogLimits) -> int | None:
    """The message line of a record headed by its location alone: the location, maybe a
    blank line, a source frame (gutter lines, carets), then the message with its severity
    first, no further in than the location. None unless the line at `start` heads one."""
    header = lines.clean(start)
    # Asked of every anomaly of a large build: most headers do not end at their location.
    if not _ends_with_colon(header) or not _LOCATION_FIRST_RE.match(header):
        return None
    at, stop = start + 1, min(len(lines), start + 2 + limits.frame_lines)
    if at < stop and not lines.clean(at).strip():
        at += 1
    frame = at
    while at < stop and (in_frame(lines.clean(at)) or CARET_UNDER_RE.match(lines.clean(at))):
        at += 1
    if at == frame or at >= stop:
        return None
    message = lines.clean(at)
    if indent(message) > indent(header) or not _SEVERITY_FIRST_RE.match(message):
        return None
    return at


def _ends_with_colon(header: bytes) -> bool:
    """Whether the line could be a location alone (`message_after`): it ends with `:`."""
    return header.rstrip(b" \t").endswith(b":")


# How a line may begin that carries on the line before it: indented or blank, a code
# frame's line at the margin (`12 | code`, `12 + edit`, `|`, `...`, `= note`, `help: `,
# `note: `, `--> a.rs:3:5`, `::: a.rs`), an include chain (`In file included from`); a
# line led by a clock time or a count does not. Matched at the terminator of the line
# before (a lone `\r` ends a line too, a `\r` before `\n` does not). Each pattern starts
# with a literal byte, which the scan looks for at C speed: an alternation would be tried
# at every byte (eight times as long over a large build).
_CONTINUING_START = (
    rb"(?=[\s|]|\d+\s*\||\d+\s+[-+~]|\.\.\.|= (?:note|help)|(?:help|note): |-->|:::|In file included from )"
)
_CONTINUING_START_RES = (re.compile(rb"\n" + _CONTINUING_START), re.compile(rb"\r(?!\n)" + _CONTINUING_START))
# What makes a line carry on the one before wherever it is in the line: a note, a pointer,
# a caret (whose source line above carries on too).
_NOTE_INSIDE_RE = compile_on_use(rb" note: ")
_POINTER_INSIDE_RE = compile_on_use(rb"-->")
_CARET_RE = compile_on_use(rb"\^")


def continuing_lines(lines: Lines) -> set[int] | None:
    """The lines that may belong to an anomaly on the line before them: every line that
    `pointer_of`, `message_after`'s frame or `_diagnostic_end` could take past its header
    is among them (`_FRAME_RE`, `_INCLUDED_RE`, notes, pointers, carets, indented or blank
    lines). Found by a few scans of the input, so that most anomalies of a large build,
    each followed by another at the margin, are known to be one line without being read
    (see `stands_alone`). None when the lines are read without their ANSI escapes (a
    line's bytes are then not what is matched), or from a mapped input (read a page at a
    time)."""
    if lines.stripped is not None or not isinstance(lines.data, bytes):
        return None
    data, ends = lines.data, lines.ends
    found: set[int] = set()
    for pattern in _CONTINUING_START_RES:
        found.update(bisect_right(ends, match.start()) + 1 for match in pattern.finditer(data))
    for pattern in (_NOTE_INSIDE_RE, _POINTER_INSIDE_RE):
        found.update(bisect_right(ends, match.start()) for match in pattern.finditer(data))
    for match in _CARET_RE.finditer(data):
        line = bisect_right(ends, match.start())
        found.update((line - 1, line))  # the source line over a caret carries on too
    return found


def stands_alone(lines: Lines, start: int, continuing: set[int] | None) -> bool:
    """Whether the anomaly at `start` (no traceback) is its line alone, as `framed`,
    `message_after` and `unit_end` would find, without reading them: the next line carries
    on no header (`continuing_lines`), and this one is neither a location alone nor a
    diagnostic whose message a tool may have wrapped onto the next lines."""
    if continuing is None or start + 1 in continuing:
        return False
    header = lines.clean(start)
    return not _ends_with_colon(header) and (CODE_AT_END_RE.search(header) is not None or note_at(header) is None)


def _diagnostic_end(lines: Lines, start: int, header: bytes, base: int, limits: LogLimits) -> int:
    """End (exclusive) of the diagnostic whose header, at `start`, is `header`: its wrapped
    message, notes, indented follow-up and code frame."""
    # Where a note at the header's own location would start (`src/a.c:3:5: note: `), read
    # only when a line could be a note after it, or the header could be wrapped: each
    # diagnostic of a large build is read here.
    own_note: bytes | None = None
    read = not CODE_AT_END_RE.search(header)
    if read:
        own_note = note_at(header)
    end, indented = _wrapped_message_end(lines, start, limits) if own_note is not None else start + 1, 0
    stop = min(len(lines.ends), start + 1 + limits.frame_lines)
    clean = lines.clean
    while end < stop:
        line = clean(end)  # read once: every diagnostic of a large build reads the next
        if not line.strip() and not (lines.holds_carets and end + 1 < len(lines) and _caret_under(lines, end + 1)):
            break  # a blank line over a caret is an empty source line the frame quotes
        # A note names itself (` note: `), or follows the includes that lead to it.
        note = None
        if b" note: " in line or _INCLUDED_RE.match(line):
            if not read:
                own_note, read = note_at(header), True
            note = own_note
        if note and line.lstrip().startswith(note):
            pass  # a note at the diagnostic's own location (gcc, clang) belongs to it
        elif note and _note_follows(lines, end):
            # So does a note elsewhere (a candidate, a macro's definition), with the
            # includes that lead to it and its frame, up to the next diagnostic: never
            # grouped with another diagnostic's notes.
            stop = min(len(lines), start + 1 + limits.note_lines, end + 1 + limits.frame_lines)
        elif not _FRAME_RE.match(line):
            if indent(line) <= base or indented == limits.continuation_lines:
                # Most builds quote no source under a caret: no frame is looked for.
                if not (lines.holds_carets and quoted_at(lines, end)):
                    break
            else:
                indented += 1
        end += 1
    return end


def note_at(header: bytes) -> bytes | None:
    """How a note at the header's location starts (`src/a.c:3:5: note: `), if it has one."""
    location = line_shapes.LOCATION_RE.match(visible(header))
    return location[0].strip().encode() + b" note: " if location else None


def unit_end(lines: Lines, start: int, traceback: bool, limits: LogLimits, record_framed: bool) -> int:
    """End (exclusive) of the anomaly starting at `start`: a traceback, or its indented
    follow-up and code frame (`  |`, `12 |   code`, `= note: …`, `help: …`). The caller
    has read whether it is a framed record (`framed`), which it needs too."""
    clean = lines.clean
    header = clean(start)
    base = indent(header)
    if record_framed:
        pointer = pointer_of(lines, start)
        assert pointer is not None  # the caller read that it heads a framed record
        return framed_end(lines, start, pointer, limits)
    if not traceback:
        return _diagnostic_end(lines, start, header, base, limits)
    stop = min(len(lines), start + 1 + limits.traceback_lines)
    end = start + 1
    while end < stop and clean(end).strip() and indent(clean(end)) > base:
        end += 1
    if end >= stop or not clean(end).strip():
        return end
    end += 1  # the exception line, back at the header's indentation
    message_stop = min(len(lines), end + limits.exception_message_lines)
    while end < message_stop and clean(end).strip() and not _RECORD_START_RE.match(clean(end)):
        end += 1
    return end
