"""Log optimizer: fold repeated and templated lines, keep anomalies verbatim and in place.

Logs and tool output are mostly the same few line shapes repeated with different
timestamps, ids and numbers. We reduce every line to a *template* (words holding a digit
become `#`, and so does a bracketed id holding one whole, `[EUR-10]`; whitespace runs
become one space, passing-test lines lose their test name)
and fold each template's lines into one line showing the first of them and a count.
Anomalies -- error/warning/failure lines, Python tracebacks, indented continuations such
as a compiler's source excerpt -- stay verbatim where they occurred, with a line of
context either side, unless the same anomaly repeats more than three times; a diagnostic
(`file:line:col: severity …`) shows one example and lists the rest by location. Summary
lines (counts, verdicts) and the closing region stay visible, and a folded group shows
what varies between its lines (`line_shapes.py` recognises these shapes, for any tool, and
`line_values.py` shows the values).
Inputs under a kilobyte fold only exact repeats. Long runs of distinct, unremarkable
lines keep their head, headings and tail. ANSI escapes never reach the visible text.

Everything not shown verbatim goes into omissions holding the exact original bytes
(ANSI escapes and CRLF included): with `Granularity.COARSE` one omission holds every
folded line in original order; with `Granularity.FINE` each folded group has its own.

This module plans what each line becomes; `log_model.py` holds the limits and the plan's
data, `log_render.py` turns the plan into visible text. `log_units.py` says where an
anomaly ends (a note belongs to the diagnostic before it), `log_sections.py` keeps each
failure's lines under its own heading with its assertion detail, and `log_pairs.py` keeps
values that vary together paired in a group line. Work is done on whole buffers
with compiled regexes where possible (ANSI stripping and templating run once over the
input, not per line), and every pass is linear, so a 5 MB single line or a 100 MB log
cost time in proportion to their size.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Iterator
from itertools import accumulate, compress, islice, repeat
from operator import ne, not_

from tokenlab.mapped import holds, let_go
from tokenlab.optimizers import OptimizerConfig, OptimizeResult, visible
from tokenlab.optimizers.lines import scan
from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.optimizers.lines import values as line_values
from tokenlab.optimizers.log.codeframes import plan_records
from tokenlab.optimizers.log.codes import code_counts
from tokenlab.optimizers.log.frames import Frames, fold_frame, is_failure_template
from tokenlab.optimizers.log.library import fold_library_frames
from tokenlab.optimizers.log.model import (
    DEFAULT_LIMITS,
    FOLD,
    KEEP,
    LINE_INDEX,
    POINTER_LINE_RE,
    Group,
    GroupKind,
    Item,
    Lines,
    LogLimits,
    MappedLines,
    Plan,
    Templates,
    indent,
    offset_typecode,
)
from tokenlab.optimizers.log.pairs import pair_repeats
from tokenlab.optimizers.log.render import lists_values, render
from tokenlab.optimizers.log.sections import (
    assertion_details,
    by_section,
    condense_sections,
    failure_sections,
    fold_frame_context,
    fold_like_sections,
    record_blocks,
    restates,
    told_names,
)
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
from tokenlab.optimizers.log.variants import merge_variants

__all__ = ["DEFAULT_LIMITS", "LogLimits", "optimize"]


# One chunk's temporaries (its lines, `re.sub`'s pieces) stay small at this size; 1 MB
# chunks raised the peak memory on a 100 MB log by 16 MB and were no faster.
_CHUNK = 1 << 16

_ANSI_RE = line_shapes.ANSI_RE
# A word holding a digit (number, timestamp part, hex id, duration, version), chained
# through `.:/-` so that a timestamp, IP:port or UUID becomes a single `#`. Anchored at
# a word boundary so that a long run of letters is scanned once, not once per position.
# Possessive: no run it takes can give a byte back to what follows it (letters before the
# digit, word bytes before a separator), so backing off would only retry what must fail
# (the whole input's templates: 15% faster).
_VARYING_RE = re.compile(rb"\b[A-Za-z_]*+\d\w*+(?:[.:/\-][A-Za-z_]*+\d\w*+)*+")
# A bracketed id holding a value (`[EUR-10]`, `[pool-1-thread-2]`, `[case_b3]`) is one value
# whole: ids of a parametrised test differ in their letters too (`[EUR-10]`, `[GBP-25]`), and
# split at their digits they made a template per letter prefix.
_BRACKETED_ID_RE = re.compile(rb"\[[^\s\[\]#]*+#[^\s\[\]]*+\]")
# `line_shapes.cut_tail` as it reads the bytes of a chunk of lines (`_cut_tails_marked`).
_CUT_TAIL_RE = re.compile(line_shapes.CUT_TAIL_PATTERN.replace("…", "\xe2\x80\xa6").encode("latin-1"))
_LINE_END_DOTS_RE = re.compile(rb"(?:\.\.\.|\xe2\x80\xa6)[ \t\r]*$", re.MULTILINE)
# Whitespace runs count as one space. Two patterns with literal prefixes, because an
# alternation would be tried at every byte: that alone cost a fifth of the run time.
_SPACES_RE = re.compile(rb"  +")
# A diagnostic's leading location in a template (`src/a.c:#:`, `a.ts(#,#):`; numbers are
# already `#`), when a severity or a rule code (`[-Wunused]`, `F401` now `#`) follows:
# `line_shapes.LOCATION_PATTERN` as it reads a template.
_LOCATION_RE = re.compile(
    rb"^([ \t]*)[^\s:()\[\]]*\.[A-Za-z]\w*(?::#:|\(#,#\):|: line #, col(?:umn)? #,)"
    rb"(?=.*?(?:\b(?:error|warning|note|info|hint|fatal|ERROR|WARNING|Error|Warning)\b|\[[\w#-]+\]|\s#\s))"
)
_QUOTED_RE = re.compile(rb"([`'\"]|\xe2\x80\x98)[^\s`'\"\xe2]{1,40}([`'\"]|\xe2\x80\x99)")
# A run of blanks holding a tab, tried only where the run starts (from each blank of a
# long run without a tab, the rest of the run was read again).
_TABS_RE = re.compile(rb"(?<![ \t]) *+\t[ \t]*+")
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

# A diagnostic's template: a leading location (`@:`), or a position and a severity under a
# file's heading (`  12:5  error  …`, eslint and stylelint).
_DIAGNOSTIC_KEY_RE = re.compile(rb"[ \t]*@:|[ \t]+# (?:error|warning|info|note|hint)\b(?!:)")
# A separator rule: a line of `=`, `-`, `_`, `*`, `#` or `~`, maybe with a title inside.
_RULE_RE = re.compile(rb"\s*(?:[=\-_*#~]{5,}\s*$|[=_-]{3,} \S.* [=_-]{3,}\s*$)")
# A field of a closing details block, after up to three words of a line prefix the log's
# lines share: `npm notice filename: npm-11.19.1.tgz`, `  Version: 2.4.1`.
_CLOSING_FIELD_RE = re.compile(rb"\s*(?:\S+ ){0,3}?[A-Za-z][\w'/-]*(?: [\w'/-]+){0,3}: +\S")


def optimize(data: bytes, config: OptimizerConfig, limits: LogLimits = DEFAULT_LIMITS) -> OptimizeResult:
    small = len(data) < limits.small_input_bytes
    lines, templates = _split(data, exact=small)
    if not len(lines):
        return OptimizeResult(())
    plan = _plan(lines, templates, limits)
    codes = code_counts(lines, templates)
    # The per-line template numbers go before the coarse omission, nearly a copy of the
    # input, is built.
    del templates
    items = _failures_first(_items(lines, plan), lines, limits)
    if not small:
        items = _fold_runs(items, lines, plan, limits, codes.examples(plan.role))
    items = _fold_stray_blanks(items, lines, plan)
    _fold_long_lines(items, lines, plan, limits)
    for group in plan.groups:
        if group.blanks:
            group.lines = array(LINE_INDEX, sorted(group.lines))
    if not plan.groups:
        return OptimizeResult((visible(_ANSI_RE.sub(b"", data)),), plan.signals)
    plan.codes = codes.census(plan.role)
    return render(items, lines, plan, config.granularity, limits)


def _split(data: bytes, exact: bool = False) -> tuple[Lines, Templates]:
    """The lines and their templates; with `exact`, a line's template is the line itself."""
    held_as = Lines if isinstance(data, bytes) else MappedLines
    lines = held_as(data, array(offset_typecode(len(data))), [] if holds(data, b"\x1b") else None)
    templates = Templates()
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
        templates = templates.widened(len(keys))  # each line may be a new template
        _index(lines, templates, raw, keys)
    return lines, templates if exact else _merge_located_and_quoted(templates)


def _chunks(data: bytes) -> Iterator[bytes]:
    """Slices of about `_CHUNK` bytes, each ending just after a LF (so CRLF is never split).

    Templating a chunk at a time bounds the temporary pieces `re.sub` builds; a mapped
    input's pages are given back once a chunk is read.
    """
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + _CHUNK) + 1 or len(data)
        yield data[start:end]
        let_go(data, start, end)
        start = end


def _index(lines: Lines, templates: Templates, raw: list[bytes], keys: list[bytes]) -> None:
    """Append lines, numbering their templates."""
    numbers, members, of_line = templates.numbers, templates.members, templates.of_line
    offset = lines.ends[-1] if lines.ends else 0
    lines.ends.extend(islice(accumulate(map(len, raw), initial=offset), 1, None))
    for index, key in enumerate(keys, len(lines) - len(raw)):
        number = numbers.get(key)
        if number is None:
            number = numbers[key] = len(members)
            templates.keys.append(key)
            members.append(array(LINE_INDEX))
        members[number].append(index)
        of_line.append(number)


def _template(text: bytes) -> bytes:
    """Lines that differ only in numbers, ids, times, spacing or where their tool cut them
    (`line_shapes.cut_tail`) get the same template."""
    if b"..." in text or b"\xe2\x80\xa6" in text:
        text = _cut_tails_marked(text)
    template = _VARYING_RE.sub(b"#", text)
    if b"[" in template:
        template = _BRACKETED_ID_RE.sub(b"[#]", template)
    if b"\t" in template:
        template = _TABS_RE.sub(b" ", template)
    template = _SPACES_RE.sub(b" ", template)
    if b" ... " in template:
        template = _UNITTEST_OUTCOME_RE.sub(rb"<test> ... \1", template)
        template = _UNITTEST_ID_RE.sub(b"<test> ()", template)
    if b"::" in template:
        template = _PYTEST_OUTCOME_RE.sub(rb"\1::<test> \2", template)
    return template


def _cut_tails_marked(text: bytes) -> bytes:
    """`text` with each line's cut tail (`line_shapes.cut_tail`) as `#...`."""
    pieces: list[bytes] = []
    at = 0
    for end in _LINE_END_DOTS_RE.finditer(text):
        start = text.rfind(b"\n", 0, end.start()) + 1
        if end.end() - start < line_shapes.CUT_WIDTH:
            continue
        cut = _CUT_TAIL_RE.search(text, max(start, end.end() - line_shapes.CUT_WIDTH), end.end())
        if cut is not None:
            pieces += [text[at : cut.start()], b"#..."]
            at = cut.end()
    return b"".join([*pieces, text[at:]]) if pieces else text


def _merge_located_and_quoted(templates: Templates) -> Templates:
    """Templates that differ only in a diagnostic's leading location or in short quoted
    names become one (see `line_shapes.slots`). Done on the distinct templates, a few
    hundred regex calls, rather than on every line."""
    merged = Templates(of_line=array(templates.of_line.typecode))
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
            merged.members[target] = array(LINE_INDEX, sorted(merged.members[target] + templates.members[number]))
        target_of.append(target)
    if len(merged.keys) == len(templates.keys):  # nothing merged: numbers are unchanged
        return Templates(merged.keys, merged.numbers, merged.members, templates.of_line)
    merged.of_line.extend(map(target_of.__getitem__, templates.of_line))
    return merged


def _plan(lines: Lines, templates: Templates, limits: LogLimits) -> Plan:
    plan = Plan(bytearray(len(lines)))
    plan.anomalous = {number for number, key in enumerate(templates.keys) if _ANOMALY_RE.search(key)}
    plan.anomalous |= _framed_headers(lines, templates)
    plan.anomalous |= _located_with_carets(lines, templates)
    plan.anomalous |= _located_first(lines, templates, limits)
    plan_records(lines, plan, limits)
    sections = failure_sections(lines)
    if sections is not None:
        fold_like_sections(lines, sections, plan, limits)
        for i in assertion_details(lines, sections, limits):
            if not plan.role[i]:
                plan.role[i] = KEEP
    kept = _place_anomalies(lines, templates, plan, limits, sections)
    repeated = [i for group in plan.groups if group.kind is GroupKind.REPEAT for i in group.heads]
    pair_repeats(plan, lines, limits)
    # A repeat shown after all (its values vary together, or it is seen once more) has its
    # context too: a failing test's label above its `… ERROR` line is that test's.
    kept += [range(i, i + 1) for i in repeated if plan.role[i] == KEEP]
    _mark_context(kept, templates, plan, limits, lines)
    summaries = _keep_summaries(lines, templates, plan, limits)
    _keep_closing_region(lines, templates, plan, limits)
    _keep_record_headers(lines, templates, plan, limits)
    plan.signals = tuple(dict.fromkeys([*_failure_lines(lines, templates, plan, limits), *summaries]))
    if sections is not None:
        condense_sections(lines, sections, plan, limits)
        fold_frame_context(lines, sections, plan)
    fold_library_frames(lines, plan, limits)
    role = plan.role
    records = record_blocks(lines, templates.key, limits.min_group)
    in_records: list[Group] = []
    keys: dict[int, bytes] = {}
    for number, key in enumerate(templates.keys):
        if number in plan.anomalous or not key.strip():
            continue
        free = templates.members[number]
        if any(map(role.__getitem__, free)):  # most templates lose no line: no copy for them
            free = array(LINE_INDEX, compress(free, map(not_, map(role.__getitem__, free))))
        # A section's lines fold only with that section's; a rule (`_ _ _`, between a
        # traceback's entries) says nothing of any section and folds across them.
        split = None if _RULE_LINE_RE.match(key) else sections
        for part in _by_record(by_section(free, split), records) if len(free) >= limits.min_group else ():
            if len(part) >= limits.min_group:
                for i in part:
                    role[i] = FOLD
                group = Group(GroupKind.TEMPLATE, part, identical=_all_same(lines, part))
                (in_records if records is not None and records[part[0]] else plan.groups).append(group)
                keys[part[0]] = key
    # A record's group lines read as that record's: they never merge with another shape's.
    plan.groups = merge_variants(plan.groups, keys, lines, limits, lists_values) + in_records
    return plan


# A framed record's pointer (see `units.pointer_of`), from the line break before it: an
# arrow or a drawn frame's corner holding the location. (A header over an indented
# location alone says its severity, so it is an anomaly already.)
_POINTER_START_RE = re.compile(rb"\n[ \t]*(?:--> \S|,-\[|\xe2\x95\xad\xe2\x94\x80\[|\xe2\x94\x8c\xe2\x94\x80 )")
_POINTERS = (b"--> ", b",-[", b"\xe2\x95\xad\xe2\x94\x80[", b"\xe2\x94\x8c\xe2\x94\x80 ")


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


_NOTE_KEY_RE = re.compile(rb"[ \t]*@: note\b")


def _located_with_carets(lines: Lines, templates: Templates, tried: int = 3) -> set[int]:
    """The templates of diagnostics at a location (`@:`, see `_merge_located_and_quoted`)
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


def _by_record(parts: list[array[int]], records: array[int] | None) -> list[array[int]]:
    return parts if records is None else [piece for part in parts for piece in by_section(part, records)]


def _all_same(lines: Lines, members: array[int]) -> bool:
    if lines.stripped is not None:
        first = lines.stripped[members[0]]
        return all(lines.stripped[i] == first for i in members)
    first = lines.raw(members[0])
    return all(lines.raw(i) == first for i in members)


def _is_diagnostic_key(key: bytes, known: dict[bytes, bool]) -> bool:
    found = known.get(key)
    if found is None:
        found = known[key] = _DIAGNOSTIC_KEY_RE.match(key) is not None
    return found


def _place_anomalies(
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
        elif len(unit) == 1 and told and not sections[start] and restates(lines.clean(start), told):
            # A run's list of failures its sections tell in full: when many, one group line
            # names them all; examples would tell them a third time.
            many = len(templates.members[templates.of_line[start]]) > limits.verbatim_repeats
            shown = 0 if many else shown
        if seen[key] > shown:
            role = FOLD
            group = repeats.get(key)
            if group is None:
                group = repeats[key] = Group(GroupKind.REPEAT, array(LINE_INDEX), after_shown=shown > 0)
                group.examples.extend(examples.get(key, ()))
                plan.groups.append(group)
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


def _keep_summaries(lines: Lines, templates: Templates, plan: Plan, limits: LogLimits) -> list[str]:
    """Keep summary lines (counts, verdicts) visible: every line of a shape seen up to
    `summary_lines` times, else its last line. Returns them as shown."""
    shown: list[str] = []
    for number, members in enumerate(templates.members):
        candidates = members if len(members) <= limits.summary_lines else members[-1:]
        first = lines.text(candidates[0], limits.line_bytes)
        if not line_shapes.is_summary(first):
            continue
        for i in candidates:
            if i in plan.in_frames:
                continue  # a source line quoted in a frame counts nothing of the run
            if not plan.role[i]:  # an anomaly is kept, or folded with its values shown
                plan.role[i] = KEEP
            shown.append(lines.text(i, limits.line_bytes).strip())
    return shown


def _failure_lines(lines: Lines, templates: Templates, plan: Plan, limits: LogLimits) -> list[str]:
    """Every failure line (a subset of the anomalies), as shown."""
    found: list[str] = []
    for number in sorted(plan.anomalous, key=lambda n: templates.members[n][0]):
        members = templates.members[number]
        if line_shapes.is_failure(lines.text(members[0], limits.line_bytes)):
            found += [lines.text(i, limits.line_bytes).strip() for i in members if i not in plan.in_frames]
    return found


def _keep_closing_region(lines: Lines, templates: Templates, plan: Plan, limits: LogLimits) -> None:
    """Keep the last lines after the last separator rule near the end (or the last few)."""
    last = len(lines)
    start = max(0, last - limits.closing_lines_default)
    for i in range(last - 1, max(-1, last - 1 - limits.closing_search), -1):
        if _RULE_RE.match(lines.clean(i)):
            start = i
            break
    start = _details_block_start(lines, start, limits)
    # Lines of a routine shape (seen `min_group` times or more) before the last line are
    # shown by their group line; the last line stays whatever it is (the final state).
    members, of_line = templates.members, templates.of_line
    for i in range(start, last):
        if not plan.role[i] and (i == last - 1 or len(members[of_line[i]]) < limits.min_group):
            plan.role[i] = KEEP


# A record's leading word: letters first, no digit (a timestamp or a count leads no record).
_LEADING_WORD_RE = re.compile(rb"([A-Za-z][A-Za-z_.\-]{2,})[ \t:]")


def _keep_record_headers(lines: Lines, templates: Templates, plan: Plan, limits: LogLimits) -> None:
    """Keep a dump's header: its first lines (the file, its format, version and flags: what
    a reader reads first), up to a blank line, the first of a run of alike lines (the
    body's entries) or `header_lines`, and the same of each later record whose first line
    is led by the same word at the margin (the next class or file of a dump of several).
    A word leading many lines leads every line, no record."""
    first = next((i for i in range(min(len(lines), limits.header_lines)) if lines.clean(i).strip()), None)
    if first is None:
        return
    word = _LEADING_WORD_RE.match(lines.clean(first))
    if word is None:
        return
    # Each match starts at the newline ending the line before the record's.
    later = (bisect_right(lines.ends, at) + 1 for at in scan.offsets(lines.data, (b"\n" + word[0],)))
    starts = [first, *(start for start in later if first < start < len(lines))]
    if len(starts) * limits.record_start_rarity > len(lines) and len(starts) > 1:
        return
    of_line = templates.of_line
    for start in starts:
        stop = min(len(lines), start + limits.header_lines)
        for i in range(start, stop):
            if not lines.clean(i).strip() or of_line[i] in of_line[i + 1 : stop + 1]:
                break
            if not plan.role[i]:
                plan.role[i] = KEEP


def _details_block_start(lines: Lines, start: int, limits: LogLimits) -> int:
    """Where a block of fields ending in the closing region starts, with the heading line
    above it (`Tarball Details`, then `name:`, `version:`, `filename:`…): a tool's summary
    of what it did, read as a whole, so it joins the closing region."""
    first = start
    while first > 0 and start - first < limits.closing_search and _CLOSING_FIELD_RE.match(lines.clean(first - 1)):
        first -= 1
    # Without a heading line above them (a log whose lines all read `x: y`, or more fields
    # than the closing search reads), the fields are the log's own lines, not its details.
    if start - first < _DETAILS_MIN_FIELDS or first == 0 or _CLOSING_FIELD_RE.match(lines.clean(first - 1)):
        return start
    return first - 1


_DETAILS_MIN_FIELDS = 2  # fewer fields above the closing lines are no details block


def _mark_context(
    kept: list[range], templates: Templates, plan: Plan, limits: LogLimits, lines: Lines
) -> None:
    """The lines around each kept anomaly. The line after it is context only when it is not
    routine: a line of a shape seen `min_group` times or more is the next step (the next
    compile, the next request), and its group line shows it; unless a rule follows it,
    which closes the anomaly's heading (`ERROR: test_parse:5`, its parameters `'1.2'`,
    `-----`): then it is the rest of that heading, never grouped with other headings'."""
    role, of_line, members = plan.role, templates.of_line, templates.members
    last = len(of_line)
    for unit in kept:
        before = range(max(0, unit.start - limits.context_before), unit.start)
        after = range(unit.stop, min(last, unit.stop + limits.context_after))
        if any(len(members[of_line[i]]) >= limits.min_group for i in after) and not (
            after.stop < last and len(unit) == 1 and _RULE_RE.match(lines.clean(after.stop))
        ):
            after = range(after.start, after.start)
        for i in (*before, *after):
            if not role[i] and of_line[i] not in plan.anomalous and _PASSING_TEST not in templates.key(i):
                role[i] = KEEP


def _items(lines: Lines, plan: Plan) -> list[Item]:
    """Visible items in reading order; a group appears where its first line was."""
    heads = {group.lines[0]: group for group in plan.groups}
    role = plan.role
    # The lines not folded and the groups' first lines, picked and sorted in C: a large
    # log's lines are mostly folded, and each was read here in Python.
    shown = list(compress(range(len(lines)), map(ne, role, repeat(FOLD))))
    shown += [index for index in heads if role[index] == FOLD]
    shown.sort()
    return list(map(heads.get, shown, shown))


def _failures_first(items: list[Item], lines: Lines, limits: LogLimits) -> list[Item]:
    """Items with each run of adjacent group lines reordered so that groups of failures
    (errors, failed tests) come before the others (warnings): when a build's errors and
    warnings are both folded, the errors are what is read first. Otherwise in order."""
    result: list[Item] = []
    run: list[Group] = []
    for item in [*items, None]:
        if isinstance(item, Group) and item.kind in _SHAPED:
            run.append(item)
            continue
        run.sort(key=lambda group: not line_shapes.is_failure(lines.text(group.lines[0], limits.line_bytes)))
        result += run
        run = []
        if item is not None:
            result.append(item)
    return result


_SHAPED = (GroupKind.TEMPLATE, GroupKind.REPEAT)  # groups of one shape of line


def _fold_runs(items: list[Item], lines: Lines, plan: Plan, limits: LogLimits, examples: set[int]) -> list[Item]:
    """Shorten long runs of distinct unremarkable lines to their head and tail. A heading
    (after a blank line, above more indented lines: a failed test's title, a section's
    name) stays visible and splits the run, and so does an outlier: a line whose duration,
    size or count is far beyond the run's others (the slowest query) is what is read, and
    so do the `examples`, each the one line left to show a rule code the census counts."""
    result: list[Item] = []
    run: list[int] = []

    def flush() -> None:
        if len(run) <= limits.distinct_run:
            result.extend(run)
        else:
            tail = len(run) - limits.run_tail
            texts = [lines.text(i, limits.line_bytes) for i in run]
            shown = {run[p] for p in line_values.outliers(texts) if limits.run_head <= p < tail}
            shown.update(i for i in run[limits.run_head : tail] if i in examples)
            result.extend([*run[: limits.run_head], *_fold_between(run[limits.run_head : tail], shown, plan)])
            result.extend(run[tail:])
        run.clear()

    for item in items:
        if isinstance(item, int) and not plan.role[item] and not _heading(lines, item):
            run.append(item)
            continue
        flush()
        result.append(item)
    flush()
    return result


def _fold_between(middle: list[int], shown: set[int], plan: Plan) -> list[Item]:
    """`middle` with its `shown` lines visible and each stretch between them folded; a
    stretch of one line stays visible too, as its fold mark would be no shorter."""
    items: list[Item] = []
    stretch: list[int] = []
    for i in [*middle, None]:
        if i is not None and i not in shown:
            stretch.append(i)
            continue
        if len(stretch) > 1:
            group = Group(GroupKind.RUN, array(LINE_INDEX, stretch))
            plan.groups.append(group)
            for j in stretch:
                plan.role[j] = FOLD
            items.append(group)
        else:
            items.extend(stretch)
        stretch = []
        if i is not None:
            items.append(i)
    return items


def _heading(lines: Lines, index: int) -> bool:
    """A title: above a rule (underlined), or above more indented lines when the line
    before it is blank or a rule."""
    if index == 0 or index + 2 >= len(lines):
        return False
    line, previous = lines.clean(index), lines.clean(index - 1)
    if line.strip() and _RULE_RE.match(lines.clean(index + 1)) and not _RULE_RE.match(line):
        return True
    own = indent(line)
    if previous.strip() and not _RULE_RE.match(previous):
        return False
    below = lines.clean(index + 1) if lines.clean(index + 1).strip() else lines.clean(index + 2)
    return own <= _HEADING_INDENT and bool(below.strip()) and indent(below) > own


_RULE_LINE_RE = re.compile(rb"\s*([=\-_*~])(?: ?\1){3,}\s*$")
# Headings start near the margin; a more indented line after a blank one is a block of
# code or text (a traceback's source), not a title.
_HEADING_INDENT = 2


def _fold_stray_blanks(items: list[Item], lines: Lines, plan: Plan) -> list[Item]:
    """Blank lines left between folded lines would pile up; fold them into the group above.

    A blank line stays visible only right after a visible non-blank line.
    """
    result: list[Item] = []
    last_group: Group | None = None
    for item in items:
        if isinstance(item, Group):
            last_group = item
        elif last_group is not None and not lines.clean(item).strip():
            previous = result[-1]
            if isinstance(previous, Group) or not lines.clean(previous).strip():
                last_group.lines.append(item)
                last_group.blanks += 1
                plan.role[item] = FOLD
                continue
        result.append(item)
    return result


def _fold_long_lines(items: list[Item], lines: Lines, plan: Plan, limits: LogLimits) -> None:
    """A verbatim line longer than `line_bytes` is cut; the whole line goes behind a ref."""
    for position, item in enumerate(items):
        if isinstance(item, int) and len(lines.clean(item)) > limits.line_bytes:
            group = Group(GroupKind.LONG, array(LINE_INDEX, [item]))
            plan.groups.append(group)
            plan.role[item] = FOLD
            items[position] = group


