"""Log optimizer: fold repeated and templated lines, keep anomalies verbatim and in place.

Logs and tool output are mostly the same few line shapes repeated with different
timestamps, ids and numbers. We reduce every line to a *template* (words holding a digit
become `#`, whitespace runs become one space, passing-test lines lose their test name)
and fold each template's lines into one line showing the first of them and a count.
Anomalies -- error/warning/failure lines, Python tracebacks, indented continuations such
as a compiler's source excerpt -- stay verbatim where they occurred, with a line of
context either side, unless the same anomaly repeats more than three times. Long runs of
distinct, unremarkable lines keep their head and tail. ANSI escapes never reach the
visible text.

Everything not shown verbatim goes into omissions holding the exact original bytes
(ANSI escapes and CRLF included): with `Granularity.COARSE` one omission holds every
folded line in original order; with `Granularity.FINE` each folded group has its own.

Work is done on whole buffers with compiled regexes where possible (ANSI stripping and
templating run once over the input, not per line), and every pass is linear, so a 5 MB
single line or a 100 MB log cost time in proportion to their size.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum
from itertools import accumulate, islice

from tokenlab.optimizers import (
    Granularity,
    Omission,
    OptimizerConfig,
    OptimizeResult,
    Part,
    join_literals,
    line_shapes,
    visible,
)


@dataclass(frozen=True)
class LogLimits:
    """Tunables of the log optimizer; the defaults suit agents reading tool output."""

    context_before: int = 1
    context_after: int = 1
    # An anomaly (or traceback) seen this many times verbatim folds its further repeats.
    verbatim_repeats: int = 3
    # A diagnostic (`file:line:col: severity message`) shows one example in full, code
    # frame included; its further repeats are listed by location and what else varies.
    diagnostic_repeats: int = 1
    # Lines of a diagnostic shown in full (header, pointer, frame); its further notes fold.
    diagnostic_lines: int = 8
    # Indented lines following an anomaly (compiler excerpts, stack frames) kept with it,
    # and the most lines of its code frame.
    continuation_lines: int = 6
    frame_lines: int = 24
    traceback_lines: int = 400
    # Lines after a traceback's exception line that continue its message (diffs, notes).
    exception_message_lines: int = 20
    # Lines of one template fold once there are this many of them.
    min_group: int = 3
    # Runs of distinct unremarkable lines longer than this keep only head and tail.
    distinct_run: int = 10
    run_head: int = 3
    run_tail: int = 3
    # Visible bytes of one line; the rest of a longer line is behind a ref.
    line_bytes: int = 1000
    preview_chars: int = 80
    # Below this size folding cannot pay for its labels: only exact repeats fold.
    small_input_bytes: int = 1024
    # A summary shape seen up to this many times stays visible each time; more often it
    # is progress, and its last line stays visible.
    summary_lines: int = 5
    # The closing region (the last lines after the last separator rule, searched this far
    # from the end) stays visible; without a rule, the last `closing_lines_default` lines.
    closing_search: int = 20
    closing_lines_default: int = 3
    # A folded group of up to this many lines shows every varying value inline; a larger
    # one shows this many (failures show all of theirs, up to `failure_values`).
    inline_values: int = 6
    failure_values: int = 1000
    # A warning's locations are all listed up to this many; beyond, `inline_values` of them.
    warning_locations: int = 8
    # Lone paths (the files a tool names as it goes) listed in a group line.
    paths_listed: int = 200
    # How far above an indented `line:col` entry its file's heading is looked for.
    heading_search: int = 2000


DEFAULT_LIMITS = LogLimits()
# One chunk's temporaries (its lines, `re.sub`'s pieces) stay small at this size; 1 MB
# chunks raised the peak memory on a 100 MB log by 16 MB and were no faster.
_CHUNK = 1 << 18

_ANSI_RE = line_shapes.ANSI_RE
# A word holding a digit (number, timestamp part, hex id, duration, version), chained
# through `.:/-` so that a timestamp, IP:port or UUID becomes a single `#`. Anchored at
# a word boundary so that a long run of letters is scanned once, not once per position.
_VARYING_RE = re.compile(rb"\b[A-Za-z_]*\d\w*(?:[.:/\-][A-Za-z_]*\d\w*)*")
# Whitespace runs count as one space. Two patterns with literal prefixes, because an
# alternation would be tried at every byte: that alone cost a fifth of the run time.
_SPACES_RE = re.compile(rb"  +")
# A diagnostic's leading location in a template (`src/a.c:#:`, `a.ts(#,#):`; numbers are
# already `#`), when a severity or a rule code (`[-Wunused]`, `F401` now `#`) follows:
# `line_shapes.LOCATION_PATTERN` as it reads a template.
_LOCATION_RE = re.compile(
    rb"^([ \t]*)[^\s:()\[\]]*\.[A-Za-z]\w*(?::#:|\(#,#\):)"
    rb"(?=.*?(?:\b(?:error|warning|note|info|hint|fatal|ERROR|WARNING|Error|Warning)\b|\[[\w#-]+\]|\s#\s))"
)
_QUOTED_RE = re.compile(rb"([`'\"]|\xe2\x80\x98)[^\s`'\"\xe2]{1,40}([`'\"]|\xe2\x80\x99)")
_TABS_RE = re.compile(rb"[ \t]*\t[ \t]*")
# Passing tests fold together whatever their names: unittest -v and pytest -v lines. With
# docstrings, unittest prints the test's id on a line of its own and the outcome after the
# docstring's first line. They are independent of their neighbours, so they are never
# taken as context either.
_PASSING_TEST = b"<test>"
_UNITTEST_OUTCOME_RE = re.compile(rb"^[^\r\n]*? \.\.\. (ok|skipped|expected failure)\b[^\r\n]*", re.MULTILINE)
_UNITTEST_ID_RE = re.compile(rb"^\S+ \([\w.]*\)$", re.MULTILINE)
_PYTEST_OUTCOME_RE = re.compile(rb"^([^\s:]+)::\S+ (PASSED|SKIPPED|XFAIL|XPASS)\b[^\r\n]*", re.MULTILINE)
_ANOMALY_RE = re.compile(
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
# A line that starts a new record ends an exception message's continuation lines.
_RECORD_START_RE = re.compile(
    rb"\s*(?:\[?\d|\[?(?:TRACE|DEBUG|INFO|NOTICE|WARN|ERROR|FATAL|CRITICAL)\b|[=_-]{3,}"
    rb"|Traceback|During handling|The above exception)"
)

# Control bytes other than tab are shown as U+FFFD's first byte, which decodes to U+FFFD.
_CONTROLS = bytes([*range(9), *range(10, 32), 127])
_SHOWN_CONTROLS = bytes.maketrans(_CONTROLS, b"\xff" * len(_CONTROLS))

# A diagnostic's template: a leading location (`@:`), or a position and a severity under a
# file's heading (`  12:5  error  …`, eslint and stylelint).
_DIAGNOSTIC_KEY_RE = re.compile(rb"[ \t]*@:|[ \t]+# (?:error|warning|info|note|hint)\b(?!:)")
# A line pointing at where a diagnostic is (` --> src/a.rs:3:5`, ` ::: lib.rs:9:1`).
_POINTER_LINE_RE = re.compile(rb"\s*(?:-->|:::) \S+:\d+")
# A code frame's line, at any indentation: `  |`, `12 |   code`, `12 + edit`, `...`,
# `= note: …`, `help: …`, or a pointer.
_FRAME_RE = re.compile(
    rb"\s*(?:\d+\s*)?\|(?:\s|$)|\s*\d+\s+[-+~](?:\s|$)|\s*\.\.\.\s*$"  # source, suggested edits, gaps
    rb"|\s*= (?:note|help)\b|(?:help|note): |\s*(?:-->|:::) \S"
)
# A separator rule: a line of `=`, `-`, `_`, `*`, `#` or `~`, maybe with a title inside.
_RULE_RE = re.compile(rb"\s*(?:[=\-_*#~]{5,}\s*$|[=_-]{3,} \S.* [=_-]{3,}\s*$)")

KEEP = 1  # shown verbatim (anomaly, its block, or context)
FOLD = 2  # inside a folded group


@dataclass(frozen=True)
class _Lines:
    """The input's lines, held as end offsets into the input rather than as copies."""

    data: bytes
    ends: array[int]  # offset just past each line's terminator
    stripped: list[bytes] | None  # lines without ANSI escapes or terminators, if there were escapes

    def __len__(self) -> int:
        return len(self.ends)

    def start(self, index: int) -> int:
        return self.ends[index - 1] if index else 0

    def raw(self, index: int) -> bytes:
        """The exact original line, terminator included."""
        return self.data[self.start(index) : self.ends[index]]

    def span(self, first: int, last: int) -> memoryview:
        """The exact original lines `first..last`, inclusive, without copying them."""
        return memoryview(self.data)[self.start(first) : self.ends[last]]

    def clean(self, index: int) -> bytes:
        """The line as shown: no ANSI escapes, no terminator."""
        if self.stripped is not None:
            return self.stripped[index]
        return self.raw(index).rstrip(b"\r\n")  # a line holds no `\r`/`\n` but its terminator

    def text(self, index: int, limit: int) -> str:
        """The line as shown, cut at `limit` bytes; control bytes (a stray NUL) as U+FFFD."""
        line = self.clean(index)
        cut = len(line)
        if cut > limit:
            cut = limit
            while cut > 0 and 0x80 <= line[cut] < 0xC0:  # do not split a UTF-8 sequence
                cut -= 1
        shown = visible(line[:cut].translate(_SHOWN_CONTROLS))
        return shown if cut == len(line) else shown + "…"


@dataclass(frozen=True)
class _Templates:
    """Each line's template, by number; needed only until the lines are planned.

    Line indices are kept in arrays rather than lists: a list of a million lines holds a
    million int objects, several times the memory, alive while the omission is built.
    """

    keys: list[bytes] = field(default_factory=list)  # the templates, in first-seen order
    numbers: dict[bytes, int] = field(default_factory=dict)  # template -> its position in `keys`
    members: list[array[int]] = field(default_factory=list)  # each template's line indices
    # 4 bytes a line: a number reaching 2**32 would take tens of GB of distinct lines.
    of_line: array[int] = field(default_factory=lambda: array("I"))

    def key(self, index: int) -> bytes:
        return self.keys[self.of_line[index]]


class _Kind(Enum):
    """Why lines were folded; picks the label of the group's visible line."""

    TEMPLATE = "template"  # same template: shown as its first line with a count
    REPEAT = "repeat"  # an anomaly beyond `verbatim_repeats`
    RUN = "run"  # the middle of a long run of distinct lines
    LONG = "long"  # a line cut at `line_bytes`
    TAIL = "tail"  # the end of a long diagnostic shown in full


@dataclass
class _Group:
    """Folded lines shown as one visible line; `lines` ascend."""

    kind: _Kind
    lines: array[int]
    identical: bool = False
    units: int = 0  # for REPEAT: how many anomaly units; each may span several lines
    heads: array[int] = field(default_factory=lambda: array("q"))  # for REPEAT: each unit's first line
    after_shown: bool = True  # for REPEAT: whether examples were shown before the group
    blanks: int = 0  # stray blank lines appended to the group (out of order)

    @property
    def count(self) -> int:
        return self.units or len(self.lines) - self.blanks

    @property
    def contiguous(self) -> bool:
        return self.lines[-1] - self.lines[0] + 1 == len(self.lines)


@dataclass
class _Plan:
    role: bytearray
    groups: list[_Group] = field(default_factory=list)
    anomalous: set[int] = field(default_factory=set)  # template numbers
    signals: tuple[str, ...] = ()  # failure and summary lines, as shown


def optimize(data: bytes, config: OptimizerConfig, limits: LogLimits = DEFAULT_LIMITS) -> OptimizeResult:
    small = len(data) < limits.small_input_bytes
    lines, templates = _split(data, exact=small)
    if not len(lines):
        return OptimizeResult(())
    plan = _plan(lines, templates, limits)
    # The per-line template numbers go before the coarse omission, nearly a copy of the
    # input, is built.
    del templates
    items = _items(lines, plan)
    if not small:
        items = _fold_runs(items, lines, plan, limits)
    items = _fold_stray_blanks(items, lines, plan)
    _fold_long_lines(items, lines, plan, limits)
    for group in plan.groups:
        if group.blanks:
            group.lines = array("q", sorted(group.lines))
    if not plan.groups:
        return OptimizeResult((visible(_ANSI_RE.sub(b"", data)),), plan.signals)
    return _render(items, lines, plan, config.granularity, limits)


def _split(data: bytes, exact: bool = False) -> tuple[_Lines, _Templates]:
    """The lines and their templates; with `exact`, a line's template is the line itself."""
    lines = _Lines(data, array("q"), [] if b"\x1b" in data else None)
    templates = _Templates()
    for chunk in _chunks(data):
        raw = chunk.splitlines(keepends=True)
        cleaned = chunk if lines.stripped is None else _ANSI_RE.sub(b"", chunk)
        keys = (cleaned if exact else _template(cleaned)).splitlines()
        stripped = cleaned.splitlines() if lines.stripped is not None else []
        if len(keys) != len(raw) or (lines.stripped is not None and len(stripped) != len(raw)):
            # Removing an escape between `\r` and `\n` can merge two line ends; redo per line.
            stripped = [_ANSI_RE.sub(b"", line).rstrip(b"\r\n") for line in raw]
            keys = stripped if exact else [_template(line) for line in stripped]
        if lines.stripped is not None:
            lines.stripped.extend(stripped)
        _index(lines, templates, raw, keys)
    return lines, templates if exact else _merge_located_and_quoted(templates)


def _chunks(data: bytes) -> Iterator[bytes]:
    """Slices of about `_CHUNK` bytes, each ending just after a LF (so CRLF is never split).

    Templating a chunk at a time bounds the temporary pieces `re.sub` builds.
    """
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + _CHUNK) + 1 or len(data)
        yield data[start:end]
        start = end


def _index(lines: _Lines, templates: _Templates, raw: list[bytes], keys: list[bytes]) -> None:
    """Append lines, numbering their templates."""
    numbers, members, of_line = templates.numbers, templates.members, templates.of_line
    offset = lines.ends[-1] if lines.ends else 0
    lines.ends.extend(islice(accumulate(map(len, raw), initial=offset), 1, None))
    for index, key in enumerate(keys, len(lines) - len(raw)):
        number = numbers.get(key)
        if number is None:
            number = numbers[key] = len(members)
            templates.keys.append(key)
            members.append(array("q"))
        members[number].append(index)
        of_line.append(number)


def _template(text: bytes) -> bytes:
    """Lines that differ only in numbers, ids, times or spacing get the same template."""
    template = _VARYING_RE.sub(b"#", text)
    if b"\t" in template:
        template = _TABS_RE.sub(b" ", template)
    template = _SPACES_RE.sub(b" ", template)
    if b" ... " in template:
        template = _UNITTEST_OUTCOME_RE.sub(rb"<test> ... \1", template)
        template = _UNITTEST_ID_RE.sub(b"<test> ()", template)
    if b"::" in template:
        template = _PYTEST_OUTCOME_RE.sub(rb"\1::<test> \2", template)
    return template


def _merge_located_and_quoted(templates: _Templates) -> _Templates:
    """Templates that differ only in a diagnostic's leading location or in short quoted
    names become one (see `line_shapes.slots`). Done on the distinct templates, a few
    hundred regex calls, rather than on every line."""
    merged = _Templates()
    target_of: list[int] = []
    for number, key in enumerate(templates.keys):
        if b":" in key or b"(" in key:
            key = _LOCATION_RE.sub(rb"\1@:", key)
        if b"'" in key or b'"' in key or b"`" in key or b"\xe2\x80\x98" in key:
            key = _QUOTED_RE.sub(rb"\1#\2", key)
        target = merged.numbers.get(key)
        if target is None:
            target = merged.numbers[key] = len(merged.keys)
            merged.keys.append(key)
            merged.members.append(templates.members[number])
        else:
            merged.members[target] = array("q", sorted(merged.members[target] + templates.members[number]))
        target_of.append(target)
    if len(merged.keys) == len(templates.keys):  # nothing merged: numbers are unchanged
        return _Templates(merged.keys, merged.numbers, merged.members, templates.of_line)
    merged.of_line.extend(map(target_of.__getitem__, templates.of_line))
    return merged


def _plan(lines: _Lines, templates: _Templates, limits: LogLimits) -> _Plan:
    plan = _Plan(bytearray(len(lines)))
    plan.anomalous = {number for number, key in enumerate(templates.keys) if _ANOMALY_RE.search(key)}
    kept = _place_anomalies(lines, templates, plan, limits)
    _mark_context(kept, templates, plan, limits)
    summaries = _keep_summaries(lines, templates, plan, limits)
    _keep_closing_region(lines, plan, limits)
    plan.signals = tuple(dict.fromkeys([*_failure_lines(lines, templates, plan, limits), *summaries]))
    role = plan.role
    for number, key in enumerate(templates.keys):
        if number in plan.anomalous or not key.strip():
            continue
        free = templates.members[number]
        if any(map(role.__getitem__, free)):  # most templates lose no line: no copy for them
            free = array("q", [i for i in free if not role[i]])
        if len(free) >= limits.min_group:
            for i in free:
                role[i] = FOLD
            plan.groups.append(_Group(_Kind.TEMPLATE, free, identical=_all_same(lines, free)))
    return plan


def _all_same(lines: _Lines, members: array[int]) -> bool:
    if lines.stripped is not None:
        first = lines.stripped[members[0]]
        return all(lines.stripped[i] == first for i in members)
    first = lines.raw(members[0])
    return all(lines.raw(i) == first for i in members)


def _place_anomalies(lines: _Lines, templates: _Templates, plan: _Plan, limits: LogLimits) -> list[range]:
    """Keep each anomaly unit verbatim up to `verbatim_repeats` times; fold further repeats.
    Returns the kept units whose neighbours are their context (a diagnostic's: only the
    line before)."""
    starts = sorted(i for number in plan.anomalous for i in templates.members[number])
    seen: dict[bytes, int] = {}
    repeats: dict[bytes, _Group] = {}
    kept: list[range] = []
    covered = 0
    for start in starts:
        if start < covered:
            continue
        traceback = _TRACEBACK in templates.key(start)
        unit = range(start, _unit_end(lines, start, traceback, limits))
        covered = unit.stop
        # A traceback is known by all its lines; another anomaly by its first line alone.
        key = b"\n".join(map(templates.key, unit)) if traceback else templates.key(start)
        seen[key] = seen.get(key, 0) + 1
        role = KEEP
        diagnostic = _DIAGNOSTIC_KEY_RE.match(key) is not None or any(
            _POINTER_LINE_RE.match(lines.clean(i)) for i in unit[1:3]
        )
        shown = limits.verbatim_repeats
        if diagnostic:
            # A one-line diagnostic that recurs is all in its group line; one with a code
            # frame shows its first example in full.
            recurs = len(templates.members[templates.of_line[start]]) > 1
            shown = 0 if len(unit) == 1 and recurs else limits.diagnostic_repeats
        if seen[key] > shown:
            role = FOLD
            group = repeats.get(key)
            if group is None:
                group = repeats[key] = _Group(_Kind.REPEAT, array("q"), after_shown=shown > 0)
                plan.groups.append(group)
            group.lines.extend(unit)
            group.heads.append(unit.start)
            group.units += 1
        else:
            if diagnostic and len(unit) > limits.diagnostic_lines:
                tail = array("q", unit[limits.diagnostic_lines :])
                plan.groups.append(_Group(_Kind.TAIL, tail))
                unit = unit[: limits.diagnostic_lines]
                for i in tail:
                    plan.role[i] = FOLD
            # A diagnostic says where it is: the line before it (`In function …`) is
            # context, the next one is the next step's.
            kept.append(range(unit.start, unit.start) if diagnostic else unit)
        for i in unit:
            plan.role[i] = role
    return kept


def _unit_end(lines: _Lines, start: int, traceback: bool, limits: LogLimits) -> int:
    """End (exclusive) of the anomaly starting at `start`: a traceback, or its indented
    follow-up and code frame (`  |`, `12 |   code`, `= note: …`, `help: …`)."""
    clean = lines.clean
    base = _indent(clean(start))
    if not traceback:
        end, indented = start + 1, 0
        stop = min(len(lines), start + 1 + limits.frame_lines)
        while end < stop and clean(end).strip():
            if not _FRAME_RE.match(clean(end)):
                if _indent(clean(end)) <= base or indented == limits.continuation_lines:
                    break
                indented += 1
            end += 1
        return end
    stop = min(len(lines), start + 1 + limits.traceback_lines)
    end = start + 1
    while end < stop and clean(end).strip() and _indent(clean(end)) > base:
        end += 1
    if end >= stop or not clean(end).strip():
        return end
    end += 1  # the exception line, back at the header's indentation
    message_stop = min(len(lines), end + limits.exception_message_lines)
    while end < message_stop and clean(end).strip() and not _RECORD_START_RE.match(clean(end)):
        end += 1
    return end


def _keep_summaries(lines: _Lines, templates: _Templates, plan: _Plan, limits: LogLimits) -> list[str]:
    """Keep summary lines (counts, verdicts) visible: every line of a shape seen up to
    `summary_lines` times, else its last line. Returns them as shown."""
    shown: list[str] = []
    for number, members in enumerate(templates.members):
        candidates = members if len(members) <= limits.summary_lines else members[-1:]
        first = lines.text(candidates[0], limits.line_bytes)
        if not line_shapes.is_summary(first):
            continue
        for i in candidates:
            if not plan.role[i]:  # an anomaly is kept, or folded with its values shown
                plan.role[i] = KEEP
            shown.append(lines.text(i, limits.line_bytes).strip())
    return shown


def _failure_lines(lines: _Lines, templates: _Templates, plan: _Plan, limits: LogLimits) -> list[str]:
    """Every failure line (a subset of the anomalies), as shown."""
    found: list[str] = []
    for number in sorted(plan.anomalous, key=lambda n: templates.members[n][0]):
        members = templates.members[number]
        if line_shapes.is_failure(lines.text(members[0], limits.line_bytes)):
            found += [lines.text(i, limits.line_bytes).strip() for i in members]
    return found


def _keep_closing_region(lines: _Lines, plan: _Plan, limits: LogLimits) -> None:
    """Keep the last lines after the last separator rule near the end (or the last few)."""
    last = len(lines)
    start = max(0, last - limits.closing_lines_default)
    for i in range(last - 1, max(-1, last - 1 - limits.closing_search), -1):
        if _RULE_RE.match(lines.clean(i)):
            start = i
            break
    for i in range(start, last):
        if not plan.role[i]:
            plan.role[i] = KEEP


def _indent(line: bytes) -> int:
    return len(line) - len(line.lstrip(b" \t"))


def _mark_context(kept: list[range], templates: _Templates, plan: _Plan, limits: LogLimits) -> None:
    role, of_line = plan.role, templates.of_line
    last = len(of_line)
    for unit in kept:
        before = range(max(0, unit.start - limits.context_before), unit.start)
        after = range(unit.stop, min(last, unit.stop + limits.context_after))
        for i in (*before, *after):
            if not role[i] and of_line[i] not in plan.anomalous and _PASSING_TEST not in templates.key(i):
                role[i] = KEEP


# A visible item: a line index shown verbatim, or a folded group shown as one line.
_Item = int | _Group


def _items(lines: _Lines, plan: _Plan) -> list[_Item]:
    """Visible items in reading order; a group appears where its first line was."""
    heads = {group.lines[0]: group for group in plan.groups}
    role = plan.role
    items: list[_Item] = []
    for index in range(len(lines)):
        group = heads.get(index)
        if group is not None:
            items.append(group)
        elif role[index] != FOLD:
            items.append(index)
    return items


def _fold_runs(items: list[_Item], lines: _Lines, plan: _Plan, limits: LogLimits) -> list[_Item]:
    """Shorten long runs of distinct unremarkable lines to their head and tail. A heading
    (after a blank line, above more indented lines: a failed test's title, a section's
    name) stays visible and splits the run."""
    result: list[_Item] = []
    run: list[int] = []

    def flush() -> None:
        if len(run) <= limits.distinct_run:
            result.extend(run)
        else:
            tail = len(run) - limits.run_tail
            group = _Group(_Kind.RUN, array("q", run[limits.run_head : tail]))
            plan.groups.append(group)
            for i in group.lines:
                plan.role[i] = FOLD
            result.extend([*run[: limits.run_head], group, *run[tail:]])
        run.clear()

    for item in items:
        if isinstance(item, int) and not plan.role[item] and not _heading(lines, item):
            run.append(item)
            continue
        flush()
        result.append(item)
    flush()
    return result


def _heading(lines: _Lines, index: int) -> bool:
    if index == 0 or index + 2 >= len(lines) or lines.clean(index - 1).strip():
        return False
    indent = _indent(lines.clean(index))
    below = lines.clean(index + 1) if lines.clean(index + 1).strip() else lines.clean(index + 2)
    return indent <= _HEADING_INDENT and bool(below.strip()) and _indent(below) > indent


# Headings start near the margin; a more indented line after a blank one is a block of
# code or text (a traceback's source), not a title.
_HEADING_INDENT = 2


def _fold_stray_blanks(items: list[_Item], lines: _Lines, plan: _Plan) -> list[_Item]:
    """Blank lines left between folded lines would pile up; fold them into the group above.

    A blank line stays visible only right after a visible non-blank line.
    """
    result: list[_Item] = []
    last_group: _Group | None = None
    for item in items:
        if isinstance(item, _Group):
            last_group = item
        elif last_group is not None and not lines.clean(item).strip():
            previous = result[-1]
            if isinstance(previous, _Group) or not lines.clean(previous).strip():
                last_group.lines.append(item)
                last_group.blanks += 1
                plan.role[item] = FOLD
                continue
        result.append(item)
    return result


def _fold_long_lines(items: list[_Item], lines: _Lines, plan: _Plan, limits: LogLimits) -> None:
    """A verbatim line longer than `line_bytes` is cut; the whole line goes behind a ref."""
    for position, item in enumerate(items):
        if isinstance(item, int) and len(lines.clean(item)) > limits.line_bytes:
            group = _Group(_Kind.LONG, array("q", [item]))
            plan.groups.append(group)
            plan.role[item] = FOLD
            items[position] = group


_FOLDED_RUN_RE = re.compile(re.escape(bytes([FOLD])) + b"+")


def _render(
    items: list[_Item], lines: _Lines, plan: _Plan, granularity: Granularity, limits: LogLimits
) -> OptimizeResult:
    folded_count = plan.role.count(FOLD)
    coarse = granularity is Granularity.COARSE
    groups = len(plan.groups)
    legend = "(×N = N lines like the one shown)"
    parts: list[Part] = []
    if coarse:
        runs = _FOLDED_RUN_RE.finditer(plan.role)
        data = b"".join([lines.span(run.start(), run.end() - 1) for run in runs])
        reason = f"all {folded_count:,} folded log lines, concatenated in original order"
        parts += [f"[log: {len(lines):,} lines, {folded_count:,} folded {legend}: ", Omission(data, reason), "]\n"]
    else:
        plural = "s" if groups > 1 else ""
        parts.append(f"[log: {len(lines):,} lines, {folded_count:,} folded into {groups:,} group{plural} {legend}]\n")
    for item in items:
        if isinstance(item, _Group):
            parts += _group_parts(item, lines, coarse, limits)
        else:
            parts.append(lines.text(item, limits.line_bytes) + "\n")
    return OptimizeResult(tuple(join_literals(parts)), plan.signals)


def _group_parts(group: _Group, lines: _Lines, coarse: bool, limits: LogLimits) -> list[Part]:
    """One visible line for a folded group: `[count ref] representative`."""
    first = group.lines[0]
    if group.kind is _Kind.RUN:
        label, shown = f"[… {group.count:,} more lines", ""
    elif group.kind is _Kind.TAIL:
        label = f"[… {group.count:,} more line{'s' if group.count > 1 else ''} of this diagnostic"
        shown = ""
    elif group.kind is _Kind.LONG:
        label = f"[whole line: {len(lines.raw(first)):,} bytes"
        shown = lines.text(first, limits.line_bytes)
    elif group.kind is _Kind.REPEAT:
        label = f"[×{group.count:,}" + (" more" if group.after_shown else "")
        shown = _repeats_shown(group, lines, limits)
    else:
        label = f"[×{group.count:,}" + (" identical" if group.identical else "")
        shown = lines.text(first, limits.line_bytes)
        if not group.identical:
            shown = _template_shown(group, lines, limits) or _abbreviate_ids(shown)
    if coarse:
        head: list[Part] = [label + "]"]
    else:
        head = [label + " ", Omission(_group_bytes(group, lines), _reason(group, lines, limits)), "]"]
    if group.kind is _Kind.LONG:
        return [shown + " ", *head, "\n"]
    return [*head, (" " + shown if shown else "") + "\n"]


def _template_shown(group: _Group, lines: _Lines, limits: LogLimits) -> str | None:
    """A small group, or one of lone paths (the files a tool names as it goes) or of
    source pointers, shown with its varying values inline."""
    texts = [lines.text(i, limits.line_bytes) for i in group.lines[: limits.inline_values + 1]]
    cap = located = limits.inline_values
    if len(group.lines) > limits.inline_values:
        if _LONE_PATH_RE.fullmatch(texts[0]):
            cap = limits.paths_listed
        elif _POINTER_RE.match(texts[0]):
            located = limits.failure_values
        else:  # a summary shape seen this often is progress: its last line is kept
            return None
        texts = [lines.text(i, limits.line_bytes) for i in group.lines]
    return line_shapes.with_values(texts, cap, located)


# A line pointing at a source location (` --> src/a.rs:3:5`, `at src/a.js:3:5`): where a
# diagnostic is, listed compactly for each member of its group.
_POINTER_RE = re.compile(r"\s*(?:-->|at)\s+\S+:\d+(?::\d+)?\s*$")
_LONE_PATH_RE = re.compile(r"\s*[\w.~-]*[/\\][^\s:]*\.\w+/?\s*")


def _repeats_shown(group: _Group, lines: _Lines, limits: LogLimits) -> str:
    """Further repeats of an anomaly, by what varies: the first line of each, and each
    failure line inside them (a traceback's exception) where the units line up."""
    heads = list(group.heads) or [group.lines[0]]
    first = lines.text(heads[0], limits.line_bytes)
    texts = [_with_heading(lines, i, limits) for i in heads]
    if line_shapes.is_failure(first):
        cap = located = limits.failure_values
    else:
        cap = limits.inline_values
        located = len(heads) if len(heads) <= limits.warning_locations else cap
    shown = [line_shapes.with_values(texts, cap, located) or first]
    pointers = _unit_pointers(group, lines)
    if pointers:
        texts = [lines.text(i, limits.line_bytes) for i in pointers]
        shown.append(line_shapes.with_values(texts, cap, located) or texts[0].strip())
    blank_free = [i for i in group.lines if lines.clean(i).strip()]
    size, extra = divmod(len(blank_free), len(heads))
    if size > 1 and not extra:
        units = [blank_free[at : at + size] for at in range(0, len(blank_free), size)]
        for position in range(1, size):
            texts = [lines.text(unit[position], limits.line_bytes) for unit in units]
            if line_shapes.is_failure(texts[0]):
                cap = limits.failure_values
                shown.append(line_shapes.with_values(texts, cap) or texts[0].strip())
    return " … ".join(text.strip() if at else text for at, text in enumerate(shown))


def _with_heading(lines: _Lines, index: int, limits: LogLimits) -> str:
    """An indented entry that starts with its position (`  12:5  error …`) under a file's
    heading line, as `file:12:5  error …`: where it is, once folded away from its heading."""
    text = lines.text(index, limits.line_bytes)
    if not _POSITION_RE.match(text):
        return text
    for above in range(index - 1, max(-1, index - limits.heading_search), -1):
        heading = lines.text(above, limits.line_bytes)
        if heading and not heading[0].isspace():
            return heading.strip() + ":" + text.lstrip() if _LONE_PATH_RE.fullmatch(heading) else text
    return text


_POSITION_RE = re.compile(r"\s+\d+:\d+\s")


def _unit_pointers(group: _Group, lines: _Lines) -> list[int]:
    """Each folded unit's line pointing at its location (` --> src/a.rs:3:5`), if every
    unit has one after its first line."""
    starts = set(group.heads)
    pointers: list[int] = []
    found = True
    for i in group.lines:
        if i in starts:
            if not found:
                return []
            found = False
        elif not found and _POINTER_LINE_RE.match(lines.clean(i)):
            pointers.append(i)
            found = True
    return pointers if found and len(pointers) == len(group.heads) else []


# Ids differ on every line of a template, so its representative need not spell them out.
_LONG_ID_RE = re.compile(r"\b([0-9a-f]{8})(?:[0-9a-f]{8,}|(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})\b")


def _abbreviate_ids(shown: str) -> str:
    """Shorten long hex ids and UUIDs in a template's example line to 8 digits and `…`."""
    return _LONG_ID_RE.sub(r"\1…", shown)


def _group_bytes(group: _Group, lines: _Lines) -> bytes:
    if group.contiguous:
        return bytes(lines.span(group.lines[0], group.lines[-1]))
    return b"".join([lines.raw(i) for i in group.lines])


def _reason(group: _Group, lines: _Lines, limits: LogLimits) -> str:
    first = next((i for i in group.lines if lines.clean(i).strip()), group.lines[0])
    preview = lines.text(first, limits.preview_chars).strip()
    size = len(group.lines) - group.blanks
    if group.kind is _Kind.LONG:
        return f"one log line of {len(lines.raw(first)):,} bytes: {preview}"
    if group.kind is _Kind.REPEAT:
        reason = f"{group.units:,} more occurrences ({size:,} lines) of the anomaly: {preview}"
    elif group.kind in (_Kind.RUN, _Kind.TAIL):
        reason = f"{size:,} distinct log lines, the first: {preview}"
    else:
        reason = f"{size:,} log lines like: {preview}"
    if group.blanks:
        reason += f" (and {group.blanks:,} blank lines that fell between them)"
    if not group.contiguous:
        reason += " (not contiguous: concatenated in original order)"
    return reason
