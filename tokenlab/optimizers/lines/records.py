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
from dataclasses import dataclass

from tokenlab.optimizers.lines.shapes import LOCATION_VALUE_RE, is_location, slots

# The word a value belongs to, read from the constant text before it (`name   = "`,
# `unused variable: \``, `cache_node[`).
_LABEL_RE = re.compile(r"([A-Za-z_][\w.\-]*)(\s*[=:]?\s*[\"'`\[(]?)$")
# Labels are looked for this far back: a search anchored at the end still starts at each byte.
_LABEL_REACH = 64
_CLOSING = {"[": "]", "(": ")"}
# Long ids (hashes, UUIDs) are shown by their first digits: they differ on every record.
_LONG_ID_RE = re.compile(r"([0-9a-f]{8})(?:[0-9a-f]{8,}|(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})")


def skeleton(lines: Sequence[str]) -> tuple[str, ...]:
    """The record's constant texts, a line at a time, spacing squeezed: records with equal
    skeletons differ only in their values."""
    return tuple("\0".join(" ".join(text.split()) for text in slots(line)[0]) for line in lines)


@dataclass(frozen=True)
class Family:
    """Records of one skeleton: each line's slots, and the (line, slot) positions whose
    values differ between the records."""

    split: list[list[tuple[list[str], list[str]]]]
    varying: list[tuple[int, int]]

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

    def headline(self, line: int = 0) -> str:
        """The first record's line `line` with the values that vary between records as `#`."""
        constants, values = self.split[0][line]
        varying = {position for at, position in self.varying if at == line}
        shown = [constants[0]]
        for position, (value, after) in enumerate(zip(values, constants[1:], strict=True)):
            shown.append(("#" if position in varying else value) + after)
        return "".join(shown)


def family(records: Sequence[Sequence[str]]) -> Family | None:
    """`records` as one family; None if their skeletons differ."""
    split = [[slots(line) for line in record] for record in records]
    first = split[0]
    squeezed = [[" ".join(text.split()) for text in constants] for constants, _ in first]
    varying: list[tuple[int, int]] = []
    for record in split[1:]:
        if len(record) != len(first) or any(
            len(values) != len(first[at][1]) or [" ".join(text.split()) for text in constants] != squeezed[at]
            for at, (constants, values) in enumerate(record)
        ):
            return None
    for at, (_, values) in enumerate(first):
        varying += [(at, p) for p in range(len(values)) if any(record[at][1][p] != values[p] for record in split[1:])]
    return Family(split, varying)


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
        return f"{label[1]}{opening}{value}{_CLOSING[opening]}", previous_path
    if "=" in label[2] or label[2].strip() == ":":
        return f"{label[1]}={value}", previous_path
    return value, previous_path  # a word of the message, not a field's name
