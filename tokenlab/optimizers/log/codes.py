"""A census of the rule codes in a linter's diagnostics: `[codes: F401 ×65, E501 ×12]`.

Linters and compilers print one line per problem, `path:12:5: CODE message` (flake8,
pycodestyle, pylint's parseable and colorized formats, hadolint's `path:3 DL3008 …`) or
with the code at the end, `path:3:6: note: message [SC2086]` (shellcheck -f gcc, gcc's
`[-Wunused-variable]`, mypy's `[arg-type]`). A reader's first questions are which codes
occur and how often; the log's groups cannot say, because one code's lines land in several
groups (a message that names an exception is kept as a failure line, another folds with a
context line) and a group's count is not the code's. So the census counts every
diagnostic line by its code and is shown under the log's header, most frequent first,
when some of those lines are folded (when every one is shown, they count themselves).

The code is read from the first line of each template that has a location: the lines of a
template differ only in numbers, paths and quoted names, so a code without digits
(`[-Wunused-variable]`) is the same on all of them, one match per template. A code with
digits (`F401`) became `#` in the template like any number, so only those templates'
lines are read one by one: the lines of a coded linter's output, never a compiler's
flag-coded warnings or a log without codes.
"""

from __future__ import annotations

from array import array
from collections import Counter
from dataclasses import dataclass, field

from tokenlab.optimizers.log.model import FOLD, Lines, Templates
from tokenlab.patterns import compile_on_use

# A diagnostic's location, then its code: right after it or after a severity (`F401`,
# `R1705:`, pylint's parseable `[R1705(no-else-return), f]`, hadolint's `DL3008`, tsc's
# `error TS2322:`), or at the line's end in brackets (`[SC2086]`, `[-Wunused-variable]`,
# `[arg-type]`). The location is a path, a line number and maybe a column (`a.py:3:5:`,
# `Dockerfile:3`, `a.ts(3,5):`), each part unable to take the next one's characters; the
# line's last bracket is found by one scan back from its end (a message may hold
# brackets of its own: `"list[str]"`).
_CODED_RE = compile_on_use(
    rb"[ \t]*(?:[^\s:(]+:\d+(?::\d+)?:?|[^\s:(]+\(\d+,\d+\):)[ \t]+"
    rb"(?:(?:(?:fatal[ \t]+)?(?:error|warning|note|info|hint)[ \t]+)?\[?([A-Z]{1,4}\d{2,5})\b"
    rb"|[^\r\n]*\[(-?[A-Za-z][\w-]*)\][ \t]*$)"
)
# A template's location: its numbers made `#`, or the whole location made `@:` when a
# severity or code follows it (the log optimizer's merge of located templates).
_LOCATED = (b":#", b"@:")
MIN_CODED_LINES = 5  # fewer diagnostics, or each code once, are counted at a glance
MAX_CODES_SHOWN = 24


def code_of(line: bytes) -> str | None:
    found = _CODED_RE.match(line)
    if found is None:
        return None
    return (found[1] or found[2]).decode("ascii")


@dataclass
class Codes:
    """How many diagnostic lines carry each code, and which lines those are."""

    counts: Counter[str] = field(default_factory=Counter)
    members: list[array[int]] = field(default_factory=list)  # the coded templates' lines
    lines_of: dict[str, array[int]] = field(default_factory=dict)  # each code's lines

    def examples(self, role: bytearray) -> set[int]:
        """The first line of each code whose lines are all still undecided (neither kept
        nor grouped, so a long run of distinct lines may fold them all): the census counts
        every code, so each code counted shows one example (a group line names its code
        and lists its locations)."""
        return {lines[0] for lines in self.lines_of.values() if not any(role[index] for index in lines)}

    def census(self, role: bytearray) -> str:
        """The census line, when some coded line is folded (else each is there to count)."""
        if not any(role[index] == FOLD for lines in self.members for index in lines):
            return ""
        return census(self.counts)


def code_counts(lines: Lines, templates: Templates) -> Codes:
    codes = Codes()
    for key, members in zip(templates.keys, templates.members):
        if _LOCATED[0] not in key and _LOCATED[1] not in key:
            continue
        first = code_of(lines.clean(members[0]))
        if first is None:
            continue
        codes.members.append(members)
        if any(character.isdigit() for character in first):
            for index in members:
                code = code_of(lines.clean(index))
                if code:
                    codes.counts[code] += 1
                    codes.lines_of.setdefault(code, array(members.typecode)).append(index)
        else:
            codes.counts[first] += len(members)
            codes.lines_of.setdefault(first, array(members.typecode)).extend(members)
    return codes


def census(counts: Counter[str]) -> str:
    """`[codes: F401 ×65, E501 ×12, … +3 more codes (5 lines: W… ×4, C… ×1)]`, or "" for few diagnostics."""
    if sum(counts.values()) < MIN_CODED_LINES or max(counts.values()) < 2:
        return ""
    ranked = counts.most_common()
    shown = ", ".join(f"{code} ×{count:,}" for code, count in ranked[:MAX_CODES_SHOWN])
    rest = ranked[MAX_CODES_SHOWN:]
    if rest:
        shown += f", … +{len(rest):,} more codes ({sum(count for _, count in rest):,} lines{_families(rest)})"
    return f"[codes: {shown}]\n"


# The letters a numbered code starts with: its linter's family of rules (`E` errors, `W`
# warnings, `SC`, `DL`), which a reader asks of the codes not named.
_FAMILY_RE = compile_on_use(r"([A-Za-z]+)\d")


def _families(rest: list[tuple[str, int]]) -> str:
    """`: R… ×10, W… ×7`: the lines of the codes not named, by the letters each code starts
    with, so that a reader can tell which families (an error's) none of them is in. Empty
    when a code has no number (`[-Wunused-variable]`): its letters are its whole name."""
    tally: Counter[str] = Counter()
    for code, count in rest:
        family = _FAMILY_RE.match(code)
        if family is None:
            return ""
        tally[family[1]] += count
    return ": " + ", ".join(f"{letters}… ×{count:,}" for letters, count in tally.most_common())
