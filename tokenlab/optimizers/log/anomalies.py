"""Anomalies in a log: which templates are anomalous, and how each anomaly unit is shown
(verbatim up to a few times, then folded into a repeat group; see `optimizer.py`).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right

from tokenlab.mapped import holds
from tokenlab.optimizers.lines import scan
from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.optimizers.log.frames import Frames, fold_frame, is_failure_template
from tokenlab.optimizers.log.model import (
    FOLD,
    KEEP,
    LINE_INDEX,
    POINTER_LINE_RE,
    Group,
    GroupKind,
    Lines,
    LogLimits,
    Plan,
    Templates,
    indent,
)
from tokenlab.optimizers.log.sections import restates, told_names
from tokenlab.optimizers.log.units import (
    CARET_UNDER_RE,
    continuing_lines,
    framed,
    in_frame,
    message_after,
    pointer_of,
    stands_alone,
    unit_end,
)
from tokenlab.patterns import compile_on_use

_ANOMALY_RE = compile_on_use(
    rb"\b(?:ERROR|ERR|WARN|WARNING|FATAL|CRITICAL|CRIT|SEVERE|PANIC|ALERT|EMERG"
    rb"|FAIL|FAILED|FAILURE|Error|Warning|Fatal|Failed|Failure|Exception|Traceback"
    rb"|error|warning|fatal|failed|failure|panic)\b"
    rb"|\b[A-Z]\w*(?:Error|Exception|Warning)\b"
    rb"|^[E>] "
    rb"|^ ?[=_-]{3,} \S.* [=_-]{3,}$"
    rb"|During handling of the above exception|The above exception was the direct cause"
    rb"|Segmentation fault|core dumped|npm ERR!|panicked at|^\s*not ok\b"
    rb"|\xe2\x9c[\x95\x97\x96]"  # the cross marks of failed tests
)
_TRACEBACK = b"Traceback (most recent call last)"

# A diagnostic's template: a leading location (`@:`), or a position and a severity under a
# file's heading (`  12:5  error  …`, eslint and stylelint).
_DIAGNOSTIC_KEY_RE = compile_on_use(rb"[ \t]*@:|[ \t]+# (?:error|warning|info|note|hint)\b(?!:)")
# A framed record's pointer (see `units.pointer_of`), from the line break before it: an
# arrow or a drawn frame's corner holding the location. (A header over an indented
# location alone says its severity, so it is an anomaly already.)
_POINTER_START_RE = compile_on_use(rb"\n[ \t]*(?:--> \S|,-\[|\xe2\x95\xad\xe2\x94\x80\[|\xe2\x94\x8c\xe2\x94\x80 )")
_POINTERS = (b"--> ", b",-[", b"\xe2\x95\xad\xe2\x94\x80[", b"\xe2\x94\x8c\xe2\x94\x80 ")


def anomalous_templates(lines: Lines, templates: Templates, limits: LogLimits) -> set[int]:
    """The templates whose lines are anomalies: a failure or warning word, a framed
    record's header, a located diagnostic quoting its source over a caret, a location
    said alone before its message."""
    anomalous = {number for number, key in enumerate(templates.keys) if _ANOMALY_RE.search(key)}
    anomalous |= _framed_headers(lines, templates)
    anomalous |= _located_with_carets(lines, templates)
    anomalous |= _located_first(lines, templates, limits)
    return anomalous


def _framed_headers(lines: Lines, templates: Templates) -> set[int]:
    """The templates of framed records' headers (`I001 [*] Import block is un-sorted`,
    `warning: unused variable`, `  ! rule(name): message`): a line further out than the
    pointer under it. A header names no severity word a log line would, yet it starts a
    record whose lines are read together; found by the pointers, which are few."""
    found: set[int] = set()
    if not any(holds(lines.data, pointer) for pointer in _POINTERS):
        return found  # the pattern, tried at each line, found nothing in 0.13 s on 20 MB
    for match in scan.matches(_POINTER_START_RE, lines.data):
        pointer = bisect_right(lines.ends, match.start()) + 1  # the line after the break
        for header in (pointer - 1, pointer - 2):
            if header < 0 or pointer_of(lines, header) != pointer:
                continue
            text = lines.clean(header)
            if text.strip() and indent(text) <= indent(lines.clean(pointer)) and not in_frame(text):
                found.add(templates.of_line[header])
    return found


_NOTE_KEY_RE = compile_on_use(rb"[ \t]*@: note\b")


def _located_with_carets(lines: Lines, templates: Templates, tried: int = 3) -> set[int]:
    """The templates of diagnostics at a location (`@:`, see `templates._merge_located_and_quoted`)
    whose severity is no failure word (`style:`, `portability:`, `information:`) and that
    quote their source with a caret under it: each is read with its frame, never apart
    from it. Up to `tried` lines of a template are looked at."""
    found: set[int] = set()
    for number, key in enumerate(templates.keys):
        if not key.lstrip().startswith(b"@:") or _NOTE_KEY_RE.match(key):
            continue  # a note belongs to the diagnostic above it (`units`)
        for i in templates.members[number][:tried]:
            if any(CARET_UNDER_RE.match(lines.clean(j)) for j in range(i + 1, min(len(lines), i + 3))):
                found.add(number)
                break
    return found


def _located_first(lines: Lines, templates: Templates, limits: LogLimits, tried: int = 3) -> set[int]:
    """The templates of locations said alone before the frame and message they head
    (`a.f90:14:52:`, see `units.message_after`): each such record is read whole, its
    location with its message. Up to `tried` lines of a template are looked at."""
    return {
        number
        for number, key in enumerate(templates.keys)
        if key.rstrip().endswith(b":")  # the lines of most templates are read no further
        and any(message_after(lines, i, limits) is not None for i in templates.members[number][:tried])
    }

def _is_diagnostic_key(key: bytes, known: dict[bytes, bool]) -> bool:
    found = known.get(key)
    if found is None:
        found = known[key] = _DIAGNOSTIC_KEY_RE.match(key) is not None
    return found


def place_anomalies(
    lines: Lines, templates: Templates, plan: Plan, limits: LogLimits, sections: array[int] | None
) -> list[range]:
    """Keep each anomaly unit verbatim up to `verbatim_repeats` times; fold further repeats
    (within one failure section: a section's lines are shown under its heading). Returns
    the kept units whose neighbours are their context (a diagnostic's: only the line
    before)."""
    starts = sorted(i for number in plan.anomalous for i in templates.members[number] if not plan.role[i])
    seen: dict[bytes, int] = {}
    repeats: dict[bytes, Group] = {}
    examples: dict[bytes, list[int]] = {}  # each key's one-line units shown before its group
    kept: list[range] = []
    frames = Frames(failures=any(is_failure_template(lines, templates, n, limits) for n in plan.anomalous))
    covered = 0
    diagnostic_keys: dict[bytes, bool] = {}  # read once per key: a large build repeats its keys
    told = told_names(lines, sections) if sections is not None else frozenset()
    # A run's closing list follows every failure section: its lines are told above.
    last_section = sections.index(max(sections)) if told and sections is not None else len(lines)
    continuing = continuing_lines(lines)
    for start in starts:
        if start < covered:
            continue
        traceback = _TRACEBACK in templates.key(start)
        if not traceback and stands_alone(lines, start, continuing):
            # Most anomalies of a large build: nothing after the line carries it on.
            record_framed, message, head, unit = False, None, start, range(start, start + 1)
        else:
            record_framed = framed(lines, start)
            # A record headed by its location alone is known, and ends, by its message.
            message = None if record_framed or traceback else message_after(lines, start, limits)
            head = start if message is None else message
            unit = range(start, unit_end(lines, head, traceback, limits, record_framed))
        covered = unit.stop
        if record_framed:
            plan.in_frames.update(range(start + 1, unit.stop))
        elif message is not None:
            plan.in_frames.update(range(start + 1, message))
        elif not traceback and len(unit) > 1:
            # Source quoted over a caret is no status of the run (`from .e import Error`).
            carets = [i for i in unit[1:] if CARET_UNDER_RE.match(lines.clean(i))]
            plan.in_frames.update(carets, [i - 1 for i in carets if i - 1 > start])
        # A traceback is known by all its lines; another anomaly by its first line alone.
        key = b"\n".join(map(templates.key, unit)) if traceback else templates.key(head)
        if sections is not None and sections[start]:
            key += b"\n@section %d" % sections[start]
        seen[key] = seen.get(key, 0) + 1
        role = KEEP
        diagnostic = (
            record_framed
            or message is not None
            or _is_diagnostic_key(key, diagnostic_keys)
            or any(POINTER_LINE_RE.match(lines.clean(i)) for i in unit[1:3])
        )
        shown = limits.verbatim_repeats
        if diagnostic:
            # A one-line diagnostic that recurs is all in its group line; one with a code
            # frame shows its first example in full.
            # A warning that recurs more than `warning_locations` times is all in its group
            # line too: its first location leads the list, its frame is behind the ref.
            # A few errors each show in full, a code frame with its labels or one line
            # as printed: a group line would hide them, or their places, for little gain.
            seen_times = len(templates.members[templates.of_line[head]])
            if len(unit) == 1 and seen_times > max(1, limits.verbatim_repeats):
                shown = 0  # failure or not: read once, not per line of a long build
            else:
                failure = line_shapes.is_failure(lines.text(head, limits.line_bytes))
                often = seen_times > limits.warning_locations and not failure
                if failure and seen_times <= limits.verbatim_repeats:
                    shown = limits.verbatim_repeats
                elif (len(unit) == 1 and seen_times > 1) or often:
                    shown = 0
                else:
                    shown = limits.diagnostic_repeats
            if record_framed:
                # A framed record shows one example of its rule, frame and help included;
                # its further records are listed by location (`render.framed_rows`).
                shown = max(shown, limits.diagnostic_repeats)
        restating = (
            not diagnostic
            and bool(told)
            and len(unit) == 1
            and not sections[start]
            and restates(lines.clean(start), told)
        )
        # After the sections telling them (a run's closing list, not its progress lines):
        # said by their shape in one group line (`render`), one alone as it is.
        told_above = restating and start > last_section
        if restating:
            # A run's list of failures its sections tell in full: when many, or told above,
            # one group line stands for them; examples would tell them a third time.
            many = len(templates.members[templates.of_line[start]]) > limits.verbatim_repeats
            shown = 0 if many or told_above else shown
        if seen[key] > shown:
            role = FOLD
            group = repeats.get(key)
            if group is None:
                group = Group(GroupKind.REPEAT, array(LINE_INDEX), after_shown=shown > 0, told=True)
                repeats[key] = group
                group.examples.extend(examples.get(key, ()))
                plan.groups.append(group)
            group.told = group.told and told_above
            group.lines.extend(unit)
            group.heads.append(unit.start)
            group.units += 1
            if record_framed and unit.stop < len(lines) and not lines.clean(unit.stop).strip():
                # The blank line closing a folded framed record goes with it, not into a
                # run of the blank lines left between the folded records.
                group.lines.append(unit.stop)
                group.blanks += 1
                plan.role[unit.stop] = FOLD
                covered = unit.stop + 1
        else:
            if diagnostic:
                unit = fold_frame(lines, unit, plan, frames, limits)
            # A diagnostic says where it is: the line before it (`In function …`) is
            # context, the next one is the next step's.
            kept.append(range(unit.start, unit.start) if diagnostic else unit)
            if len(unit) == 1:
                examples.setdefault(key, []).append(unit.start)
        for i in unit:
            plan.role[i] = role
    return kept
