"""A dump made of members: many blocks headed alike, each folded whole as a record.

Some dumps repeat one report per member: an archive's objects (`X.o:  file format …`),
several files' headers (`File: a.o`), a symbol listing per file under its `a.o:` line. Each member
holds sections of its own (a 5-line header, a section table, a symbol table), so cutting
them one by one leaves every member's header and every section's title on show, and the
reader still scrolls through hundreds of members. Read instead as a series of records:

- a *member* starts at a header line that opens a block (after a blank line) and whose
  words, one of them set aside (the member's name), repeat on `min_members` block openers
  or more; it runs to the next header;
- most members hold more than one paragraph (a header, then sections): a member of one
  paragraph is a record, which `lines.records` folds by its values;
- a member's *shape* is its sequence of section titles (unindented lines ending in `:`,
  counts set aside): members of one shape differ only in their values;
- the first member of each shape stays whole, as do the last member, members of a shape
  seen fewer than `rare_members` times (an empty symbol table, other flags, another
  architecture) and members holding a failure line; the others of a shape fold into one
  group line naming each folded member by the words of its header paragraph that vary
  within the shape (its name, its size);
- a closing line counts the members, the ones shown whole and the groups.

The rule applies only when members make up `min_share` of the input (the last one, which
runs to the input's end, counted as large as the others' mean), so a report with a few
repeated headings among prose is left to the outline.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice

from tokenlab.optimizers import Granularity, Part, Span
from tokenlab.optimizers.lines.records import Group, parts_with_groups
from tokenlab.optimizers.lines.shapes import is_failure
from tokenlab.patterns import compile_on_use


@dataclass(frozen=True)
class MemberLimits:
    min_members: int = 8  # block openers headed alike, from this many on, are members
    rare_members: int = 3  # a shape seen fewer times than this stays whole
    min_share: float = 0.8  # members must make up this share of the input's bytes
    min_member_lines: int = 3  # a member shorter than this is a line, not a report
    said_words: int = 4  # a folded member is named by this many of its varying words at most
    max_input_bytes: int = 1 << 26  # every line is read as text: larger inputs are left to the outline


DEFAULT_MEMBER_LIMITS = MemberLimits()

# A name's characters, set aside in the word that holds it (`assert.o:` reads `*:`).
_NAME_RE = compile_on_use(r"[\w.\-/+@]+")
_COUNT_RE = compile_on_use(r"\b\d+\b")
# A line that may be blank as `str.strip` reads it: ASCII whitespace, the separators it
# also strips, or bytes of a character past ASCII (a no-break space) only.
_MAYBE_BLANK_LINE_RE = compile_on_use(rb"\n(?:[ \t\r\f\v\x1c-\x1f]|[\x80-\xff])*\n")


@dataclass(frozen=True)
class _Member:
    """Lines [first, end) of the input, its name and its shape."""

    first: int
    end: int
    name: str
    shape: tuple[str, ...]


def fold_members(
    data: bytes, granularity: Granularity = Granularity.FINE, limits: MemberLimits = DEFAULT_MEMBER_LIMITS
) -> tuple[Part, ...] | None:
    """The input with its members folded by shape (see the module's docstring); None when
    it is no series of members."""
    if len(data) > limits.max_input_bytes or not _enough_blocks(data, limits.min_members):
        return None
    lines = data.decode("utf-8", "surrogateescape").split("\n")
    members = _members(lines, limits)
    if not members:
        return None
    offsets = _line_offsets(data)
    # The last member runs to the input's end, over whatever follows the series: the
    # series is measured by the others, each member taken as large as their mean.
    others = offsets[members[-1].first] - offsets[members[0].first]
    member_bytes = others * len(members) / (len(members) - 1)
    if member_bytes < limits.min_share * len(data):
        return None
    groups = _groups(lines, offsets, members, limits)
    if not groups:
        return None
    parts = list(parts_with_groups(data, groups, granularity, "members"))
    folded = sum(len(group.spans) for group in groups)
    parts.append(
        f"[{len(members):,} members headed like `{lines[members[0].first].strip()}`:"
        f" {len(members) - folded:,} shown whole, {folded:,} folded in {len(groups)} group(s)]\n"
    )
    return tuple(parts)


def _enough_blocks(data: bytes, members: int) -> bool:
    """Whether the input may hold `members` blocks: every member past the first two opens
    after a blank line that has a line before it. Read before the input is split in
    lines, which a one-line input or one without blank lines never needs."""
    wanted = members - 2
    return sum(1 for _ in islice(_MAYBE_BLANK_LINE_RE.finditer(data), wanted)) >= wanted


def _line_offsets(data: bytes) -> list[int]:
    """The byte offset each line starts at, and the input's length after the last."""
    offsets = [0]
    at = data.find(b"\n")
    while at >= 0:
        offsets.append(at + 1)
        at = data.find(b"\n", at + 1)
    offsets.append(len(data))
    return offsets


def _header_key(line: str, masked: int) -> tuple[str, ...] | None:
    """The line's words with the one at `masked` read as a name; None when nothing of the
    line is left (any one-word line would be alike)."""
    words = line.split()
    if masked >= len(words):
        return None
    name = _NAME_RE.sub("*", words[masked])
    if name == "*" and len(words) == 1:
        return None
    return (str(masked), *words[:masked], name, *words[masked + 1 :])


def _members(lines: Sequence[str], limits: MemberLimits) -> list[_Member]:
    """The members, in order, headed by the commonest block-opener pattern; none when no
    pattern is seen `min_members` times."""
    openers = [at for at, line in enumerate(lines) if line.strip() and (at == 0 or not lines[at - 1].strip())]
    counts: Counter[tuple[str, ...]] = Counter()
    first_seen: dict[tuple[str, ...], int] = {}
    for at in openers:
        words = lines[at].split()
        keys = [key for masked in range(min(len(words), 4)) if (key := _header_key(lines[at], masked))]
        counts.update(keys)
        for key in keys:
            first_seen.setdefault(key, at)
    # The members' header opens the series; a section title repeated inside each member
    # (`RELOCATION RECORDS FOR [.text]:`) is first seen later. Ties: the commoner.
    candidates = [key for key, seen in counts.items() if seen >= limits.min_members]
    if not candidates:
        return []
    pattern = min(candidates, key=lambda key: (first_seen[key], -counts[key]))
    masked = int(pattern[0])
    heads = [at for at in openers if _header_key(lines[at], masked) == pattern]
    stops = [*heads[1:], len(lines)]
    members = [
        _Member(head, stop, lines[head].split()[masked].rstrip(":"), _shape(lines[head + 1 : stop]))
        for head, stop in zip(heads, stops, strict=True)
    ]
    if any(member.end - member.first < limits.min_member_lines for member in members):
        return []
    # A member of one paragraph is a record (a plan's resource), folded as such elsewhere:
    # a member here is a report of its own, its header and its sections apart.
    sectioned = sum(1 for member in members if _paragraphs(lines[member.first : member.end]) > 1)
    return members if 2 * sectioned >= len(members) else []


def _paragraphs(lines: Sequence[str]) -> int:
    """How many runs of non-blank lines `lines` holds."""
    return sum(1 for at, line in enumerate(lines) if line.strip() and (at == 0 or not lines[at - 1].strip()))


def _shape(lines: Sequence[str]) -> tuple[str, ...]:
    """The member's section titles: unindented lines ending in `:`, counts set aside."""
    return tuple(
        _COUNT_RE.sub("#", line.rstrip())
        for line in lines
        if line[:1].strip() and line.rstrip().endswith(":")
    )


def _groups(
    lines: Sequence[str], offsets: list[int], members: list[_Member], limits: MemberLimits
) -> list[Group]:
    """One group per shape seen `rare_members` times or more: its members but the first
    (and the input's last member, and those holding a failure line), as spans. A folded
    member followed by one shown keeps its closing blank lines on show, so that the group
    line stands apart from the next member's header as the member did."""
    by_shape: dict[tuple[str, ...], list[_Member]] = defaultdict(list)
    for member in members:
        by_shape[member.shape].append(member)
    folded_by_shape = [
        [
            member
            for member in alike[1:]
            if member is not members[-1] and not any(map(is_failure, lines[member.first : member.end]))
        ]
        for alike in by_shape.values()
        if len(alike) >= limits.rare_members
    ]
    folded_firsts = {member.first for folded in folded_by_shape for member in folded}
    groups: list[Group] = []
    for folded in filter(None, folded_by_shape):
        spans: list[Span] = []
        for member in folded:
            end = member.end
            if end < len(lines) and end not in folded_firsts:
                while end - 1 > member.first and not lines[end - 1].strip():
                    end -= 1
            spans.append((offsets[member.first], offsets[end]))
        first = by_shape[folded[0].shape][0]
        line = "; ".join(_varying_words(lines, first, folded, limits.said_words))
        label = f"×{len(folded):,} more members shaped like {first.name}"
        groups.append(Group(line, spans, spans[0][0], label))
    return groups


def _header_paragraph(lines: Sequence[str], member: _Member) -> list[list[str]]:
    """The words of each line of the member's first paragraph (its header)."""
    paragraph: list[list[str]] = []
    for line in lines[member.first : member.end]:
        if not line.strip():
            break
        paragraph.append(line.split())
    return paragraph


def _varying_words(lines: Sequence[str], first: _Member, folded: list[_Member], said_words: int) -> list[str]:
    """Each folded member said by the words of its header paragraph that are not those of
    the shape's first member at the same place, each word once and at most `said_words`
    of them (`compat.o 1432`; a member that is one paragraph varies on every row)."""
    reference = _header_paragraph(lines, first)
    said: list[str] = []
    for member in folded:
        words: list[str] = []
        paragraph = _header_paragraph(lines, member)
        for number, line_words in enumerate(paragraph):
            other = reference[number] if number < len(reference) else []
            if len(other) != len(line_words):
                words += line_words  # another layout: the whole line is what varies
                continue
            words += [word for word, was in zip(line_words, other, strict=True) if word != was]
        kept = list(dict.fromkeys(word.rstrip(":") for word in words))
        more = " …" if len(kept) > said_words else ""
        said.append(" ".join(kept[:said_words]) + more if kept else member.name)
    return said
