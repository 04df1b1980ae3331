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

This module plans what each line becomes; `model.py` holds the limits and the plan's
data, `render.py` turns the plan into visible text. `templates.py` gives each line its
template, `anomalies.py` finds the anomalies and places each, and `items.py` folds the
visible items (long runs, stray blanks, long lines). `units.py` says where an
anomaly ends (a note belongs to the diagnostic before it), `sections.py` keeps each
failure's lines under its own heading with its assertion detail, and `pairs.py` keeps
values that vary together paired in a group line. Work is done on whole buffers
with compiled regexes where possible (ANSI stripping and templating run once over the
input, not per line), and every pass is linear, so a 5 MB single line or a 100 MB log
cost time in proportion to their size.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from itertools import compress
from operator import not_

from tokenlab.optimizers import OptimizerConfig, OptimizeResult, visible
from tokenlab.optimizers.lines import scan
from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.optimizers.log.anomalies import anomalous_templates, place_anomalies
from tokenlab.optimizers.log.codeframes import plan_records
from tokenlab.optimizers.log.codes import code_counts
from tokenlab.optimizers.log.items import (
    failures_first,
    fold_long_lines,
    fold_runs,
    fold_stray_blanks,
    visible_items,
)
from tokenlab.optimizers.log.library import fold_library_frames
from tokenlab.optimizers.log.model import (
    DEFAULT_LIMITS,
    FOLD,
    KEEP,
    LINE_INDEX,
    RULE_RE,
    Group,
    GroupKind,
    Lines,
    LogLimits,
    Plan,
    Templates,
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
)
from tokenlab.optimizers.log.templates import PASSING_TEST, lines_and_templates
from tokenlab.optimizers.log.variants import merge_variants
from tokenlab.patterns import compile_on_use

__all__ = ["DEFAULT_LIMITS", "LogLimits", "optimize"]


# A field of a closing details block, after up to three words of a line prefix the log's
# lines share: `npm notice filename: npm-11.19.1.tgz`, `  Version: 2.4.1`.
_CLOSING_FIELD_RE = compile_on_use(rb"\s*(?:\S+ ){0,3}?[A-Za-z][\w'/-]*(?: [\w'/-]+){0,3}: +\S")
# A rule between a traceback's entries (`_ _ _`): it folds across sections (`_plan`).
_RULE_LINE_RE = compile_on_use(rb"\s*([=\-_*~])(?: ?\1){3,}\s*$")


def optimize(data: bytes, config: OptimizerConfig, limits: LogLimits = DEFAULT_LIMITS) -> OptimizeResult:
    small = len(data) < limits.small_input_bytes
    lines, templates = lines_and_templates(data, exact=small)
    if not len(lines):
        return OptimizeResult(())
    plan = _plan(lines, templates, limits)
    codes = code_counts(lines, templates)
    # The per-line template numbers go before the coarse omission, nearly a copy of the
    # input, is built.
    del templates
    items = failures_first(visible_items(lines, plan), lines, limits)
    if not small:
        items = fold_runs(items, lines, plan, limits, codes.examples(plan.role))
    items = fold_stray_blanks(items, lines, plan)
    fold_long_lines(items, lines, plan, limits)
    for group in plan.groups:
        if group.blanks:
            group.lines = array(LINE_INDEX, sorted(group.lines))
    if not plan.groups:
        return OptimizeResult((visible(line_shapes.ANSI_RE.sub(b"", data)),), plan.signals)
    plan.codes = codes.census(plan.role)
    return render(items, lines, plan, config.granularity, limits)


def _plan(lines: Lines, templates: Templates, limits: LogLimits) -> Plan:
    plan = Plan(bytearray(len(lines)))
    plan.anomalous = anomalous_templates(lines, templates, limits)
    plan_records(lines, plan, limits)
    sections = failure_sections(lines)
    if sections is not None:
        fold_like_sections(lines, sections, plan, limits)
        for i in assertion_details(lines, sections, limits):
            if not plan.role[i]:
                plan.role[i] = KEEP
    kept = place_anomalies(lines, templates, plan, limits, sections)
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


def _by_record(parts: list[array[int]], records: array[int] | None) -> list[array[int]]:
    return parts if records is None else [piece for part in parts for piece in by_section(part, records)]


def _all_same(lines: Lines, members: array[int]) -> bool:
    if lines.stripped is not None:
        first = lines.stripped[members[0]]
        return all(lines.stripped[i] == first for i in members)
    first = lines.raw(members[0])
    return all(lines.raw(i) == first for i in members)


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
        if RULE_RE.match(lines.clean(i)):
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
_LEADING_WORD_RE = compile_on_use(rb"([A-Za-z][A-Za-z_.\-]{2,})[ \t:]")


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
            after.stop < last and len(unit) == 1 and RULE_RE.match(lines.clean(after.stop))
        ):
            after = range(after.start, after.start)
        for i in (*before, *after):
            if not role[i] and of_line[i] not in plan.anomalous and PASSING_TEST not in templates.key(i):
                role[i] = KEEP

