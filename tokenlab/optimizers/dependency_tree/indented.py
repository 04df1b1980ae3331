"""Dependency trees drawn by indentation alone, and what a folded run of entries names.

Some tools print a tree with no drawing: each level is indented a step further, and a
record may hold lines that name no package (`npm explain` puts a location line under each
`name@"range" from dependent@1.2` entry). Such a text is a tree when entries with a
version fill at least `min_share` of its lines, those entries stand at `min_levels`
indentations or more, and the indentation rises one small step at a time (wrapped prose
or a table jumps); a stack dump whose frames all stand at one indentation is no tree.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tokenlab.patterns import compile_on_use

# A word naming the kind of a dependency before its entry (`peer `, `dev `, `optional `).
_QUALIFIER_RE = compile_on_use(r"[a-z][A-Za-z]* ")
_MAX_STEP = 4  # columns an indentation rises by from one line to the next
_STEP_SHARE = 0.95
_MIN_SHARE = 0.4
_MIN_LEVELS = 3
_MIN_ENTRIES = 5


def indentation(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def entry_text(text: str, versioned: re.Pattern[str]) -> str | None:
    """The entry a line holds (its text after the indentation and a qualifier word, so that
    it starts with the package) when it names a package with a version, else None."""
    entry = text.strip()
    if versioned.match(entry):
        return entry
    qualifier = _QUALIFIER_RE.match(entry)
    if qualifier and versioned.match(entry, qualifier.end()):
        return entry[qualifier.end() :]
    return None


def looks_indented(lines: Sequence[str], versioned: re.Pattern[str]) -> bool:
    """`lines` (non-blank) read as a tree drawn by indentation."""
    levels: set[int] = set()
    entries = rises = steps = 0
    previous = 0
    for text in lines:
        column = indentation(text)
        if entry_text(text, versioned) is not None:
            entries += 1
            levels.add(column)
        if column > previous:
            rises += 1
            steps += column - previous <= _MAX_STEP
        previous = column
    return (
        entries >= _MIN_ENTRIES
        and entries >= _MIN_SHARE * len(lines)
        and len(levels) >= _MIN_LEVELS
        and steps >= _STEP_SHARE * rises
    )


def varying_words(heads: Sequence[str]) -> list[str]:
    """What tells entries of one shape apart, one text per entry: the words that differ
    from the other entries' words at the same place (`jest-circus@29.7.0` out of
    `x@"^6.0.0" from jest-circus@29.7.0`), less a word that repeats one already said
    (`(/src/tax)` after `tax`). Entries of another length of words are said whole."""
    split = [head.split() for head in heads]
    common = len(split[0])
    alike = [words for words in split if len(words) == common]
    varying = [
        position for position in range(common) if len({words[position] for words in alike}) > 1
    ]
    said: list[str] = []
    for words in split:
        if len(words) != common or not varying:
            said.append(" ".join(words))
            continue
        row: list[str] = []
        for position in varying:
            word = words[position]
            if not any(earlier in word for earlier in row):
                row.append(word)
        said.append(" ".join(row))
    return said
