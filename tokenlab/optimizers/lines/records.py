"""Multi-line records of one skeleton, said once: the values each record holds, paired.

Tool output often repeats a record of several lines that differs only in a few values: a
plan's block per resource, a parametrised test's failure per parameter, a linter's
diagnostic per location. A record's *skeleton* is its lines' constant texts (`slots`:
words holding a digit, short quoted names and locations are values); records with one
skeleton are one shape. A family shows the first of them whole and the others as one
*row* each, naming only the values that differ between them, in the record's own order,
so that values that vary together stay together (`cache_node[9] name=cache-9`, never a
list of indexes beside a list of names). A record of another skeleton (another error,
another assertion) is another shape and stays whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from tokenlab.counting.runs import InputSlices
from tokenlab.mapped import line_count
from tokenlab.optimizers import Granularity, Omission, Part, Span, join_literals, visible
from tokenlab.optimizers.lines import bounds
from tokenlab.optimizers.lines import columns as columns_rules
from tokenlab.optimizers.lines.shapes import (
    LOCATION_VALUE_RE,
    cut_shown,
    is_failure,
    is_location,
    slots,
    word_slots,
)

# The word a value belongs to, read from the constant text before it (`name   = "`,
# `unused variable: \``, `cache_node[`).
_LABEL_RE = re.compile(r"((?=[\w.\-]*[A-Za-z])[A-Za-z_][\w.\-]*)(\s*[=:]?\s*[\"'`\[(]?)$")
# Labels are looked for this far back: a search anchored at the end still starts at each byte.
_LABEL_REACH = 64
_SPACES_RE = re.compile(r"\s+")
# A line's leading marks before a field's name: a list item's `- `, a diff's `+ `, `--`.
_LEADING_MARKS_RE = re.compile(r"\s*([-+*>~]{1,2}(?: [-+*>~]{1,2})?\s?)")
_CLOSING = {"[": "]", "(": ")"}
# A line longer than this is not quoted whole in a group line.
_QUOTED_LINE_BYTES = 120
# Long ids (hashes, UUIDs) are shown by their first digits: they differ on every record.
# A field's name before its value (`amount = `, `currency = '`, `port: `).
_FIELD_RE = re.compile(r"\w\s*[=:]\s*[\"'`]?$")
# A call's argument (`convert(`, `convert(#, '`).
_ARGUMENT_RE = re.compile(r"[(,]\s*[\"'`]?$")
# A comparison right before a value with no name (`assert 9.2 == 9.21`, `got 3, want 4`).
_COMPARISON_RE = re.compile(r"(?<!\S)(==|!=|<=|>=|<|>|->|=>|→|vs\.?)\s*$")
# A name and what its brackets hold (`test_rate[EUR-10]`, `check(7)`).
_BRACKETED_RE = re.compile(r"([A-Za-z_][\w.:]*(?:\[|\())([^\[\]()]+)(\]|\))")
_LONG_ID_RE = re.compile(r"([0-9a-f]{8})(?:[0-9a-f]{8,}|(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})")


def skeleton(lines: Sequence[str]) -> tuple[str, ...]:
    """The record's constant texts, a line at a time, spacing and rules squeezed: records
    with equal skeletons differ only in their values."""
    return tuple("\0".join(map(_normal, word_slots(line)[0])) for line in lines)


# A rule's length follows the title it frames (`____ test[7] ____`): not part of a shape.
_RULE_RUN_RE = re.compile(r"([_=\-─])\1{2,}")


def _normal(text: str) -> str:
    return _RULE_RUN_RE.sub(r"\1\1\1", " ".join(text.split()))


@dataclass(frozen=True)
class Family:
    """Records of one skeleton: each line's slots, and the (line, slot) positions whose
    values differ between the records."""

    split: list[list[tuple[list[str], list[str]]]]
    varying: list[tuple[int, int]]
    records: Sequence[Sequence[str]] = ()  # the records' lines as printed

    def rows(self) -> list[str]:
        """Each record's varying values, in the record's order, as one row: a field's value
        after its name (`name=cache-9`, from `name = "cache-9"` or `name: cache-9`), a value
        after its label's opening bracket as `label[value]`, a location as it is (a file
        already named on the row before is left out: `:44:9`), another value bare."""
        shown: list[str] = []
        previous_path = ""
        for record in self.split:
            words: list[str] = []
            for at, position in self.varying:
                constants, values = record[at]
                word, previous_path = _word(constants[position], values[position], previous_path)
                words.append(word)
            shown.append(" ".join(words))
        return shown

    def table(self, share: float = 0.7, above: Sequence[str] = ()) -> str:
        """The records' varying values as one table for a group line, every value named:
        a column repeating another said once; one that follows a rule (`lines.columns`:
        numbered records, values in turn, stretches of one value) said once by its rule;
        one holding the same value on `share` of the records or more said once, with the
        records that differ; the other columns named once, then one row per record, each
        value whole (as the signal check reads it) (`worker[1–7]; region = "#" cycling
        eu-1, us-2; replicas = #: 3; 4; …`). Numbered records out of order are listed by
        their numbers (`columns.sorted_order`)."""
        columns = [_Column.of(self.split, at, position).bracketed_name() for at, position in self.varying]
        columns = [replace(column, line=at) for column, (at, _) in zip(columns, self.varying, strict=True)]
        kept, said = _said_by_parts(_distinct(columns))
        rows_order = list(range(len(self.split)))  # each row's record
        for number, column in enumerate(kept):
            order = columns_rules.sorted_order(column.values)
            if order is not None:  # numbered records out of order: rows go by their numbers
                kept = [replace(other, values=[other.values[row] for row in order]) for other in kept]
                kept[number] = replace(kept[number], resorted=True)
                rows_order = order
                break
        ruled = [(column, column.rule()) for column in kept]
        said += [rule for _, rule in ruled if rule is not None]
        listed = [column for column, rule in ruled if rule is None]
        # A column holding another's value in a fixed text (`dlq = "emails-dlq"` beside
        # `emails`) is said once by that text.
        derived = {at: said_by for at, column in enumerate(listed) if (said_by := column.derived(listed[:at]))}
        said += list(derived.values())
        listed = [column for at, column in enumerate(listed) if at not in derived]
        usual: dict[int, str] = {}
        for number, column in enumerate(listed):
            common = max(set(column.values), key=column.values.count)
            if len(listed) > 1 and column.values.count(common) >= share * len(column.values):
                usual[number] = common
        name = _name_column(kept) if self.records else None
        if name is not None and usual and all(self._short_line(listed[number].line) for number in usual):
            # Each record differing from the usual value is named: its line whole, beside
            # the value that names it (`… but tenant06-api has image: …:3.7.9`).
            said += [self._but(listed[number], common, name, rows_order) for number, common in usual.items()]
            listed = [column for number, column in enumerate(listed) if number not in usual]
            usual = {}
        if usual and len(usual) == len(listed):
            del usual[0]  # rows name something of each record
        said += [f"{listed[number].cell(common, labelled=True)} unless shown" for number, common in usual.items()]
        listed = [column if number in usual else column.regular_parts() for number, column in enumerate(listed)]
        if not usual:  # (rows of usual values stay as they are: they name their records)
            # A column listed whole above (the config objects' names, then the same names
            # in the objects using them, record for record) is not listed again.
            said += [f"{column.head()} as listed above" for column in listed if column.listed_in(above)]
            listed = [column for column in listed if not column.listed_in(above)]
        headed = [column for number, column in enumerate(listed) if number not in usual]
        if not headed:
            return "; ".join(said)
        rows: list[str] = []
        for row in range(len(self.split)):
            cells = []
            for number, column in enumerate(listed):
                value = column.values[row]
                if number not in usual:
                    cells.append(column.cell(value))
                elif value != usual[number]:
                    cells.append(column.cell(value, labelled=True))
            rows.append(" ".join(cells))
        lead = "; ".join(said)
        # A row of one value holds no space: rows of one value need no other separator.
        between = " " if len(listed) == 1 else "; "
        return (f"{lead}; " if lead else "") + f"{_heads(headed)}: " + between.join(rows)

    def _short_line(self, at: int) -> bool:
        """Whether the records' line `at` is short enough to be quoted whole in a group
        line (a field's line, not a whole record printed on one line)."""
        return all(len(record[at]) <= _QUOTED_LINE_BYTES for record in self.records)

    def _but(self, column: _Column, common: str, name: _Column, rows_order: list[int]) -> str:
        """`replicas: 2, but tenant11-api has replicas: 0`: a column's usual value in its
        line, and the records holding another, by their names, with its line whole once."""
        rows = [row for row, value in enumerate(column.values) if value != common]
        usual_row = column.values.index(common)

        def line(row: int) -> str:
            return _SPACES_RE.sub(" ", self.records[rows_order[row]][column.line].strip())

        names_by_line: dict[str, list[str]] = {}  # records holding one other line are named together
        for row in rows:
            names_by_line.setdefault(line(row), []).append(name.cell(name.values[row]))
        others = "; ".join(
            f"{', '.join(names)} {'has' if len(names) == 1 else 'have'} {other}" for other, names in names_by_line.items()
        )
        return f"{line(usual_row)}, but {others}"

    def others(self) -> Family:
        """The records after the first (shown whole), with their values that vary among
        themselves."""
        split = self.split[1:]
        varying = [(at, p) for at, p in self.varying if len({record[at][1][p] for record in split}) > 1]
        return Family(split, varying, self.records[1:])

    def said(self, lines: Sequence[int] = (), above: Sequence[str] = ()) -> str | None:
        """The group line's text for the records after the first: the headline (with the
        first record's `lines` too, as `#` templates) and the table of their values (`above`:
        the group lines shown before it). None when they are all alike: each family's own
        rules fold exact repeats."""
        others = self.others()
        if not others.varying:
            return None
        extra = [self.headline(at).strip() for at in lines if at]
        return " … ".join([self.headline(), *dict.fromkeys(extra)]) + f" {{{others.table(above=above)}}}"

    def headline(self, line: int | None = None) -> str:
        """The first record's line `line` with the values that vary between records as `#`;
        by default its first line, and the first line that varies when that one does not
        (`apiVersion: v1 … name: orders-shard-#`)."""
        if line is None:
            lines = sorted({0, min((at for at, _ in self.varying), default=0)})
            return " … ".join(self.headline(at).strip() for at in lines)
        constants, values = self.split[0][line]
        varying = {position for at, position in self.varying if at == line}
        if self.records:
            # Said by the slots the signal check reads (`for sku34: -34` holds `-` before
            # `34`), when the records agree on them.
            plain = [slots(record[line]) for record in self.records]
            if all(split[0] == plain[0][0] for split in plain):
                constants, values = list(plain[0][0]), list(plain[0][1])
                varying = set()
                for p in range(len(values)):
                    held = [split[1][p] for split in plain]
                    cut = cut_shown(held) if len(set(held)) > 1 else None
                    if cut is not None:
                        values[p] = cut  # a text cut at several widths, at its longest
                    elif any(value != values[p] for value in held):
                        varying.add(p)
        shown = [constants[0]]
        for position, (value, after) in enumerate(zip(values, constants[1:], strict=True)):
            shown.append(("#" if position in varying else value) + after)
        # Spacing inside a line aligns columns in a record, and a rule's length follows the
        # title it frames (`___ test_rate[#] ___`): neither is said in full in one line.
        return _normal("".join(shown))


def family(records: Sequence[Sequence[str]]) -> Family | None:
    """`records` as one family; None if their skeletons differ."""
    split = [[word_slots(line) for line in record] for record in records]
    first = split[0]
    squeezed = [[_normal(text) for text in constants] for constants, _ in first]
    varying: list[tuple[int, int]] = []
    for record in split[1:]:
        if len(record) != len(first) or any(
            len(values) != len(first[at][1]) or [_normal(text) for text in constants] != squeezed[at]
            for at, (constants, values) in enumerate(record)
        ):
            return None
    for at, (_, values) in enumerate(first):
        varying += [(at, p) for p in range(len(values)) if any(record[at][1][p] != values[p] for record in split[1:])]
    still_varying: list[tuple[int, int]] = []
    for at, p in varying:
        cut = cut_shown([record[at][1][p] for record in split])
        if cut is None:
            still_varying.append((at, p))
            continue
        for record in split:  # one text cut at several widths is one value, said at its longest
            record[at][1][p] = cut
    return Family(split, still_varying, records)


# A word of a line's constant text: where records of one kind differ in a name without a
# digit (`bump_req_get` / `bump_req_put`, `read` / `write`).
_NAME_RE = re.compile(r"([A-Za-z_]\w*)")


def kin(lines: Sequence[str]) -> tuple[str, ...]:
    """What records of one kind share: their first line's skeleton (the error, the
    assertion, the event), and the shape of the lines under it with every name a word
    (`by #: handler (race.c:#)` and `by #: worker (race.c:#)` are one shape)."""
    head = skeleton(lines[:1])
    return head + tuple(_NAME_RE.sub("w", text) for text in skeleton(lines[1:]))


def kin_family(records: Sequence[Sequence[str]]) -> Family | None:
    """`records` of one `kin` shape as one family, the names that differ between them under
    their first line read as values; None if they differ in anything else."""
    split = [[word_slots(line) for line in record] for record in records]
    if any(len(record) != len(split[0]) for record in split) or len({skeleton(record[:1]) for record in records}) > 1:
        return None
    lines = [_named_values([record[at] for record in split]) for at in range(len(split[0]))]
    if any(line is None for line in lines):
        return None
    named = [[line[number] for line in lines if line is not None] for number in range(len(records))]
    varying = [
        (at, p) for at, (_, values) in enumerate(named[0]) for p in range(len(values)) if any(record[at][1][p] != values[p] for record in named[1:])
    ]
    return Family(named, varying, records)


def _named_values(line: list[tuple[list[str], list[str]]]) -> list[tuple[list[str], list[str]]] | None:
    """One line of each record, as `word_slots` splits it, with the names in which their
    constant texts differ made values; None unless they differ in names only."""
    if any(len(constants) != len(line[0][0]) for constants, _ in line):
        return None
    shown: list[tuple[list[str], list[str]]] = [([""], []) for _ in line]
    for position in range(len(line[0][0])):
        pieces = [constants[position] for constants, _ in line]
        if len({_normal(piece) for piece in pieces}) == 1:
            cut = [[piece] for piece in pieces]
        else:
            cut = [_NAME_RE.split(piece) for piece in pieces]
            if any(len(tokens) != len(cut[0]) or tokens[::2] != cut[0][::2] for tokens in cut):
                return None
        for token in range(len(cut[0])):
            texts = [tokens[token] for tokens in cut]
            if token % 2 and len(set(texts)) > 1:
                for (constants, values), text in zip(shown, texts, strict=True):
                    values.append(text)
                    constants.append("")
            else:
                for (constants, _), text in zip(shown, texts, strict=True):
                    constants[-1] += text
        if position < len(line[0][1]):
            for (constants, values), (_, old) in zip(shown, line, strict=True):
                values.append(old[position])
                constants.append("")
    return shown


# Where a name's parts meet (`tenant02-api-config-b79fthhg2d`, `eu_1/node-07`).
_PART_CUT_RE = re.compile(r"([-_/:])")


@dataclass(frozen=True)
class _Column:
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

    @classmethod
    def of(cls, split: list[list[tuple[list[str], list[str]]]], at: int, position: int) -> _Column:
        constants = split[0][at][0]
        before, after = constants[position][-_LABEL_REACH:], constants[position + 1]
        values = [record[at][1][position] for record in split]
        if all(_LONG_ID_RE.fullmatch(value) for value in values):
            # Ids by their first digits, as a reader tells them apart; `…` said once.
            values = [_short(value).removesuffix("…") for value in values]
            after = "…" + after
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
        return self.cell("#", labelled=True) if self.before else "value"

    def rule(self) -> str | None:
        """The column said once by the rule its values follow (`lines.columns`), or None;
        `(sorted)` when the rows were put in its order."""
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

    def regular_parts(self) -> _Column:
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

    def bracketed_name(self) -> _Column:
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

    def derived(self, others: Sequence[_Column]) -> str | None:
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

    def repeating(self, other: _Column) -> bool:
        """Whether this column holds `other`'s values on every record (`app:` as a label
        and as a selector, a test's id in its heading and in its `def` line): said once.
        A value inside a longer one (`worker-7` beside `worker[7]`) stays whole in its own
        column, as the signal check reads it."""
        return self.values == other.values


def _distinct(columns: list[_Column]) -> list[_Column]:
    """One column of each set holding the same values on every record (`repeating`): the
    first, unless it is a call's argument and another is named as a field (`amount = #`
    over `convert(#,`): a record's own name (`test_rate[#]`, `queue["#"]`) stays."""
    kept: list[_Column] = []
    for column in columns:
        same = next((at for at, other in enumerate(kept) if column.repeating(other)), None)
        if same is None:
            kept.append(column)
        elif _FIELD_RE.search(column.before) and kept[same].is_argument():
            kept[same] = column
    return kept


def _heads(columns: list[_Column]) -> str:
    """The columns' heads between `|`; a comparison follows the value before it on its line
    with no `|` (`assert # == #`), as the record prints them."""
    said = columns[0].head()
    for before, column in zip(columns, columns[1:]):
        compared = column.line == before.line and _COMPARISON_RE.fullmatch(column.before)
        said += f" {column.head()}" if compared else f" | {column.head()}"
    return said


def _said_by_parts(columns: list[_Column]) -> tuple[list[_Column], list[str]]:
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


def _part_at(column: _Column, other: _Column) -> int | None:
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


def _parts(column: _Column) -> set[int]:
    pieces = _pieces(column)
    return set(range(0, len(pieces[0]), 2)) if pieces else set()


def _varying_parts(column: _Column) -> set[int]:
    pieces = _pieces(column) or []
    return {part for part in _parts(column) if len({cut[part] for cut in pieces}) > 1}


def _pieces(column: _Column) -> list[list[str]] | None:
    """Each value cut at `-_/:` into parts (even places) and cuts, when all cut alike."""
    pieces = [_PART_CUT_RE.split(value) for value in column.values]
    cuts = pieces[0][1::2]
    if len(pieces[0]) < 3 or any(len(cut) != len(pieces[0]) or cut[1::2] != cuts for cut in pieces):
        return None
    return pieces


def _name_column(columns: list[_Column]) -> _Column | None:
    """The column naming the records: one whose values differ on every record, labelled
    `name` if one is, else the first."""
    naming = [column for column in columns if len(set(column.values)) == len(column.values)]
    return next((column for column in naming if column.label == "name"), naming[0] if naming else None)


def _short(value: str) -> str:
    """A long id by its first digits: it differs on every record."""
    long_id = _LONG_ID_RE.fullmatch(value)
    return long_id[1] + "…" if long_id else value


def _word(before: str, value: str, previous_path: str) -> tuple[str, str]:
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


@dataclass(frozen=True)
class RecordLimits:
    """When records fold: a shape seen this often, an input this small (every line is split
    into slots), and folding that pays for itself."""

    min_records: int = 3
    max_input_bytes: int = 1 << 20
    # Folded records must hold at least this share of the input: else the input is read
    # by its family's own rules, and records are only part of it.
    min_folded_share: float = 0.5
    # A group line costs at most this share of the bytes it stands for.
    max_line_share: float = 0.5
    # Failing records of one shape, this many or fewer, that differ in more than one value
    # are each shown whole (`_reports_failure`); more of them fold like other records.
    whole_failures: int = 5
    # Records may also be headed by a repeated headline, with no blank line between them
    # (`Lines.headline_blocks`): for plain text; a structured document's family (YAML's
    # list of objects) has its own rules for its items.
    by_headline: bool = False


DEFAULT_LIMITS = RecordLimits()
# Plain text: records between blank lines or rules, or headed by a repeated headline.
TEXT_LIMITS = RecordLimits(by_headline=True)

_ANSI_RE = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]")


def fold_records(
    data: bytes, granularity: Granularity = Granularity.FINE, limits: RecordLimits = DEFAULT_LIMITS
) -> tuple[Part, ...] | None:
    """The input with each shape of multi-line record (blocks between blank lines or
    document separators that are `_structured`, of one skeleton, seen `min_records` times
    or more, not all alike) shown by its first record whole and one group line where its
    second stood, listing every other record's varying values as a row (`Family.said`);
    the separators after a folded record fold with it. In the blocks left, lines of one
    skeleton (`terraform_data.x[3]: Creating...`, a list's items) fold the same way, each
    line a record (`_line_groups`). None unless folded records make up most of the input.
    COARSE: one ref, on a first line, holds every folded line; FINE: one ref per group."""
    if len(data) > limits.max_input_bytes or b"\n" not in data:
        return None
    if limits.min_records > 2 and not bounds.may_hold_records(data, limits.by_headline):
        return None  # one block, or two after a leading separator: no record repeats
    lines = bounds.split_lines(data, _newlines(data))
    best: _Folding | None = None
    def headline(at: int) -> tuple[str, ...]:
        return skeleton([_text(data[lines.texts[at] : lines.ends[at]])])

    headed = lines.headline_blocks(data, headline, limits.min_records) if limits.by_headline else []
    for blocks in (lines.blank_blocks(), lines.ruled_blocks(), headed):
        found = _folding(data, lines, blocks, limits)
        if found is not None and (best is None or found.cost < best.cost):
            best = found
    if best is None or not best.groups or best.folded + best.failing < limits.min_folded_share * len(data):
        return None
    groups = list(best.groups)
    for number, (first, last) in enumerate(best.blocks):
        if number in best.said_whole:
            continue
        for low, high in lines.paragraphs(first, last):  # a ruled record's paragraphs apart
            texts = best.texts[number][low - first : high - first]
            groups += _line_groups(texts, lines.starts[low:high], lines.ends[low:high], limits)
    return parts_with_groups(data, groups, granularity)


@dataclass(frozen=True)
class _Folding:
    """The input's blocks, their texts (read through the lines' prefix), the groups their
    families fold into, the blocks folded or shown whole as the first of their family or
    as failing records, the bytes folded, and the bytes of the failing records kept whole
    (records too, to tell whether records make up most of the input)."""

    blocks: list[tuple[int, int]]
    texts: list[list[str]]
    groups: list[Group]
    said_whole: set[int]
    folded: int
    failing: int = 0

    @property
    def cost(self) -> int:
        """What is left to read, less the input's length (the same for every way of cutting
        it into blocks): the group lines' bytes, less the bytes folded."""
        return sum(len(group.line.encode()) for group in self.groups if group.line) - self.folded


def _folding(data: bytes, lines: bounds.Lines, blocks: list[tuple[int, int]], limits: RecordLimits) -> _Folding | None:
    """The families of `blocks` that fold (`_structured` blocks of one skeleton, seen
    `min_records` times or more, not all alike, their group line short enough); None
    when there are too few blocks. A folded record's extent runs to the next block, so
    that the separators after it fold with it."""
    if len(blocks) < limits.min_records:
        return None
    starts, ends = lines.starts, lines.ends
    texts = [[_text(data[lines.texts[i] : ends[i]]) for i in range(first, last)] for first, last in blocks]
    # A record's bytes, with the separators after it up to the next record (a box's
    # opening corner line goes with the record it opens).
    extent = [
        (_opened_at(data, lines, first), _opened_at(data, lines, following[0]))
        for (first, _), following in zip(blocks, blocks[1:])
    ]
    extent.append((_opened_at(data, lines, blocks[-1][0]), len(data)))
    groups: list[Group] = []
    said_whole: set[int] = set()
    failing = 0
    structured = [number for number, block in enumerate(texts) if _structured(block)]
    failing_blocks = [number for number, block in enumerate(texts) if _fails(block)]
    for shape, fold in ((skeleton, family), (kin, kin_family)):
        by_shape: dict[tuple[str, ...], list[int]] = {}
        for number in structured:
            if number not in said_whole:
                by_shape.setdefault(shape(texts[number]), []).append(number)
        strays = _strays_by_kin(by_shape, texts, limits) if fold is family else {}
        for members in (run for alike in by_shape.values() for run in _runs_between(alike, failing_blocks)):
            if len(members) < limits.min_records:
                continue
            found = fold([texts[number] for number in members])
            if found is None:
                continue
            members, found = _with_strays(members, found, strays, texts)
            if len(found.varying) > 1 and len(members) <= limits.whole_failures and _reports_failure(found):
                said_whole.update(members)  # a few failures that differ in more than a name: each is read
                failing += sum(end - start for start, end in (extent[number] for number in members))
                continue
            folded, at = members[1:], extent[members[1]][0]
            above = [group.line for group in groups if group.line and group.at < at]
            line = found.said(_telling_lines(found, named=fold is kin_family), above)
            hidden = sum(ends[blocks[n][1] - 1] - starts[blocks[n][0]] for n in folded)
            if line is None or len(line.encode()) > limits.max_line_share * hidden:
                continue
            groups.append(Group(line, [extent[number] for number in folded], at))
            said_whole.update(members)
    folded_bytes = sum(end - start for group in groups for start, end in group.spans)
    return _Folding(blocks, texts, groups, said_whole, folded_bytes, failing)


def _runs_between(members: list[int], failing_blocks: list[int]) -> list[list[int]]:
    """Records of one shape cut where a failing record of another shape lies between them:
    a group line stands where its first record was, so records after a failure folded into
    a group before it would read as having come before it (what a build did after an error
    is part of what the reader asks). Each run folds on its own."""
    runs: list[list[int]] = [[members[0]]]
    others = iter(number for number in failing_blocks if number > members[0])
    failure = next(others, None)
    for number in members[1:]:
        cut = False
        while failure is not None and failure < number:
            cut = cut or failure not in members
            failure = next(others, None)
        if cut:
            runs.append([])
        runs[-1].append(number)
    return runs


def _strays_by_kin(
    by_shape: dict[tuple[str, ...], list[int]], texts: list[list[str]], limits: RecordLimits
) -> dict[tuple[str, ...], list[int]]:
    """The records whose skeleton is seen too few times to fold, by their `kin`."""
    strays: dict[tuple[str, ...], list[int]] = {}
    for members in by_shape.values():
        if len(members) < limits.min_records:
            for number in members:
                strays.setdefault(kin(texts[number]), []).append(number)
    return strays


def _with_strays(
    members: list[int], found: Family, strays: dict[tuple[str, ...], list[int]], texts: list[list[str]]
) -> tuple[list[int], Family]:
    """`members` with the `strays` of their kin, which differ from them in names only
    (`LOG_LEVEL: debug` among `LOG_LEVEL: info`), so that the group line names the odd
    value beside the record holding it, as it does an odd number. Failures take no strays:
    a record reporting another error stays whole."""
    kind = kin(texts[members[0]])
    if kind not in strays or _reports_failure(found):
        return members, found
    joined = sorted([*members, *strays[kind]])
    merged = kin_family([texts[number] for number in joined])
    if merged is None or _reports_failure(merged):
        return members, found
    del strays[kind]
    return joined, merged


def _opened_at(data: bytes, lines: bounds.Lines, first: int) -> int:
    """Where the record whose first line is `first` starts: at the box's opening corner
    line before it, if one opens it."""
    before = first - 1
    if before >= 0 and bounds.opens_box(data, lines.starts[before], lines.ends[before]):
        return lines.starts[before]
    return lines.starts[first]


def _telling_lines(found: Family, named: bool) -> list[int]:
    """The lines of a family's first record shown as templates with its headline, so that
    each record's values are read in their line: its failure lines that vary (`assertion
    failed: max_err <= 3 (max_err=# at sample #)`), its lines whose location varies (`at
    #: worker (racy.c:#)`: where each record is) and, with `named`, its lines whose
    varying values hold a name (no digit: `at #: bump_req_get (race.c:#)`)."""
    first = found.split[0]
    varying = {at for at, _ in found.varying}
    failing = {at for at in varying if _tells_why("".join(_joined(*first[at])))}
    naming = {at for at, p in found.varying if named and not any(c.isdigit() for c in first[at][1][p])}
    locating = {at for at, p in found.varying if _locates(*first[at], p)}
    return sorted(failing | naming | locating)


# A file's name right before a value: the value is its line (`(racy.c:` then `6`).
_FILE_BEFORE_RE = re.compile(r"[\w./\-]\.[A-Za-z]\w{0,9}:$")


def _locates(constants: list[str], values: list[str], position: int) -> bool:
    """Whether a line's value at `position` is a location, or the line number of the file
    named right before it."""
    return is_location(values[position]) or _FILE_BEFORE_RE.search(constants[position][-32:]) is not None


# A failed check's line, beside the failure lines of `shapes.is_failure`.
_ASSERTION_RE = re.compile(r"\bassert(?:ion)?\b", re.IGNORECASE)
# A record's label saying it failed (`Failed example:`, `Failure in test x`).
_FAILED_LABEL_RE = re.compile(r"^\W*(?:Failed|Failure|Failing)\b")


def _reports_failure(found: Family) -> bool:
    """Whether a family's records report a failure (an error line, a failed check, a
    `Failed …` label). A few such records are folded only when they differ from the first
    in one value (the name of what failed: `worker-23`), which a group line names as
    plainly as the record does; ones differing in more (what was expected, what was got,
    where) are kept whole, neither said as rows of a table nor folded line by line."""
    return _fails(found.records[0])


def _fails(record: Sequence[str]) -> bool:
    """Whether a record reports a failure: an error line, a failed check, a `Failed …` label."""
    return any(_tells_why(line) or _FAILED_LABEL_RE.match(line) for line in record)


def _tells_why(line: str) -> bool:
    return is_failure(line) or _ASSERTION_RE.search(line) is not None


def _joined(constants: list[str], values: list[str]) -> list[str]:
    return [text for pair in zip(constants, [*values, ""], strict=True) for text in pair]


def _line_groups(texts: list[str], starts: list[int], ends: list[int], limits: RecordLimits) -> list[Group]:
    """A block's lines of one skeleton, `min_records` or more, each one a record. The
    first in natural order stays (`worker[0]` before `worker[2]`, whatever order they came
    in: the one a reader asks for first), and one group line after it stands for the
    others (without values when they are all alike)."""
    by_skeleton: dict[tuple[str, ...], list[int]] = {}
    for at, text in enumerate(texts):
        by_skeleton.setdefault(skeleton([text]), []).append(at)
    groups: list[Group] = []
    for members in by_skeleton.values():
        if len(members) < limits.min_records:
            continue
        first = min(members, key=lambda at: _natural(texts[at]))
        members = [first, *(at for at in members if at != first)]
        found = family([[texts[at]] for at in members])
        if found is None:
            continue
        line = found.said()
        hidden = sum(ends[at] - starts[at] for at in members[1:])
        if line is not None and len(line.encode()) > limits.max_line_share * hidden:
            continue
        groups.append(Group(line, sorted((starts[at], ends[at]) for at in members[1:]), ends[first]))
    return groups


_DIGITS_RE = re.compile(r"(\d+)")


def _natural(text: str) -> list[tuple[int, str]]:
    """A line's sort key with its numbers read as numbers: `x[2]` before `x[10]`."""
    return [(int(piece), "") if number % 2 else (0, piece) for number, piece in enumerate(_DIGITS_RE.split(text)) if piece]


@dataclass(frozen=True)
class Group:
    """Folded records: the group line (None when they are all alike), their spans of the
    input, and where the group line goes (where the first of them was, or after the
    record shown whole). `label` replaces `×N more like the one above` when the spans are
    no whole records (lines left out of records that stay)."""

    line: str | None
    spans: list[Span]
    at: int
    label: str | None = None


def _structured(lines: list[str]) -> bool:
    """Whether a block reads as a record rather than a paragraph: three lines or more, some
    indented otherwise than its first (a resource's fields, a document's keys, a
    traceback's frames under it; a test's output under its indented `Start` line)."""
    if len(lines) < 3:
        return False
    base = len(lines[0]) - len(lines[0].lstrip())
    return any(len(line) - len(line.lstrip()) != base for line in lines[1:] if line.strip())


def _newlines(data: bytes) -> list[int]:
    found: list[int] = []
    at = data.find(b"\n")
    while at >= 0:
        found.append(at)
        at = data.find(b"\n", at + 1)
    return found


def _text(line: bytes) -> str:
    if b"\x1b" in line:
        line = _ANSI_RE.sub(b"", line)
    return visible(line.rstrip(b"\r\n"))


def parts_with_groups(
    data: bytes, groups: list[Group], granularity: Granularity, kind: str | None = None
) -> tuple[Part, ...]:
    """The input's text with each group's folded spans left out and its line where it goes;
    `kind` names what the spans are (`members`) when they are neither records nor lines."""
    coarse = granularity is Granularity.COARSE
    folded = sorted(span for group in groups for span in group.spans)
    lines_at = {group.at: group for group in groups}  # at most one group line starts a span
    parts: list[Part] = []
    if coarse:
        # Spans are lines when every group leaves lines out of records that stay.
        kind = kind or ("lines" if groups and all(group.label for group in groups) else "records")
        reason = f"all {len(folded):,} folded {kind}, concatenated in original order"
        # The input's lines beside what is folded, as a log's header gives them: a count of
        # records alone reads as the input's size.
        total = line_count(data)
        header = (
            f"[lines: {len(folded):,} of {total:,} folded: "
            if kind == "lines"
            else f"[{kind}: {total:,} lines; {len(folded):,} {kind} folded: "
        )
        parts += [header, Omission(InputSlices(data, folded), reason, tuple(folded)), "]\n"]
    at = 0
    stops = dict(folded)
    for place in sorted({*lines_at, *stops}):
        parts.append(_shown(data[at:place]))
        group = lines_at.get(place)
        if group is not None:
            parts += _group_line(data, group, coarse, kind)
        at = stops.get(place, place)
    parts.append(_shown(data[at:]))
    return tuple(join_literals(parts))


def _shown(kept: bytes) -> str:
    """Kept text as a reader reads it: without colour codes, as group lines are said (the
    input's exact bytes are behind the footer's ref)."""
    return visible(_ANSI_RE.sub(b"", kept) if b"\x1b" in kept else kept)


def _group_line(data: bytes, group: Group, coarse: bool, kind: str | None) -> list[Part]:
    """`[×N more like the one above]` and the group's line; FINE: with the group's own ref."""
    shown = f" {group.line}" if group.line is not None else ""
    said = group.label or f"×{len(group.spans):,} more like the one above"
    if coarse:
        return [f"[{said}]{shown}\n"]
    kind = kind or ("lines" if group.label else "records")
    label = f"{len(group.spans)} {kind} like: {(group.line or '')[:80]}"
    omission = Omission(b"".join(data[a:b] for a, b in group.spans), label, tuple(group.spans))
    return [f"[{said} ", omission, f"]{shown}\n"]
