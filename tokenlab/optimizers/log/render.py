"""Rendering a planned log: each folded group as one visible line (its count, what varies,
a ref when fine-grained) between the lines shown verbatim, and the omissions that hold the
exact bytes of everything folded.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import compress

from tokenlab.counting.runs import InputSlices
from tokenlab.optimizers import Granularity, Omission, OptimizeResult, Part, join_literals
from tokenlab.optimizers.lines import extremes, families
from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.optimizers.lines import shown as line_shown
from tokenlab.optimizers.lines.values import slots_shown, summarised, with_values
from tokenlab.optimizers.log.model import (
    FOLD,
    POINTER_LINE_RE,
    Group,
    GroupKind,
    Item,
    Lines,
    LogLimits,
    Plan,
    Texts,
)
from tokenlab.optimizers.log.units import is_pointer, message_after
from tokenlab.optimizers.log.variants import variants_shown
from tokenlab.patterns import compile_on_use

_FOLDED_RUN_RE = compile_on_use(re.escape(bytes([FOLD])) + b"+")


def render(
    items: list[Item], lines: Lines, plan: Plan, granularity: Granularity, limits: LogLimits
) -> OptimizeResult:
    folded_count = plan.role.count(FOLD)
    coarse = granularity is Granularity.COARSE
    groups = len(plan.groups)
    body: list[Part] = []
    for item in items:
        if isinstance(item, Group) and item.inline and body and isinstance(body[-1], str):
            body[-1] = body[-1].removesuffix("\n")
            body += _inline_parts(item, lines, coarse, limits)
        elif isinstance(item, Group):
            body += _group_parts(item, lines, coarse, limits)
        else:
            body.append(lines.text(item, limits.line_bytes) + "\n")
    folder = _shared_folder(body)
    # The largest size first: the folder, when named, ends the header (`line_shown` reads it there).
    where = _largest_folded(items, lines) + (f"; {line_shown.FOLDER_NAMED} {folder}" if folder else "")
    parts: list[Part] = []
    if coarse:
        # Held as ranges of the input: most of a large log, which is not copied again.
        runs = _FOLDED_RUN_RE.finditer(plan.role)
        spans = [(lines.start(run.start()), lines.ends[run.end() - 1]) for run in runs]
        folded = InputSlices(lines.data, spans)
        reason = f"all {folded_count:,} folded log lines, concatenated in original order"
        parts += [f"[log: {len(lines):,} lines, {folded_count:,} folded{where}: ", Omission(folded, reason), "]\n"]
    else:
        plural = "s" if groups > 1 else ""
        parts.append(f"[log: {len(lines):,} lines, {folded_count:,} folded into {groups:,} group{plural}{where}]\n")
    if plan.codes:
        parts.append(plan.codes)
    return OptimizeResult(tuple(join_literals(parts + body)), plan.signals)


def _shared_folder(body: list[Part]) -> str:
    """The folder every location list names (`{in src/app/: a.c:3:1 …}`), when more than
    one does: named once in the header instead, and taken out of each list (in place)."""
    found = {match[1] for part in body if isinstance(part, str) for match in line_shown.FOLDER_LISTED_RE.finditer(part)}
    listed = sum(part.count("{in ") for part in body if isinstance(part, str))
    if len(found) != 1 or listed < 2:
        return ""
    folder = found.pop()
    for at, part in enumerate(body):
        if isinstance(part, str):
            body[at] = part.replace(f"{{in {folder}: ", "{")
    return folder


def _largest_folded(items: list[Item], lines: Lines) -> str:
    """``; largest folded size 52.7kB`` for the header, when folded runs are rows with a
    size column: the largest size they hide, named when no row shown is as large (see
    `extremes`). Said once for the log, not on each of its runs (a large log folds
    thousands). A run is told by its first lines; then its lines are read in batches,
    none held."""
    hidden: dict[tuple[int, int], list[extremes.Sized]] = {}  # by (width, size column)
    for group in (item for item in items if isinstance(item, Group) and item.kind is GroupKind.RUN):
        first_lines = lines.cleans(group.lines[:_SAMPLE_LINES])
        sample = [line.decode("utf-8", "replace").split() for line in first_lines]
        width = Counter(map(len, sample)).most_common(1)[0][0]
        alike = [row for row in sample if len(row) == width]
        column = extremes.size_column(alike) if len(alike) >= _SIZED_RUN_SHARE * len(sample) else None
        if column is None:
            continue
        top = extremes.largest_row(_size_and_name(lines, group.lines, width, column), 2, 0)
        hidden.setdefault((width, column), []).extend([top] if top else [])
    shown_lines = [item for item in items if isinstance(item, int)]
    notes = []
    for (width, column), tops in hidden.items():
        shown = extremes.largest_row(_size_and_name(lines, shown_lines, width, column), 2, 0)
        notes.append(extremes.largest_note(tops, [shown]).removeprefix("largest "))
    return "".join(f"; largest folded size {note}" for note in notes if note)


def _size_and_name(lines: Lines, indexes: Sequence[int], width: int, column: int) -> Iterator[list[str]]:
    """`[size, name]` of each line of `indexes` that has `width` words, read in batches."""
    for start in range(0, len(indexes), _BATCH_LINES):
        for line in lines.cleans(indexes[start : start + _BATCH_LINES]):
            words = line.split()
            if len(words) == width:
                yield [words[column].decode("utf-8", "replace"), words[-1].decode("utf-8", "replace")]


_SIZED_RUN_SHARE = 0.9  # a run is of sized rows when this share of its lines have one width
_SAMPLE_LINES = 64  # a run's first lines, read to tell whether it holds sizes at all
_BATCH_LINES = 4096  # lines read at a time for their sizes


def _group_parts(group: Group, lines: Lines, coarse: bool, limits: LogLimits) -> list[Part]:
    """One visible line for a folded group: `[count ref] representative`."""
    first = group.lines[0]
    if group.kind is GroupKind.RUN:
        label, shown = f"[… {group.count:,} more lines", ""
    elif group.kind is GroupKind.LIBRARY:
        label, shown = f"[… {group.units:,} frame{'s' if group.units > 1 else ''} in library code", ""
    elif group.kind is GroupKind.TAIL:
        label = f"[… {group.count:,} more line{'s' if group.count > 1 else ''} of this diagnostic"
        shown = ""
    elif group.kind is GroupKind.LONG:
        label = f"[whole line: {len(lines.raw(first)):,} bytes"
        shown = group.said or lines.text(first, limits.line_bytes)
    elif group.kind is GroupKind.RECORDS:
        # (Records none of which is shown whole above, a diagnostic's, are counted alone.)
        label = f"[×{group.count:,}" + (" more like the one above" if group.after_shown else "")
        shown = group.said
    elif group.kind is GroupKind.FRAMED:
        label, shown = f"[×{group.units:,} more of this rule, {group.units + 1:,} in all", group.said
    elif group.kind is GroupKind.REPEAT:
        shown = group.said if group.told else _repeats_shown(group, lines, limits)
        # `more`: like the examples above, when the line shows only the first of them.
        label = f"[×{group.count:,}" + (" more" if group.after_shown and "{" not in shown else "")
    else:
        label = f"[×{group.count:,}" + (" identical" if group.identical else "")
        shown = lines.text(first, limits.line_bytes)
        if not group.identical:
            listed = variants_shown(group, lines, limits) if group.variants else _template_shown(group, lines, limits)
            if listed is None:  # the first line, as an example: its values are not all of theirs
                label += " like"
            shown = _abbreviate_ids(listed or _REPEATED_ID_RE.sub(r"\1 (…)", shown))
    if coarse:
        head: list[Part] = [label + "]"]
    else:
        head = [label + " ", Omission(_group_bytes(group, lines), _reason(group, lines, limits)), "]"]
    if group.kind is GroupKind.LONG:
        return [shown + " ", *head, "\n"]
    return [*head, (" " + shown if shown else "") + "\n"]


def _inline_parts(group: Group, lines: Lines, coarse: bool, limits: LogLimits) -> list[Part]:
    """A diagnostic's folded code frame, at the end of its header line: ` [+2 lines]`."""
    label = f" [+{group.count:,} line{'s' if group.count > 1 else ''}"
    if coarse:
        return [label + "]\n"]
    return [label + " ", Omission(_group_bytes(group, lines), _reason(group, lines, limits)), "]\n"]


def _template_shown(group: Group, lines: Lines, limits: LogLimits) -> str | None:
    """A group's lines as one line showing what varies: lone paths (the files a tool names
    as it goes), counted paths (a per-file tally) and source pointers listed, any other
    shape with each varying field summarised (`line_values.summarised`). None if no such
    line can stand for them all."""
    members = [i for i in group.lines if lines.clean(i).strip()] if group.blanks else group.lines
    texts = Texts(lines, members, limits.line_bytes)
    cap = located = limits.inline_values
    if not lists_values(texts[0]):
        return summarised(texts, cap)
    if len(members) > limits.inline_values:
        if _LONE_PATH_RE.fullmatch(texts[0]):
            cap = limits.paths_listed
        elif _COUNTED_PATH_RE.fullmatch(texts[0]):
            return _counted_paths_shown(list(texts), limits)
        else:
            located = limits.failure_values
    return with_values(list(texts), cap, located)


def _counted_paths_shown(texts: list[str], limits: LogLimits) -> str | None:
    """A per-file tally by count, so that each path stays with its count:
    `2 {in src/: a.ts b.ts}; 5 {in src/: c.ts}`."""
    by_count: dict[str, list[str]] = {}
    for text in texts:
        by_count.setdefault(text.split()[0], []).append(text)
    shown: list[str] = []
    for tally in by_count.values():
        listed = tally[0] if len(tally) == 1 else with_values(tally, limits.paths_listed, limits.paths_listed)
        if listed is None:
            return None
        shown.append(listed.strip() if shown else listed)
    return "; ".join(shown)


def lists_values(text: str) -> bool:
    """Whether a large group of lines like `text` lists its values (source pointers, lone
    or counted paths) rather than showing its first line."""
    return bool(_LONE_PATH_RE.fullmatch(text) or _COUNTED_PATH_RE.fullmatch(text) or _POINTER_RE.match(text))


# A line pointing at a source location (` --> src/a.rs:3:5`, `at src/a.js:3:5`): where a
# diagnostic is, listed compactly for each member of its group.
_POINTER_RE = compile_on_use(r"\s*(?:-->|at)\s+\S+:\d+(?::\d+)?\s*$")
_LONE_PATH_RE = compile_on_use(r"\s*[\w.~-]*[/\\][^\s:]*\.\w+/?\s*")
# A count then a path: a per-file tally (tsc's `Errors  Files` table, `wc -l`, `uniq -c`).
_COUNTED_PATH_RE = compile_on_use(r"\s*\d+\s+[\w.~-]*[/\\][^\s:]*\.\w+(?::\d+)?\s*")


def _repeats_shown(group: Group, lines: Lines, limits: LogLimits) -> str:
    """Further repeats of an anomaly, by what varies: the first line of each, and each
    failure line inside them (a traceback's exception) where the units line up."""
    units = _units(group, lines)
    rows = _framed_rows(units, lines, limits)
    if rows is None:
        rows = _located_rows(units, lines, limits)
    if rows is not None:
        return rows
    heads = list(group.heads) or [group.lines[0]]
    first = lines.text(heads[0], limits.line_bytes)
    if line_shapes.is_failure(first):
        cap = located = limits.failure_values
    else:
        many = len(heads) > limits.warning_locations
        cap = limits.warning_sample if many else limits.inline_values
        located = cap if many else len(heads)
    known = group.head_slots
    if known and known[0] == len(heads):
        found = known[1]
    else:
        found = line_shapes.varying_slots(with_headings(lines, heads, limits))
    shown = [slots_shown(found, cap, located) or first]
    pointers = _unit_pointers(group, lines)
    if pointers:
        texts = [lines.text(i, limits.line_bytes) for i in pointers]
        shown.append(with_values(texts, cap, located) or texts[0].strip())
    size = len(units[0])
    if size > 1 and all(len(unit) == size for unit in units):
        for position in range(1, size):
            texts = [lines.text(unit[position], limits.line_bytes) for unit in units]
            if line_shapes.is_failure(texts[0]):
                cap = limits.failure_values
                shown.append(with_values(texts, cap) or texts[0].strip())
    shown += _labelled_shown(units, lines, cap, limits)
    return " … ".join(text.strip() if at else text for at, text in enumerate(shown))


def _framed_rows(units: list[list[int]], lines: Lines, limits: LogLimits) -> str | None:
    """Further framed records of one rule (`render` shows the first whole) as their header
    and one row each: its location and the header's values that differ, paired
    (`warning: unused variable: `#` --> {src/main.rs:24:9 unused_3, :44:9 unused_6}`).
    Every location is listed: a record is found by where it is. None unless every unit is
    a framed record and their headers share a skeleton."""
    if not all(len(unit) > 1 and is_pointer(lines.clean(unit[1])) for unit in units):
        return None
    found = families.family([[lines.text(unit[1], limits.line_bytes).strip(), lines.text(unit[0], limits.line_bytes)] for unit in units])
    if found is None:
        return None
    rows = found.rows()
    if not any(rows):  # the same record again and again (one call site, several overloads)
        return f"{found.headline(1)} {lines.text(units[0][1], limits.line_bytes).strip()}"
    return f"{found.headline(1)} --> {{{', '.join(rows)}}}"


def _located_rows(units: list[list[int]], lines: Lines, limits: LogLimits) -> str | None:
    """Further records of one message headed by their location alone (`a.f90:35:16:`,
    frame, `Warning: Unused variable ‘k’ …`) as their message and one row each: its
    location and the message's values that differ. None unless every unit is such a
    record and their messages share a skeleton."""
    pairs: list[list[str]] = []
    for unit in units:
        message = message_after(lines, unit[0], limits)
        if message is None:
            return None
        pairs.append([lines.text(unit[0], limits.line_bytes).strip(), lines.text(message, limits.line_bytes)])
    found = families.family(pairs)
    if found is None:
        return None
    rows = found.rows()
    if not any(rows):
        return f"{found.headline(1)} {lines.text(units[0][0], limits.line_bytes).strip()}"
    return f"{found.headline(1)} {{{', '.join(rows)}}}"


# An indented labelled line of a diagnostic (`  symbol:   variable count`, `  location:
# class Cart`): what the message is about, which differs between its repeats.
_LABELLED_RE = compile_on_use(r"\s+([a-z][\w -]{0,24}):\s+\S")


def _labelled_shown(units: list[list[int]], lines: Lines, cap: int, limits: LogLimits) -> list[str]:
    """The labelled lines of a diagnostic's repeats (`symbol: …`), each label's lines of one
    shape as one listing of their values (`symbol: variable {missingVar2, total3}`), in
    order of first appearance, at most `cap` listings a label."""
    by_shape: dict[tuple[str, str], list[str]] = {}
    for unit in units:
        for i in unit[1:]:
            text = lines.text(i, limits.line_bytes)
            labelled = _LABELLED_RE.match(text)
            if labelled:
                constants = " ".join("".join(line_shapes.slots(text)[0]).split())
                by_shape.setdefault((labelled[1], constants), []).append(text)
    listed: dict[str, list[str]] = {}
    for (label, _), texts in by_shape.items():
        listed.setdefault(label, []).append(with_values(list(dict.fromkeys(texts)), cap) or texts[0])
    shown: list[str] = []
    for texts in listed.values():
        more = f" … +{len(texts) - cap} more" if len(texts) > cap else ""
        shown += [text.strip() for text in texts[:cap]]
        if more:
            shown[-1] += more
    return shown


def _units(group: Group, lines: Lines) -> list[list[int]]:
    """The group's units (each from its head), without blank lines."""
    starts = set(group.heads) or {group.lines[0]}
    units: list[list[int]] = []
    for i in group.lines:
        if i in starts or not units:
            units.append([])
        if lines.clean(i).strip():
            units[-1].append(i)
    return units


def with_heading(lines: Lines, index: int, limits: LogLimits) -> str:
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


_POSITION_RE = compile_on_use(r"\s+\d+:\d+\s")


def with_headings(lines: Lines, indexes: Sequence[int], limits: LogLimits) -> list[str]:
    """`with_heading` of each of `indexes`: a large group's heads, their texts made a batch
    at a time (`Texts`), and a heading looked for only above an entry that needs one."""
    texts = list(Texts(lines, indexes, limits.line_bytes))
    for at in compress(range(len(texts)), map(_POSITION_RE.match, texts)):
        texts[at] = with_heading(lines, indexes[at], limits)
    return texts


def _unit_pointers(group: Group, lines: Lines) -> list[int]:
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
        elif not found and POINTER_LINE_RE.match(lines.clean(i)):
            pointers.append(i)
            found = True
    return pointers if found and len(pointers) == len(group.heads) else []


# Ids differ on every line of a template, so its representative need not spell them out.
_LONG_ID_RE = compile_on_use(r"\b([0-9a-f]{8})(?:[0-9a-f]{8,}|(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})\b")


# A test named, then its dotted id ending in the same name (`test_x (pkg.mod.Case.test_x)`,
# unittest's verbose form): in one example of many, the id adds only its path.
_REPEATED_ID_RE = compile_on_use(r"^(\s*([\w.]+)) \([\w.]+\.\2\)")


def _abbreviate_ids(shown: str) -> str:
    """Shorten long hex ids and UUIDs in a template's example line to 8 digits and `…`."""
    return _LONG_ID_RE.sub(r"\1…", shown)


def _group_bytes(group: Group, lines: Lines) -> InputSlices:
    """The group's lines as ranges of the input: together, the groups hold most of a large
    log, which is not copied again."""
    if group.contiguous:
        return InputSlices(lines.data, [(lines.start(group.lines[0]), lines.ends[group.lines[-1]])])
    return InputSlices(lines.data, [(lines.start(i), lines.ends[i]) for i in group.lines])


def _reason(group: Group, lines: Lines, limits: LogLimits) -> str:
    first = next((i for i in group.lines if lines.clean(i).strip()), group.lines[0])
    preview = lines.text(first, limits.preview_chars).strip()
    size = len(group.lines) - group.blanks
    if group.kind is GroupKind.LONG:
        return f"one log line of {len(lines.raw(first)):,} bytes: {preview}"
    if group.kind is GroupKind.REPEAT:
        reason = f"{group.units:,} more occurrences ({size:,} lines) of the anomaly: {preview}"
    elif group.kind is GroupKind.RECORDS:
        reason = f"{group.units:,} more failure sections ({size:,} lines) like: {preview}"
    elif group.kind is GroupKind.FRAMED:
        reason = f"{group.units:,} more diagnostics of one rule ({size:,} lines), the first: {preview}"
    elif group.kind in (GroupKind.RUN, GroupKind.TAIL):
        reason = f"{size:,} distinct log lines, the first: {preview}"
    elif group.kind is GroupKind.LIBRARY:
        reason = f"{group.units:,} frames in library code ({size:,} lines), the first: {preview}"
    else:
        reason = f"{size:,} log lines like: {preview}"
    if group.blanks:
        reason += f" (and {group.blanks:,} blank lines that fell between them)"
    if not group.contiguous:
        reason += " (not contiguous: concatenated in original order)"
    return reason
