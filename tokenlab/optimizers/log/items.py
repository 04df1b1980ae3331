"""The visible items of a log in reading order, and the folds made on them: long runs of
distinct lines, stray blank lines, long lines and lines of many settings (see `optimizer.py`).
"""

from __future__ import annotations

import re
from array import array
from itertools import compress, repeat
from operator import ne

from tokenlab.optimizers import visible
from tokenlab.optimizers.lines import quantities as line_quantities
from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.optimizers.log.model import (
    FOLD,
    LINE_INDEX,
    RULE_RE,
    SHOWN_CONTROLS,
    Group,
    GroupKind,
    Item,
    Lines,
    LogLimits,
    Plan,
    indent,
)
from tokenlab.patterns import compile_on_use

def visible_items(lines: Lines, plan: Plan) -> list[Item]:
    """Visible items in reading order; a group appears where its first line was."""
    heads = {group.lines[0]: group for group in plan.groups}
    role = plan.role
    # The lines not folded and the groups' first lines, picked and sorted in C: a large
    # log's lines are mostly folded, and each was read here in Python.
    shown = list(compress(range(len(lines)), map(ne, role, repeat(FOLD))))
    shown += [index for index in heads if role[index] == FOLD]
    shown.sort()
    return list(map(heads.get, shown, shown))


def failures_first(items: list[Item], lines: Lines, limits: LogLimits) -> list[Item]:
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


def fold_runs(items: list[Item], lines: Lines, plan: Plan, limits: LogLimits, examples: set[int]) -> list[Item]:
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
            shown = {run[p] for p in line_quantities.outliers(texts) if limits.run_head <= p < tail}
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
    if line.strip() and RULE_RE.match(lines.clean(index + 1)) and not RULE_RE.match(line):
        return True
    own = indent(line)
    if previous.strip() and not RULE_RE.match(previous):
        return False
    below = lines.clean(index + 1) if lines.clean(index + 1).strip() else lines.clean(index + 2)
    return own <= _HEADING_INDENT and bool(below.strip()) and indent(below) > own


# Headings start near the margin; a more indented line after a blank one is a block of
# code or text (a traceback's source), not a title.
_HEADING_INDENT = 2


def fold_stray_blanks(items: list[Item], lines: Lines, plan: Plan) -> list[Item]:
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


# A setting as a tool lists its configuration: `min_rounds=5`, `timer=time.perf_counter`.
_SETTING_RE = compile_on_use(rb"(?<![^\s(,])[A-Za-z_][\w.-]*=[^\s=,()]+(?=[\s,)]|$)")
# A setting that gives an event's severity (`level=error`): the line is an event, not a configuration.
_SEVERITY_SET_RE = compile_on_use(rb"=(?i:err|error|warn|warning|fatal|crit|critical|panic|fail|failed)(?![\w.-])")
# A structured log record (logfmt) names its level or message as a key: its fields are the
# event, not a tool's settings, whatever its level (`level=info … status=500`).
_RECORD_KEY_RE = compile_on_use(rb"(?<![^\s(,])(?i:level|lvl|severity|msg|message)=")


def _settings_cut(text: bytes, limits: LogLimits) -> str:
    """A line of many settings cut after its first `settings_shown` (`benchmark: 5.2.3
    (defaults: timer=time.perf_counter disable_gc=False…`): each value is one of a tool's
    defaults, read as a whole only when asked. "" when it lists fewer in one run (only
    spaces or commas between them: measurements with units, `write=0.007 s, sync=…`, are
    no configuration), tells a failure or a severity (`level=error`), or is a structured log
    record (`level=info msg=…`)."""
    run: list[re.Match[bytes]] = []
    for setting in _SETTING_RE.finditer(text):
        if run and text[run[-1].end() : setting.start()].strip(b" \t,"):
            run = []
        run.append(setting)
        if len(run) >= limits.settings_listed:
            break
    if len(run) < limits.settings_listed or _SEVERITY_SET_RE.search(text) or _RECORD_KEY_RE.search(text):
        return ""
    if line_shapes.is_failure(text.decode(errors="replace")):
        return ""
    return visible(text[: run[limits.settings_shown - 1].end()].translate(SHOWN_CONTROLS)) + "…"


def fold_long_lines(items: list[Item], lines: Lines, plan: Plan, limits: LogLimits) -> None:
    """A verbatim line longer than `line_bytes` is cut, and a line of many settings after its
    first ones (`_settings_cut`); the whole line goes behind a ref."""
    for position, item in enumerate(items):
        if not isinstance(item, int):
            continue
        said = _settings_cut(lines.clean(item), limits)
        if said or len(lines.clean(item)) > limits.line_bytes:
            group = Group(GroupKind.LONG, array(LINE_INDEX, [item]), said=said)
            plan.groups.append(group)
            plan.role[item] = FOLD
            items[position] = group


