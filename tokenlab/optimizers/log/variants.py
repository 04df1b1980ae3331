"""Folded groups whose shapes differ in one word become one group line.

A service log prints the same request line for each endpoint (`GET /api/users/#`,
`GET /api/orders/#` …), a cache its `hit` and `miss` lines: each shape is a template of
its own, and each would take a group line that repeats everything but that word. Large
groups (more lines than a group shows values for) whose templates have the same words
but one merge into one group line that lists that word of each, with its count:
`GET {/api/users/{1 … 94787} ×759, /api/orders/{3 … 71359} ×745} status=200 …`.
Shapes merge only when that word is all that tells them apart: two whose lines each keep
another word constant, but a different one (`200` in one, `500` in the other), stay
apart, so that a status stays with the requests that got it. Every other word that varies
is summarised (`line_values.word_summary`), never shown as the first line's.
Anomalies and summaries never fold into templates, so they never merge either.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable

from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.optimizers.lines import values as line_values
from tokenlab.optimizers.log.model import LINE_INDEX, Group, GroupKind, Lines, LogLimits, Texts
from tokenlab.patterns import compile_on_use


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
    constant_words: dict[int, list[str | None]] = {}

    def constant(group: Group) -> list[str | None]:  # read only for groups that may merge
        if id(group) not in constant_words:
            constant_words[id(group)] = _constant_words(group, lines, limits)
        return constant_words[id(group)]

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
            mates = [
                other
                for other in mates
                if _aligned(lines, group, other, position, len(words), limits)
                and not _another_field_differs(constant(group), constant(other), position)
            ]
            if mates:
                for other in mates:
                    merged_into[id(other)] = group
                group.variants = [other.lines for other in (group, *mates)]
                group.variant_word = position
                group.lines = array(LINE_INDEX, sorted(i for other in (group, *mates) for i in other.lines))
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


_DIGIT_RE = compile_on_use(r"\d")


def _constant_words(group: Group, lines: Lines, limits: LogLimits) -> list[str | None]:
    """Each word of the group's lines where all of them have the same, else None."""
    texts = Texts(lines, group.lines, limits.line_bytes)
    constant: list[str | None] = list(texts[0].split())
    for text in texts:
        words = text.split()
        if len(words) != len(constant):
            return [None] * len(constant)
        constant = [word if word == other else None for word, other in zip(words, constant)]
    return constant


def _another_field_differs(words: list[str | None], others: list[str | None], position: int) -> bool:
    """Whether two groups each keep a word other than `position` constant, but not the
    same one, beyond clock times and ids (`200` in one, `500` in the other): a second
    field that tells them apart, which one merged line would pair with neither."""
    if len(words) != len(others):
        return True
    for at, (word, other) in enumerate(zip(words, others)):
        if at != position and word is not None and other is not None and word != other:
            found = line_shapes.varying_slots([word, other])
            if found is None or found[1]:
                return True
    return False


def variants_shown(group: Group, lines: Lines, limits: LogLimits) -> str | None:
    """The group's lines as one: the word that tells the merged shapes apart listed for
    each of them with its count (`{/api/fail ×10, /api/orders/{1 … 60} ×60}`), every
    other word that varies summarised. None if their word counts differ."""
    shapes = [Texts(lines, [i for i in shape if lines.clean(i).strip()], limits.line_bytes) for shape in group.variants]
    texts = Texts(lines, sorted(i for shape in shapes for i in shape.indexes), limits.line_bytes)
    cap = limits.inline_values
    shown = line_values.word_summaries(texts, cap)
    if shown is None:
        return None
    listed = []
    for shape in shapes:
        words = [text.split()[group.variant_word] for text in shape]
        listed.append(line_values.word_summary(words, cap) + f" ×{len(words):,}")
    shown[group.variant_word] = "{" + ", ".join(listed) + "}"
    return line_values.with_words(texts[0], shown)
