"""The varying values of a family of records (`lines.families`), a column each: how a
column is named (the field, label or bracket around its value), and how columns are said
once rather than row by row (a repeat of another, a part of another's id, a rule their
values follow, a name's fixed parts).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from tokenlab.optimizers.lines import columns as columns_rules
from tokenlab.optimizers.lines.shapes import LOCATION_VALUE_RE, is_location
from tokenlab.patterns import compile_on_use

# The word a value belongs to, read from the constant text before it (`name   = "`,
# `unused variable: \``, `cache_node[`).
_LABEL_RE = compile_on_use(r"((?=[\w.\-]*[A-Za-z])[A-Za-z_][\w.\-]*)(\s*[=:]?\s*[\"'`\[(]?)$")
# Labels are looked for this far back: a search anchored at the end still starts at each byte.
_LABEL_REACH = 64
_SPACES_RE = compile_on_use(r"\s+")
# A line's leading marks before a field's name: a list item's `- `, a diff's `+ `, `--`.
_LEADING_MARKS_RE = compile_on_use(r"\s*([-+*>~]{1,2}(?: [-+*>~]{1,2})?\s?)")
_CLOSING = {"[": "]", "(": ")"}
# A field's name before its value (`amount = `, `currency = '`, `port: `).
_FIELD_RE = compile_on_use(r"\w\s*[=:]\s*[\"'`]?$")
# A call's argument (`convert(`, `convert(#, '`).
_ARGUMENT_RE = compile_on_use(r"[(,]\s*[\"'`]?$")
# A comparison right before a value with no name (`assert 9.2 == 9.21`, `got 3, want 4`).
_COMPARISON_RE = compile_on_use(r"(?<!\S)(==|!=|<=|>=|<|>|->|=>|→|vs\.?)\s*$")
# A name and what its brackets hold (`test_rate[EUR-10]`, `check(7)`).
_BRACKETED_RE = compile_on_use(r"([A-Za-z_][\w.:]*(?:\[|\())([^\[\]()]+)(\]|\))")
# Long ids (hashes, UUIDs) are shown by their first digits: they differ on every record.
_LONG_ID_RE = compile_on_use(r"([0-9a-f]{8})(?:[0-9a-f]{8,}|(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})")
# A column of long ids shows each by its first digits, as few as tell the column's ids
# apart, as `git` abbreviates a hash, and never fewer than this.
_ID_DIGITS_MIN = 4
# A number as a comparison prints it (`805`, `-13`, `64.41000000000001`).
_NUMBER_RE = compile_on_use(r"-?\d+(?:\.\d+)?")
# A column is said by its difference from the one before it when that difference holds on
# this share of the records or more (and on `MIN_ROWS`); the others keep their comparison
# in their row.
_OFFSET_SHARE = 2 / 3
# Where a name's parts meet (`tenant02-api-config-b79fthhg2d`, `eu_1/node-07`).
_PART_CUT_RE = compile_on_use(r"([-_/:])")


@dataclass(frozen=True)
class Column:
    """One varying value of a family's records: the text around it that names it (`name:
    "…"`, `worker[…]`, `orders-shard-…`), said once in the table's head, and each
    record's value."""

    before: str
    after: str
    values: list[str]
    label: str = ""
    resorted: bool = False  # the rows were put in this column's order
    line: int = -1  # the record's line holding the value
    argument: bool = False  # a call's argument after another (`convert(10, 'EUR')`), unnamed
    relation: str = ""  # the next value on the line, said by its difference (` == #+1`)
    ids: bool = False  # long ids by their first digits: names, never numbers in a rule

    @classmethod
    def of(cls, split: list[list[tuple[list[str], list[str]]]], at: int, position: int) -> Column:
        constants = split[0][at][0]
        before, after = constants[position][-_LABEL_REACH:], constants[position + 1]
        values = [record[at][1][position] for record in split]
        if all(_LONG_ID_RE.fullmatch(value) for value in values):
            # Ids by their first digits, as a reader tells them apart; `…` said once.
            return replace(cls._named(before, "…" + after, distinct_prefixes(values)), ids=True)
        return cls._named(before, after, values)

    @classmethod
    def _named(cls, before: str, after: str, values: list[str]) -> Column:
        """The column of `values`, named by the constant texts `before` and `after` them."""
        found = _LABEL_RE.search(before)
        if is_location(values[0]):
            return cls("", "", values)
        if found is None:
            # A value compared with the one before it is named by the comparison (`== #`).
            compared = _COMPARISON_RE.search(before)
            argument = _ARGUMENT_RE.search(before) is not None
            return cls(f"{compared[1]} " if compared else "", "", values, argument=argument)
        opening = found[2][-1:] if found[2] else ""
        name = found[1].rsplit(".", 1)[-1]
        if opening in _CLOSING and found[2].strip() == opening and after[:1] == _CLOSING[opening]:
            # An element of a collection is named by its collection's last name: `worker[#]`.
            return cls(name + opening, after[:1], values, name)
        # Named by the text around it up to the spaces: `name = "cache-#"`, `[#-DE]`, with
        # the marks that lead the line when nothing else does (`- --tenant=#`, `+ port = #`).
        word_after = "" if after[:1].isspace() else after.split(" ", 1)[0]
        marks = _LEADING_MARKS_RE.fullmatch(before[: found.start()])
        start = marks.start(1) if marks else found.start()
        return cls(_SPACES_RE.sub(" ", before[start:]), word_after, values, name)

    def cell(self, value: str, labelled: bool = False) -> str:
        return f"{self.before}{value}{self.after}" if labelled else value

    def head(self) -> str:
        return (self.cell("#", labelled=True) if self.before else "value") + self.relation

    def with_offset(self, other: Column) -> Column | None:
        """This column holding `other` too, when `other` is a number compared with this
        one on its line (`assert 11 == 12`) that differs from it by one amount on most
        records: the head says the amount (`assert # == #+1`), and a record where it
        differs otherwise keeps the comparison in its row (`64.4 == 64.41000000000001`);
        None otherwise."""
        compared = _COMPARISON_RE.fullmatch(other.before)
        if compared is None or other.line != self.line or self.relation or len(self.values) < columns_rules.MIN_ROWS:
            return None
        if not all(_NUMBER_RE.fullmatch(value) for value in (*self.values, *other.values)):
            return None
        pairs = list(zip(self.values, other.values, strict=True))
        amount = Counter(Decimal(b) - Decimal(a) for a, b in pairs).most_common(1)[0][0]
        # Printed as the record prints it (`23.01`, never `23.010`), past rounding's reach.
        said = [str(Decimal(a) + amount) == b for a, b in pairs]
        if amount == 0 or sum(said) < max(columns_rules.MIN_ROWS, _OFFSET_SHARE * len(pairs)):
            return None
        operator = compared[1]
        values = [a if held else f"{a} {operator} {b}" for (a, b), held in zip(pairs, said, strict=True)]
        return replace(self, values=values, relation=f" {operator} #{amount:+f}")

    def rule(self) -> str | None:
        """The column said once by the rule its values follow (`lines.columns`), or None;
        `(sorted)` when the rows were put in its order. Ids follow no rule: they are names."""
        if self.ids:
            return None
        numbered = columns_rules.progression(self.values)
        if numbered is not None:
            return (self.cell(numbered, labelled=True) if self.before else numbered) + (" (sorted)" if self.resorted else "")
        but = columns_rules.progression_but(self.values)
        if but is not None and self.before:
            said, rows = but
            standing_out = ", ".join(f"{self.cell(self.values[row], labelled=True)} as record {row + 1}" for row in rows)
            return f"{self.cell(said, labelled=True)} but {standing_out}"
        dealt = columns_rules.cycle(self.values)
        if dealt is not None:
            return f"{self.head()} cycling {', '.join(dealt)}"
        runs = columns_rules.stretches(self.values)
        if runs is not None:
            return f"{self.head()} " + " then ".join(f"{value} ×{count}" for value, count in runs)
        return None

    def regular_parts(self) -> Column:
        """The column with the parts of its values that follow a rule said once in its head,
        each row keeping only the part that does not (`name: tenant02–14-api-config-#:
        b79fthhg2d 9bhfb87m59 …`): when every value is cut alike by `-_/:` into parts, all
        but one part are constant or a `progression`, and one is a `progression` (the
        records' number: the rest of a number, `0.017`, is no part). Else the column."""
        pieces = [_PART_CUT_RE.split(value) for value in self.values]
        if not self.before or len(self.values) < columns_rules.MIN_ROWS or len(pieces[0]) < 3:
            return self
        if any(len(cut) != len(pieces[0]) or cut[1::2] != pieces[0][1::2] for cut in pieces):
            return self
        said: list[str | None] = []
        for part in range(0, len(pieces[0]), 2):
            values = [cut[part] for cut in pieces]
            said.append(values[0] if len(set(values)) == 1 else columns_rules.progression(values))
        irregular = [number for number, text in enumerate(said) if text is None]
        numbered = any(len({cut[2 * number] for cut in pieces}) > 1 for number, text in enumerate(said) if text)
        if len(irregular) != 1 or not numbered or any(not cut[2 * irregular[0]] for cut in pieces):
            return self
        kept = 2 * irregular[0]  # the irregular part's place in a cut value
        head = [text or "" for text in said]
        interleaved = [text for pair in zip(head, [*pieces[0][1::2], ""], strict=True) for text in pair]
        before, after = "".join(interleaved[:kept]), "".join(interleaved[kept + 1 :])
        values = [cut[kept] for cut in pieces]
        return replace(self, before=self.before + before, after=after + self.after, values=values)

    def is_argument(self) -> bool:
        return self.argument or _ARGUMENT_RE.search(self.before) is not None

    def bracketed_name(self) -> Column:
        """The column with the name its values share before a bracket said once in its head
        (`name="test_rate[#]": EUR-10 GBP-25 …`), each row keeping what the brackets hold
        (a parametrised test's id), or the column as it is."""
        found = [_BRACKETED_RE.fullmatch(value) for value in self.values]
        if len(self.values) < columns_rules.MIN_ROWS or not all(found):
            return self
        ends = {(match[1], match[3]) for match in found if match}
        if len(ends) != 1:
            return self
        name, closing = ends.pop()
        inside = [match[2] for match in found if match]
        return replace(self, before=self.before + name, after=closing + self.after, values=inside)

    def derived(self, others: Sequence[Column]) -> str | None:
        """The column said by the fixed text around one of `others`' names, which it holds
        on every record (`+ dlq = "#-dlq" for each value`), or None. Numbers are no names:
        `worker-7` beside `worker[7]` stays on its row, as the records print it."""
        for other in others:
            if not self.before or len(self.values) < columns_rules.MIN_ROWS or len(set(other.values)) < len(other.values):
                continue  # (a value with no name before it would be said as a bare `#_free`)
            if not all(any(char.isalpha() for char in value) for value in other.values):
                continue
            at = self.values[0].find(other.values[0])
            if at < 0 or self.values[0] == other.values[0]:
                continue
            prefix, suffix = self.values[0][:at], self.values[0][at + len(other.values[0]) :]
            if all(value == prefix + source + suffix for value, source in zip(self.values, other.values, strict=True)):
                return f"{self.cell(prefix + '#' + suffix, labelled=True)} for each {other.label or 'value'}"
        return None

    def listed_in(self, group_lines: Sequence[str]) -> bool:
        """Whether one of `group_lines` lists this column already, whole and in the same
        order: its head, then its values one a row (as a group line's only column)."""
        listing = f"{self.head()}: {' '.join(self.values)}"
        return len(self.values) >= columns_rules.MIN_ROWS and any(listing in line for line in group_lines)

    def repeating(self, other: Column) -> bool:
        """Whether this column holds `other`'s values on every record (`app:` as a label
        and as a selector, a test's id in its heading and in its `def` line): said once.
        A value inside a longer one (`worker-7` beside `worker[7]`) stays whole in its own
        column, as the signal check reads it."""
        return self.values == other.values


def distinct_columns(columns: list[Column]) -> list[Column]:
    """One column of each set holding the same values on every record (`repeating`): the
    first, unless it is a call's argument and another is named as a field (`amount = #`
    over `convert(#,`): a record's own name (`test_rate[#]`, `queue["#"]`) stays."""
    kept: list[Column] = []
    for column in columns:
        same = next((at for at, other in enumerate(kept) if column.repeating(other)), None)
        if same is None:
            kept.append(column)
        elif _FIELD_RE.search(column.before) and kept[same].is_argument():
            kept[same] = column
    return kept


def offsets_said(columns: list[Column]) -> list[Column]:
    """The columns with each one said by its difference from the one before it where it
    can be (`Column.with_offset`: `assert # == #+1: 11 19 28 …`)."""
    kept: list[Column] = []
    for column in columns:
        merged = kept[-1].with_offset(column) if kept else None
        if merged is None:
            kept.append(column)
        else:
            kept[-1] = merged
    return kept


def column_heads(columns: list[Column]) -> str:
    """The columns' heads between `|`; a comparison follows the value before it on its line
    with no `|` (`assert # == #`), as the record prints them."""
    said = columns[0].head()
    for before, column in zip(columns, columns[1:]):
        compared = column.line == before.line and _COMPARISON_RE.fullmatch(column.before)
        said += f" {column.head()}" if compared else f" | {column.head()}"
    return said


def said_by_parts(columns: list[Column]) -> tuple[list[Column], list[str]]:
    """The columns but those that, between them, hold every part that varies of another's
    value listed row by row (split at `-_/:`: `currency = 'EUR'` and `amount = 25` beside
    the id `EUR-25`), and those said once by it (`amount = #, currency = '#' as in
    test_rate[#]`). A record's number in its collection (`worker[#]`) is its name, and a
    value with a constant word beside it (`emails-dlq`) says that word: both stay."""
    parts_of: dict[int, list[int]] = {}
    listed = [other for other, held in enumerate(columns) if held.rule() is None]
    for at, column in enumerate(columns):
        if column.before.endswith(tuple(_CLOSING)):
            continue
        whole = next((other for other in listed if _part_at(column, columns[other]) is not None), None)
        if whole is not None:
            parts_of.setdefault(whole, []).append(at)
    parts_of = {
        whole: parts
        for whole, parts in parts_of.items()
        if {_part_at(columns[at], columns[whole]) for at in parts} == _varying_parts(columns[whole])
        and _varying_parts(columns[whole]) == _parts(columns[whole])
    }
    said = [
        f"{', '.join(columns[at].head().rstrip(',;') for at in parts)} as in {columns[whole].head()}"
        for whole, parts in parts_of.items()
    ]
    taken = {at for parts in parts_of.values() for at in parts}
    return [column for at, column in enumerate(columns) if at not in taken], said


def _part_at(column: Column, other: Column) -> int | None:
    """Which part of `other`'s values each of `column`'s values is, the same each time."""
    if not column.before or len(column.values) < columns_rules.MIN_ROWS or len(set(column.values)) < 2:
        return None
    pieces = _pieces(other)
    if pieces is None:
        return None
    return next(
        (
            part
            for part in range(0, len(pieces[0]), 2)
            if all(cut[part] == value for cut, value in zip(pieces, column.values, strict=True))
        ),
        None,
    )


def _parts(column: Column) -> set[int]:
    pieces = _pieces(column)
    return set(range(0, len(pieces[0]), 2)) if pieces else set()


def _varying_parts(column: Column) -> set[int]:
    pieces = _pieces(column) or []
    return {part for part in _parts(column) if len({cut[part] for cut in pieces}) > 1}


def _pieces(column: Column) -> list[list[str]] | None:
    """Each value cut at `-_/:` into parts (even places) and cuts, when all cut alike."""
    pieces = [_PART_CUT_RE.split(value) for value in column.values]
    cuts = pieces[0][1::2]
    if len(pieces[0]) < 3 or any(len(cut) != len(pieces[0]) or cut[1::2] != cuts for cut in pieces):
        return None
    return pieces


def name_column(columns: list[Column]) -> Column | None:
    """The column naming the records: one whose values differ on every record, labelled
    `name` if one is, else the first."""
    naming = [column for column in columns if len(set(column.values)) == len(column.values)]
    return next((column for column in naming if column.label == "name"), naming[0] if naming else None)


def distinct_prefixes(ids: Sequence[str]) -> list[str]:
    """Each id by its first characters: as few as tell apart the ids that differ (at least
    `_ID_DIGITS_MIN`), so that each still names one id of the column (`a78b 2d3f …`: a
    UUID's 8 first digits cost twice the tokens of 4)."""
    distinct = len(set(ids))
    width = _ID_DIGITS_MIN
    while width < max(map(len, ids)) and len({value[:width] for value in ids}) < distinct:
        width += 1
    return [value[:width] for value in ids]


def row_word(before: str, value: str, previous_path: str) -> tuple[str, str]:
    """One value as its row shows it, and the file a location on the row names."""
    if is_location(value):
        located = LOCATION_VALUE_RE.fullmatch(value)
        path = located[1] if located else ""
        return (value[len(path) :] if path and path == previous_path else value), path
    long_id = _LONG_ID_RE.fullmatch(value)
    if long_id:
        value = long_id[1] + "…"
    label = _LABEL_RE.search(before[-_LABEL_REACH:])
    if label is None:
        return value, previous_path
    opening = label[2][-1:] if label[2] else ""
    if opening in _CLOSING and label[2].strip() == opening:
        # An element of a named collection (`terraform_data.worker[15]`): its last name is
        # enough beside the group's headline, which names it whole.
        name = label[1].rsplit(".", 1)[-1]
        return f"{name}{opening}{value}{_CLOSING[opening]}", previous_path
    if "=" in label[2] or label[2].strip() == ":":
        return f"{label[1]}={value}", previous_path
    return value, previous_path  # a word of the message, not a field's name
