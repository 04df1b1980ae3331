"""Folded groups whose shapes differ in one word become one group line.

A service log prints the same request line for each endpoint (`GET /api/users/#`,
`GET /api/orders/#` …), a cache its `hit` and `miss` lines: each shape is a template of
its own, and each would take a group line that repeats everything but that word. Large
groups (more lines than a group shows values for) whose templates have the same words
but one merge into one group line that lists that word of each, with its count:
`GET {/api/users/94787 ×759, /api/orders/71359 ×745} status=200 …`.
Anomalies and summaries never fold into templates, so they never merge either.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable

from tokenlab.optimizers.log_model import Group, GroupKind, Lines, LogLimits

_WORD_RE = re.compile(r"\S+")


def merge_variants(
    groups: list[Group], keys: dict[int, bytes], lines: Lines, limits: LogLimits, lists_values: Callable[[str], bool]
) -> list[Group]:
    """`groups` with those of one shape but one word merged; `keys` maps a group's first
    line to its template. Groups that list their values (`lists_values`) stay apart."""
    candidates = [
        group
        for group in groups
        if group.kind is GroupKind.TEMPLATE
        and not group.identical
        and len(group.lines) > limits.inline_values
        and b"<test>" not in keys[group.lines[0]]
        and not lists_values(lines.text(group.lines[0], limits.line_bytes))
    ]
    merged_into: dict[int, Group] = {}
    for group in candidates:
        if id(group) in merged_into:
            continue
        words = keys[group.lines[0]].split()
        for position in range(len(words)):
            mates = [
                other
                for other in candidates
                if other is not group and id(other) not in merged_into and _differs_at(words, keys[other.lines[0]].split(), position)
            ]
            mates = [other for other in mates if _aligned(lines, group, other, position, len(words), limits)]
            if mates:
                for other in mates:
                    merged_into[id(other)] = group
                group.variants = [(other.lines[0], len(other.lines)) for other in (group, *mates)]
                group.variant_word = position
                group.lines = array("q", sorted(i for other in (group, *mates) for i in other.lines))
                break
    return [group for group in groups if id(group) not in merged_into]


def _differs_at(words: list[bytes], other: list[bytes], position: int) -> bool:
    return len(other) == len(words) and other[position] != words[position] and all(
        a == b for at, (a, b) in enumerate(zip(words, other)) if at != position
    )


def _aligned(lines: Lines, group: Group, other: Group, position: int, count: int, limits: LogLimits) -> bool:
    """Whether the two groups' first lines have as many words as their template and agree
    on every word but `position`, or differ only where both hold a digit (a time, an id):
    a quoted name that differs keeps its shape apart."""
    words = lines.text(group.lines[0], limits.line_bytes).split()
    others = lines.text(other.lines[0], limits.line_bytes).split()
    if len(words) != count or len(others) != count:
        return False
    return all(
        a == b or (_DIGIT_RE.search(a) and _DIGIT_RE.search(b))
        for at, (a, b) in enumerate(zip(words, others))
        if at != position
    )


_DIGIT_RE = re.compile(r"\d")


def variants_shown(group: Group, lines: Lines, limits: LogLimits) -> str:
    """The group's first line with its varying word listed for each merged shape."""
    text = lines.text(group.lines[0], limits.line_bytes)
    spans = list(_WORD_RE.finditer(text))
    words = []
    for first, count in group.variants:
        word = _WORD_RE.findall(lines.text(first, limits.line_bytes))[group.variant_word]
        words.append(f"{word} ×{count:,}")
    span = spans[group.variant_word]
    return text[: span.start()] + "{" + ", ".join(words) + "}" + text[span.end() :]
