"""How much of a diagnostic's code frame the log optimizer shows.

A diagnostic shows its header and the line pointing at its location always. Its code frame
(the source line, the caret line, fix-its, notes at the same location) is worth reading for
an error, once per source line: a cascade of errors on one line repeats the same frame, and
a warning's frame is not what is read first when the log has failures. A frame left out
folds behind the header line as ` [+N lines]`; past `diagnostic_lines` the rest folds too,
but an error's frame always shows up to its first caret line, its primary label (`^^^^
mutable borrow occurs here`; secondary labels are drawn with `-`): it says what went wrong
where. What the frame leaves out never hides what only the diagnostic tells: a few notes
at other places (the steps of the path it reports) stay, a warning's too, and so do a few
lines of its own text after a shown frame (where a tool looked), which the records folded
under it repeat.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field

from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.optimizers.log.units import (
    CARET_UNDER_RE,
    CODE_AT_END_RE,
    LOCATED_NOTE_RE,
    in_frame,
    message_after,
    note_at,
    pointer_of,
)
from tokenlab.optimizers.log.model import (
    FOLD,
    HELP_LINE_RE,
    KEEP,
    LINE_INDEX,
    NOTE_LINE_RE,
    POINTER_LINE_RE,
    Group,
    GroupKind,
    Lines,
    LogLimits,
    Plan,
    Templates,
)
from tokenlab.patterns import compile_on_use


@dataclass
class Frames:
    """What decides whether a diagnostic's code frame is shown: whether the log has failures
    (then a warning's frame folds: the errors are read first) and the source lines shown."""

    failures: bool
    sources: set[bytes] = field(default_factory=set)


def is_failure_template(lines: Lines, templates: Templates, number: int, limits: LogLimits) -> bool:
    return line_shapes.is_failure(lines.text(templates.members[number][0], limits.line_bytes))


# A code frame's source line: `   16 |     for (…)`, `7 |     let x = 1;`.
_SOURCE_LINE_RE = compile_on_use(rb"\s*\d+\s*\|\s*\S")
# A code frame's primary label: carets under the source, with or without the frame's
# gutter (`   |     ^^^^ mutable borrow occurs here`, `    ^~~~`, `  |  ~~~~^~~~`).
_CARET_LINE_RE = compile_on_use(rb"\s*(?:\|[\s|]*)?[~-]*\^[\^~-]*(?:\s|$)")
# Where an error's own frame ends: a note or help at another place, or another location.
_OTHER_PLACE_RE = compile_on_use(rb"\s*(?:(?:note|help)\b|\S+:\d+(?::\d+)?: |(?:-->|:::) )")


def _after_primary_label(lines: Lines, frame: range) -> int:
    """Just past the first caret line of the error's own frame (0 without one; rustc draws
    secondary labels with `-`, and notes elsewhere have carets of their own): an error
    shows its frame up to there, whatever its length, since the primary label says what
    went wrong where."""
    for i in frame:
        line = lines.clean(i)
        if _CARET_LINE_RE.match(line):
            return i + 1
        if _OTHER_PLACE_RE.match(line):
            return 0
    return 0


def fold_frame(lines: Lines, unit: range, plan: Plan, frames: Frames, limits: LogLimits) -> range:
    """The part of a shown diagnostic that stays visible: its header and pointer, and its
    code frame unless it is a warning in a log with failures, or it shows a source line
    shown above (a cascade of errors on one line); past `diagnostic_lines` it folds."""
    pointer = pointer_of(lines, unit.start)  # a framed record's, maybe after a blank line
    body = unit.start + 1 if pointer is None else pointer + 1
    while body < unit.stop and POINTER_LINE_RE.match(lines.clean(body)):
        body += 1
    source = next((lines.clean(i) for i in range(body, unit.stop) if _SOURCE_LINE_RE.match(lines.clean(i))), None)
    # A record headed by its location alone says its severity in its message, under its frame.
    message = None if pointer is not None else message_after(lines, unit.start, limits)
    severity = unit.start if message is None else message
    warning = not line_shapes.is_failure(lines.text(severity, limits.line_bytes))
    # A framed record (header, pointer, frame, help) is its rule's one example: its frame
    # shows whatever else the log holds.
    hidden_warning = frames.failures and warning and pointer is None
    cut = unit.start + limits.diagnostic_lines
    if body < unit.stop and (hidden_warning or (source is not None and source in frames.sources)):
        cut = body
    else:
        if source is not None:
            frames.sources.add(source)
        if not warning:
            cut = max(cut, _after_primary_label(lines, range(body, unit.stop)))
    if cut >= unit.stop:
        return unit
    # Its help lines (an error's notes too) stay below the folded frame, and so do a few
    # notes elsewhere, a warning's too (`_path_steps`). A shown frame's record says what
    # follows the frame once (the places looked in, a reason): the records folded under
    # this one repeat it, so here is the one place it is read.
    told = _told_after_frame(lines, range(cut, unit.stop), limits) if cut > body else set()
    steps = _path_steps(lines, unit, range(cut, unit.stop), limits)
    tail = array(LINE_INDEX)
    # The code under the last pointer shown; a frame folded whole (`cut == body`) stays folded.
    pointed = range(0)
    for pointer in range(max(body, cut - 2), cut):
        pointed = _source_under(lines, pointer, unit.stop) or pointed
    for i in range(cut, unit.stop):
        line = lines.clean(i)
        if (
            i in told
            or i in steps
            or i == message
            or i in pointed
            or HELP_LINE_RE.match(line)
            or (not warning and NOTE_LINE_RE.match(line))
        ):
            plan.role[i] = KEEP
            if POINTER_LINE_RE.match(line):
                pointed = _source_under(lines, i, unit.stop)
        else:
            tail.append(i)
    if not tail:
        return unit
    plan.groups.append(Group(GroupKind.TAIL, tail, inline=cut == body))
    for i in tail:
        plan.role[i] = FOLD
    return range(unit.start, cut)


def _source_under(lines: Lines, pointer: int, stop: int) -> range:
    """The lines up to the quoted source line that a pointer points at, past the frame's
    empty gutter (`  |`, `2 | #![warn(missing_docs)]`): a location shown without its code
    says little (which lint a note's `the lint level is defined here` names). Empty when
    `pointer` is no pointer or no source line follows it."""
    if not POINTER_LINE_RE.match(lines.clean(pointer)):
        return range(0)
    for i in range(pointer + 1, min(pointer + 3, stop)):
        line = lines.clean(i)
        if _SOURCE_LINE_RE.match(line):
            return range(pointer + 1, i + 1)
        if line.strip() != b"|":
            break
    return range(0)


def _told_after_frame(lines: Lines, rest: range, limits: LogLimits) -> set[int]:
    """The lines of `rest` after the last line of its code frame (quoted source, gutter,
    caret), when there are at most `continuation_lines` of them: the diagnostic's own text,
    not a listing. Notes and help lines there have rules of their own. Empty otherwise."""
    last_frame_line = next(
        (i for i in reversed(rest) if in_frame(lines.clean(i)) or CARET_UNDER_RE.match(lines.clean(i))), None
    )
    after = range(rest.start if last_frame_line is None else last_frame_line + 1, rest.stop)
    if len(after) > limits.continuation_lines:
        return set()
    notes = (NOTE_LINE_RE, HELP_LINE_RE, LOCATED_NOTE_RE)
    return {i for i in after if not any(note.match(lines.clean(i)) for note in notes)}


def _path_steps(lines: Lines, unit: range, rest: range, limits: LogLimits) -> set[int]:
    """The notes of `rest` at a location other than the diagnostic's own, when it has at
    most `continuation_lines` of them: the steps of the path it reports (`assuming 'p==NULL'`
    at one line, the call at the next), which nothing else tells. More of them are a list
    (each candidate of an overload) and fold with the frame. A note carrying a rule code
    of its own (`[SC2086]`) is a finding of its own, not a step."""
    own = note_at(lines.clean(unit.start))
    steps: set[int] = set()
    for i in rest:
        line = lines.clean(i)
        if LOCATED_NOTE_RE.match(line) and not (own and line.lstrip().startswith(own)) and not CODE_AT_END_RE.search(line):
            steps.add(i)
            if len(steps) > limits.continuation_lines:
                return set()
    return steps
