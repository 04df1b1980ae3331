"""Values that vary together stay together in a folded anomaly's group line.

A group line lists each varying slot's values in line order (`{a.ts(3,5) b.ts(3,7)}`,
`{string, number}`): a reader pairs the n-th value of one list with the n-th of another.
That holds for a location and one value, but not for two or more values that vary
together: `Type '{string, number, …}' is not assignable to type '{number, string, …}'`
reads as any combination. So, for the further repeats of an anomaly:

- when those values take a few combinations (at most `inline_values`, each seen at least
  twice on average), the group splits into one group per combination, each listing only
  its locations: `Type 'string' … 'number'` and `Type 'number' … 'string'` apart;
- a group of one repeat is none: its first line is shown;
- otherwise, one-line failures (`FAILED tests/a.py::t1 - assert 35 == 36`) show their
  shape once and each failure's values as a row, paired as printed; a few (at most
  `sections_in_full`) stay verbatim: each is read whole, and a group line would cost as much;
- a run's closing list of failures its sections told above (`Group.told`) shows their
  shape alone: their values are read, paired, in those sections.
"""

from __future__ import annotations

from array import array

from tokenlab.optimizers.lines import families
from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.optimizers.lines import shown as line_shown
from tokenlab.optimizers.lines.shapes import VaryingSlots
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
)
from tokenlab.optimizers.log.render import with_headings
from tokenlab.optimizers.log.units import is_pointer, message_after


def pair_repeats(plan: Plan, lines: Lines, limits: LogLimits) -> None:
    """Split or unfold the REPEAT groups whose values vary together (see the module)."""
    result: list[Group] = []
    for group in plan.groups:
        if group.kind is GroupKind.REPEAT and group.units == 1:
            result += _single(group, plan, lines, limits)
            continue
        if group.kind is GroupKind.REPEAT and group.told:
            group.said = _told_line(group, lines, limits) or ""
            group.told = bool(group.said)  # lines of several shapes have their values paired
        if group.kind is not GroupKind.REPEAT or group.told:
            result.append(group)
            continue
        texts = with_headings(lines, group.heads, limits)
        found = line_shapes.varying_slots(texts)
        combos = _combinations(found)
        if combos is None:
            group.head_slots = (len(group.heads), found)
            result.append(group)
            continue
        distinct = dict.fromkeys(combos)
        if 2 <= len(distinct) <= limits.inline_values and len(distinct) * 2 <= len(combos):
            for part in _split(group, combos):
                result += [part] if part.units > 1 else _single(part, plan, lines, limits)
        elif len(group.lines) == len(group.heads) and line_shapes.is_failure(texts[0]) and _paired(found):
            if _as_rows(group, plan, lines, limits):
                result.append(group)
            else:
                for i in group.lines:
                    plan.role[i] = KEEP
        else:
            group.head_slots = (len(group.heads), found)
            result.append(group)
    plan.groups = result


def _told_line(group: Group, lines: Lines, limits: LogLimits) -> str | None:
    """A run's closing lines naming failures told above, by their shape alone: each value
    is read in the failure's section above (`FAILED t.py::test_x[#] - … {each # as told
    above}`), and listing them again would tell them a third time. None when the lines
    are of several shapes."""
    found = families.family([[text] for text in with_headings(lines, group.heads, limits)])
    if found is None or not found.varying:
        return None
    return f"{found.headline()} {{{line_shown.TOLD_ABOVE}}}"


def _as_rows(group: Group, plan: Plan, lines: Lines, limits: LogLimits) -> bool:
    """Make `group` one line of rows (`_rows`), taking in the examples shown before it but
    the first: records of one shape show the first whole, the rest by their values. False
    when they stay verbatim."""
    taken = group.examples[1:]
    said = _rows(with_headings(lines, [*taken, *group.heads], limits), limits)
    if said is None:
        return False
    for i in taken:
        plan.role[i] = FOLD
    group.lines = array(LINE_INDEX, sorted([*taken, *group.lines]))
    group.heads = array(LINE_INDEX, sorted([*taken, *group.heads]))
    group.units += len(taken)
    group.kind, group.said = GroupKind.RECORDS, said
    return True


def _rows(texts: list[str], limits: LogLimits) -> str | None:
    """One-line failures whose values vary together, more than `sections_in_full`, as one
    line: their shape once, then each failure's values as a row (`families.Family.table`:
    `[10 to 150 step 7-DE]`, `value: 1050 961; 1450 961; …`), so that each value stays beside
    its own. None for a few: each is read whole, and a group line would cost as much."""
    if len(texts) <= limits.sections_in_full:
        return None
    found = families.family([[text] for text in texts])
    if found is None or not found.varying:
        return None
    said = f"{found.headline()} {{{found.table()}}}"
    # Rows whose values a rule reshaped past what the signal check reads stay verbatim.
    return said if all(line_shown.shown_by(text, said) for text in texts) else None


def _single(group: Group, plan: Plan, lines: Lines, limits: LogLimits) -> list[Group]:
    """A repeat seen once more is no group (`[×1]`): its first line and location are
    shown, and the rest of it (a code frame) folds on the line after them."""
    shown = 1
    if message_after(lines, group.lines[0], limits) is not None:
        shown = len(group.lines)  # its location alone says nothing without its message
    while shown < len(group.lines) and _says_where(lines, group.lines[shown : shown + 2]):
        shown += 1  # where it is (` --> src/a.rs:3:5`, `  ,-[src/a.js:3:5]`) stays with it
    for i in group.lines[:shown]:
        plan.role[i] = KEEP
    rest = group.lines[shown:]
    return [Group(GroupKind.TAIL, rest)] if rest else []


def _says_where(lines: Lines, at: array[int]) -> bool:
    """Whether the first of `at` points at where a diagnostic is, or is the blank line
    that sets such a pointer apart from its header."""
    line = lines.clean(at[0])
    if not line.strip() and len(at) > 1:
        line = lines.clean(at[1])
    return POINTER_LINE_RE.match(line) is not None or is_pointer(line)


def _combinations(found: VaryingSlots | None) -> list[tuple[str, ...]] | None:
    """Each line's values other than its location, where they vary (`found`: the lines'
    `varying_slots`); None when nothing but the location varies (a location list pairs
    with nothing)."""
    if found is None:
        return None
    split, varying = found
    columns = [[values[p] for _, values in split] for p in varying]
    # The first value says whether to read the rest: a large group's values are many.
    kept = [c for c in columns if not line_shapes.is_location(c[0]) or line_shapes.location_parts(c) is None]
    if not kept:
        return None
    return list(zip(*kept))


def _paired(found: VaryingSlots | None) -> bool:
    """Whether two or more values besides the location vary independently (`found`: the
    lines' `varying_slots`): a value that repeats another on each line (`sku37: -37`,
    `'USD 15.00' == 'EUR 15.00'`) pairs itself."""
    if found is None:
        return False
    split, varying = found
    independent: list[int] = []
    for p in varying:
        if all(line_shapes.is_location(values[p]) for _, values in split):
            continue
        if not any(all(values[p] in values[q] or values[q] in values[p] for _, values in split) for q in independent):
            independent.append(p)
    return len(independent) >= 2


def _split(group: Group, combos: list[tuple[str, ...]]) -> list[Group]:
    """One REPEAT group per combination of values, each with its own units."""
    heads = set(group.heads)
    parts: dict[tuple[str, ...], Group] = {}
    unit = -1
    part = group  # every unit starts at its head, the first of the group's lines
    for i in group.lines:
        if i in heads:
            unit += 1
            if combos[unit] not in parts:
                parts[combos[unit]] = Group(GroupKind.REPEAT, array(LINE_INDEX), after_shown=group.after_shown)
            part = parts[combos[unit]]
            part.heads.append(i)
            part.units += 1
        part.lines.append(i)
    return list(parts.values())
