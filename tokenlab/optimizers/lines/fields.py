"""Rows printed one field a line: many records of `key = value` lines, said once.

A database client's vertical modes, a tool's `--verbose` dump of items, a metrics
exporter: each record is a run of *field lines* (`key = value`, `key | value`, `key:
value`, the keys padded to one column), records apart by blank lines or each under a
*record rule* (`-[ RECORD 12 ]------`, `***** 3. row *****`: a rule line with a title
holding a number). Records with the same keys, one after another, are a *family*; the
values hold no skeleton (`lines.families` reads a word without a digit as constant text,
so `site = cold-store` and `site = north-hall` would be two shapes), the keys do.

A family of `min_records` or more shows its first record whole and one group line where
the second stood, saying each key's values over the folded records once (`describe`):
one value; a numbered run (`id = 2–2870,2872–9000`); values dealt in turn from the first
record on (`site = cold-store, loading-bay, north-hall in turn`; a long turn that is itself a
numbered run, `sensor-001–149,000 in turn`); a few stretches; else its range (numbers),
its first and last value (values that only rise: times), or a tally of its few values.
A record stays whole, in its place, when one of its lines is a failure
(`shapes.is_failure`: `level: ERROR`, `error | OSError: …`) or a value differs from the value `usual_share` of the family hold
(`status = alarm` among `ok`, an `error` that is not empty): the records a reader looks
for. Records of other keys stay as they are. None unless folded records make up
`min_folded_share` of the input.

A family of at most `max_listed_records` whose records are distinct entries (a key whose
values are all different names that no run, turn or rise says: a settings listing's
`name`) is no repeat of one record: a group line would hide which entries exist. Each
record stays, and only its lines holding the value most records hold for their key (an
empty `unit`, `source = default`), or the value of a key above it (`reset_val` as
`setting`, in most records), are left out, said once after the first record.
A failure is read in a value, where a record reports a status (`error | OSError: …`),
never in a key (`exit_on_error = off` names a setting).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tokenlab.optimizers import Granularity, Part, visible
from tokenlab.optimizers.lines import columns as columns_rules
from tokenlab.optimizers.lines.records import Group, parts_with_groups
from tokenlab.optimizers.lines.shapes import ANSI_RE, is_failure
from tokenlab.patterns import compile_on_use


@dataclass(frozen=True)
class FieldLimits:
    min_records: int = 5  # a family this large folds; fewer records (a summary query's) stay
    min_fields: int = 2  # keys per record
    min_folded_share: float = 0.5  # folded records hold at least this share of the input
    max_input_bytes: int = 1 << 26  # every line is matched: larger inputs are left to the caller
    sample_bytes: int = 1 << 16  # field lines are looked for here first
    usual_share: float = 0.9  # a value this share of a family holds: records differing stay
    max_turn: int = 200  # the longest turn of values looked for
    turn_listed: int = 24  # a turn this long or shorter is listed
    max_runs: int = 8  # a numbered run in more pieces is said by its range
    tally_listed: int = 12  # a column of this many distinct values or fewer is tallied
    max_listed_records: int = 100  # a family of distinct entries this large keeps each record


DEFAULT_LIMITS = FieldLimits()

# `key = value`, `key | value`, `key: value`: a name, padding, the separator, one space.
_FIELD_RE = compile_on_use(rb"[ \t]*([A-Za-z_][\w.\-]*)[ \t]*(=|\||:)(?: |(?=\r?$))(.*?)\r?$")
# The same, found anywhere in a sample (its lines' values are not read).
_FIELD_LINE_RE = compile_on_use(rb"^[ \t]*[A-Za-z_][\w.\-]*[ \t]*[=|:](?: |\r?$)", re.MULTILINE)
_DIGIT_RE = compile_on_use(rb"\d")
_RULE_BYTES = b"-=*_#~"
_NUMBER_RE = compile_on_use(r"[+-]?\d+(?:\.\d+)?")
_RULE_EDGES = "-=*_#~ "
_SPACE_RE = compile_on_use(r"\s")


@dataclass(frozen=True)
class _Record:
    """Lines [first, last) of the input: its rule (when it has one) and its field lines."""

    first: int
    last: int
    ruled: bool
    keys: tuple[bytes, ...]
    separator: bytes
    values: tuple[str, ...]
    failing: bool  # a line of it is a failure (`ERROR:  …`, `error | OSError: …`)


def fold_fields(
    data: bytes, granularity: Granularity = Granularity.FINE, limits: FieldLimits = DEFAULT_LIMITS
) -> tuple[Part, ...] | None:
    """The input with each family of field records folded; None when it holds none, or
    when folded records are not most of it."""
    if b"\n" not in data or len(data) > limits.max_input_bytes:
        return None
    sample = data[: limits.sample_bytes]
    if len(_FIELD_LINE_RE.findall(sample)) < limits.min_records * limits.min_fields:
        return None  # its start holds too few field lines: a document of another kind
    lines = data.split(b"\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    records = _records(lines, limits)
    groups: list[Group] = []
    handled = 0  # bytes of records folded or of listings shown with their usual lines left out
    for family in _families(records, limits):
        if _distinct_entries(family, limits):
            group = _without_usual_lines(family, starts, limits)
            handled += starts[family[-1].last] - starts[family[0].first] if group is not None else 0
        else:
            group = _fold(family, lines, starts, limits)
            handled += sum(end - start for start, end in group.spans) if group is not None else 0
        if group is not None:
            groups.append(group)
    if handled < limits.min_folded_share * len(data):
        return None
    return parts_with_groups(data, groups, granularity)


def _records(lines: list[bytes], limits: FieldLimits) -> list[_Record]:
    """The input's field records, in order: runs of field lines of one separator, each
    after a blank line, a record rule or the input's start, and before a blank line, a
    record rule or the input's end (field lines under a heading are that heading's)."""
    found: list[_Record] = []
    first = 0
    ruled = False  # the line before is a record rule: it heads the record
    opens = True  # the line before may start a record: the input's start
    fields: list[re.Match[bytes]] = []
    for at, line in enumerate([*lines, b""]):
        field = _FIELD_RE.fullmatch(line) if at < len(lines) else None
        if field is not None:
            fields.append(field)
            continue
        if fields and opens and len(fields) >= limits.min_fields and len({field[2] for field in fields}) == 1:
            keys = tuple(field[1] for field in fields)
            values = tuple(visible(ANSI_RE.sub(b"", field[3])) for field in fields)
            failing = any(is_failure(value) for value in values)
            found.append(_Record(first, at, ruled, keys, fields[0][2], values, failing))
        ruled = _is_record_rule(line.strip(b" \t\r"))
        opens = ruled or not line.strip()
        if fields and found and found[-1].last == at and not opens:
            found.pop()  # the record runs on into a line of another kind: not a record
        fields = []
        first = at + (not ruled)
    return found


def _is_record_rule(text: bytes) -> bool:
    """A record rule: a rule character, a title holding a number, three of the character
    (`-[ RECORD 12 ]------`). Read by its ends and one search: linear on any line."""
    edge = text[:1]
    return edge != b"" and edge in _RULE_BYTES and text.endswith(edge * 3) and _DIGIT_RE.search(text) is not None


def _families(records: list[_Record], limits: FieldLimits) -> list[list[_Record]]:
    """Runs of records with one set of keys, each right after the one before."""
    families: list[list[_Record]] = []
    for record in records:
        last = families[-1][-1] if families else None
        alike = last is not None and (last.keys, last.separator, last.ruled) == (record.keys, record.separator, record.ruled)
        if alike:
            families[-1].append(record)
        else:
            families.append([record])
    return [family for family in families if len(family) >= limits.min_records]


def _fold(family: list[_Record], lines: list[bytes], starts: list[int], limits: FieldLimits) -> Group | None:
    """The group line and folded spans of one family: records after the first, but those
    holding a failure or an unusual value."""
    standing = _standing_out(family, limits)
    folded = [at for at in range(1, len(family)) if at not in standing]
    if len(folded) < 2:
        return None
    keys = [key.decode("ascii") for key in family[0].keys]
    joiner = ": " if family[0].separator == b":" else " = "
    said = [_titles(family, folded, lines)] if family[0].ruled else []
    for column, key in enumerate(keys):
        values = [family[at].values[column] for at in folded]
        described = describe(key, values, folded, family[0].values[column], limits, joiner)
        if described:
            said.append(described)
    kept = f"; {len(standing)} shown whole below" if standing else ""
    line = "{" + "; ".join(part for part in said if part) + kept + "}"
    # A record's bytes, with the blank lines before it from the record before: the
    # group line follows the first record, and a record shown whole keeps its own.
    size = starts[-1] - 1  # the input's length: its last line has no newline
    spans = [(min(starts[family[at - 1].last], size), min(starts[family[at].last], size)) for at in folded]
    hidden = sum(end - start for start, end in spans)
    if len(line.encode()) > hidden // 2:
        return None
    return Group(line, spans, spans[0][0])


def _distinct_entries(family: list[_Record], limits: FieldLimits) -> bool:
    """Whether the family lists distinct entries: a key's values are all different names
    (one word each: a message with varying numbers is no name), which a group line could
    only say as `first … last, N values` (not numbers, no numbered run, not rising like times)."""
    if len(family) > limits.max_listed_records:
        return False
    for column in range(len(family[0].keys)):
        values = [record.values[column] for record in family]
        if len(set(values)) < len(values) or any(not value or _SPACE_RE.search(value) for value in values):
            continue
        if _numbers(values) or columns_rules.progression(values) is not None:
            continue
        rising = all(a < b for a, b in zip(values, values[1:])) and len({len(value) for value in values}) == 1
        if not rising:
            return True
    return False


def _without_usual_lines(family: list[_Record], starts: list[int], limits: FieldLimits) -> Group | None:
    """The lines of the records after the first that hold their key's usual value (the
    one at least half the family holds) or, in at least half the records, the value of a
    key above it (`reset_val` as `setting`), and a group line saying those once."""
    size = starts[-1] - 1  # the input's length: its last line has no newline
    said: list[str] = []
    spans: list[tuple[int, int]] = []
    joiner = ": " if family[0].separator == b":" else " = "
    keys = [key.decode("ascii") for key in family[0].keys]
    for column, key in enumerate(keys):
        usual, count = Counter(record.values[column] for record in family).most_common(1)[0]
        same = _same_as(family, column)
        if 2 * count >= len(family):
            said.append(f"{key}{joiner}{usual or '(empty)'}")
            leaves_out = [record.values[column] == usual for record in family]
        elif same is not None:
            said.append(f"{key}{joiner}as {keys[same]}")
            leaves_out = [record.values[column] == record.values[same] for record in family]
        else:
            continue
        for record, left_out in zip(family[1:], leaves_out[1:]):
            if left_out:
                at = record.first + record.ruled + column
                spans.append((min(starts[at], size), min(starts[at + 1], size)))
    if not spans:
        return None
    line = "{" + "; ".join(said) + "}"
    if len(line.encode()) > sum(end - start for start, end in spans) // 2:
        return None
    label = f"in the {len(family) - 1} records below, {len(spans)} lines holding the values said here are left out"
    return Group(line, sorted(spans), min(starts[family[0].last], size), label)


def _same_as(family: list[_Record], column: int) -> int | None:
    """The first key above `column` whose value `column` repeats, not empty, in at least
    half the records (a setting's reset value, the name a record is filed under)."""
    for other in range(1, column):
        alike = sum(1 for record in family if record.values[column] and record.values[column] == record.values[other])
        if 2 * alike >= len(family):
            return other
    return None


def _standing_out(family: list[_Record], limits: FieldLimits) -> set[int]:
    """The records after the first that stay whole: a line is a failure, or a value differs from
    the one `usual_share` of the family hold."""
    standing: set[int] = set()
    for column in range(len(family[0].keys)):
        values = [record.values[column] for record in family]
        usual, count = Counter(values).most_common(1)[0]
        if count < len(values) and count >= limits.usual_share * len(values):
            standing.update(at for at, value in enumerate(values) if value != usual)
    standing.update(at for at, record in enumerate(family) if record.failing)
    standing.discard(0)
    return standing


def _titles(family: list[_Record], folded: list[int], lines: list[bytes]) -> str:
    """The folded records' rule titles (`[ RECORD 2–40,42–140 ]`), by their numbers."""
    titles = [visible(lines[family[at].first]).strip().strip(_RULE_EDGES) for at in folded]
    said = columns_rules.progression([title.strip("[] ") for title in titles])
    if said is None:
        return ""
    return f"[ {said} ]" if titles[0].startswith("[") else said


def describe(
    key: str,
    values: Sequence[str],
    places: Sequence[int],
    first: str,
    limits: FieldLimits = DEFAULT_LIMITS,
    joiner: str = " = ",
) -> str:
    """One key's values over folded records, said once: `places` are the records' places
    in their family (the first record, shown whole, is place 0 and holds `first`). Empty
    when every record holds the first record's value. `joiner` joins key and value
    (`key: value` records keep their colon)."""
    named = f"{key}{joiner}"
    distinct = set(values)
    if len(distinct) == 1:
        value = values[0]
        return "" if value == first else f"{named}{value}"
    turn = _turn([first, *values], [0, *places], limits.max_turn)
    numbered = columns_rules.progression(values) if turn is None else None
    if numbered is not None and numbered.count(",") < limits.max_runs:
        return f"{named}{numbered}"
    span = f"{min(values, key=float)}–{max(values, key=float)}" if _numbers(values) else ""
    if turn is not None:
        in_order = columns_rules.progression(turn)
        if in_order is not None:
            return f"{named}{in_order} in turn"
        if len(turn) <= limits.turn_listed:
            return f"{named}{span + ': ' if span else ''}{', '.join(turn)} in turn"
    stretches = columns_rules.stretches(values)
    if stretches is not None:
        return f"{named}" + " then ".join(f"{value} ×{count}" for value, count in stretches)
    if len(distinct) <= limits.tally_listed and 2 * len(distinct) <= len(values):  # values repeat
        tally = Counter(values).most_common()
        return f"{named}" + ", ".join(f"{value} ×{count}" for value, count in tally)
    if span:
        return f"{named}{span}, {len(distinct):,} values"
    rising = all(a < b for a, b in zip(values, values[1:])) and len({len(value) for value in values}) == 1
    order = " rising" if rising else ""
    return f"{named}{values[0]} … {values[-1]}{order}, {len(distinct):,} values"


def _turn(values: Sequence[str], places: Sequence[int], longest: int) -> list[str] | None:
    """The values dealt in turn by place (a place's value is the turn's value at place
    modulo its length), the shortest turn repeated twice at least; None when none is."""
    span = places[-1] + 1
    for length in range(2, min(longest, span // 2) + 1):
        turn: dict[int, str] = {}
        if all(turn.setdefault(place % length, value) == value for place, value in zip(places, values)):
            if len(turn) == length:
                return [turn[phase] for phase in range(length)]
    return None


def _numbers(values: Sequence[str]) -> bool:
    return all(_NUMBER_RE.fullmatch(value) for value in values)
