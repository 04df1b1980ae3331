"""Families of multi-line records: records of one skeleton, said once with the values each
holds, paired.

Tool output often repeats a record of several lines that differs only in a few values: a
plan's block per resource, a parametrised test's failure per parameter, a linter's
diagnostic per location. A record's *skeleton* is its lines' constant texts (`slots`:
words holding a digit, short quoted names and locations are values); records with one
skeleton are one shape. A family shows the first of them whole and the others as one
*row* each, naming only the values that differ between them, in the record's own order,
so that values that vary together stay together (`cache_node[9] name=cache-9`, never a
list of indexes beside a list of names). How each varying value is named and listed is
`lines.record_columns`; where records are found and folded is `lines.records`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from tokenlab.optimizers.lines import columns as columns_rules
from tokenlab.optimizers.lines.record_columns import (
    Column,
    column_heads,
    distinct_columns,
    name_column,
    offsets_said,
    row_word,
    said_by_parts,
)
from tokenlab.optimizers.lines.shapes import cut_shown, slots, word_slots
from tokenlab.patterns import compile_on_use

_SPACES_RE = compile_on_use(r"\s+")
# A line longer than this is not quoted whole in a group line.
_QUOTED_LINE_BYTES = 120


def skeleton(lines: Sequence[str]) -> tuple[str, ...]:
    """The record's constant texts, a line at a time, spacing and rules squeezed: records
    with equal skeletons differ only in their values."""
    return tuple("\0".join(map(_normal, word_slots(line)[0])) for line in lines)


# A rule's length follows the title it frames (`____ test[7] ____`), and a pointer's the
# expression it points at (`^^^^^` under `ratio(7, 0)`, one more under `ratio(20, 0)`):
# neither is part of a shape.
_RULE_RUN_RE = compile_on_use(r"([_=\-─^])\1{2,}")


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
                word, previous_path = row_word(constants[position], values[position], previous_path)
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
        columns = [Column.of(self.split, at, position).bracketed_name() for at, position in self.varying]
        columns = [replace(column, line=at) for column, (at, _) in zip(columns, self.varying, strict=True)]
        kept, said = said_by_parts(distinct_columns(columns))
        rows_order = list(range(len(self.split)))  # each row's record
        for number, column in enumerate(kept):
            order = None if column.ids else columns_rules.sorted_order(column.values)
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
        listed = offsets_said([column for at, column in enumerate(listed) if at not in derived])
        usual: dict[int, str] = {}
        for number, column in enumerate(listed):
            common = max(set(column.values), key=column.values.count)
            if len(listed) > 1 and column.values.count(common) >= share * len(column.values):
                usual[number] = common
        name = name_column(kept) if self.records else None
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
        return (f"{lead}; " if lead else "") + f"{column_heads(headed)}: " + between.join(rows)

    def _short_line(self, at: int) -> bool:
        """Whether the records' line `at` is short enough to be quoted whole in a group
        line (a field's line, not a whole record printed on one line)."""
        return all(len(record[at]) <= _QUOTED_LINE_BYTES for record in self.records)

    def _but(self, column: Column, common: str, name: Column, rows_order: list[int]) -> str:
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
        rules fold exact repeats. Of `lines`, those holding no value that varies are left
        out: the first record, shown whole, says them as every record does."""
        others = self.others()
        if not others.varying:
            return None
        varying = {at for at, _ in self.varying}
        extra = [self.headline(at).strip() for at in lines if at and at in varying]
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
_NAME_RE = compile_on_use(r"([A-Za-z_]\w*)")


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
