"""What a person reads first in line-structured tool output, recognised by shape.

Any tool's output, not a list of tools: a *failure* line names an error-severity
diagnostic, a failed test, an exception or a crash; a *summary* line counts things with
a count noun (`22 failed`, `added 2 packages`, `Found 3 errors in 2 files`) or states a
verdict (`OK`, `BUILD FAILURE`, `Successfully installed …`, `exit code 2`). The log
optimizer keeps these visible, and the pipeline's SIGNAL stage checks that they are.

Lines are also split into *slots*: the parts that vary between lines of one shape (a
`file:line:col` location, words holding a digit, short quoted names) and the constant
text around them. How a folded group's line shows those values is `line_values`' concern;
reading such a line back (whether a visible text shows a line) is `line_shown`'s.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from tokenlab.patterns import compile_on_use

# Terminal escape sequences (colours, cursor moves, titles): never part of what is read.
ANSI_RE = compile_on_use(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b\r\n]*(?:\x07|\x1b\\)|[@-Z\\-_])")

# Error severities, failed tests and crashes; not warnings, and not counts like "0 errors".
FAILURE_RE = compile_on_use(
    r"\b(?:ERROR|ERR!|FATAL|CRITICAL|PANIC|EMERG|FAIL|FAILED|FAILURE)\b"
    r"|\b(?:[Ee]rror|[Ff]atal(?: error)?|panic)(?:\[[\w-]+\])?(?::| - )"  # `error:`, eslint compact's `Error - `
    r"|\berror\s+[A-Z]+\d+\b"  # `error TS2322`, `error CS0103`
    r"|^\s*\d+:\d+\s+error\b"  # `12:5  error  message  rule`
    r"|\b[A-Z]\w*(?:Error|Exception)\b(?::|$)"
    r"|Traceback \(most recent call last\)|\bpanicked at\b|\bSegmentation fault\b"
    r"|^\s*not ok\b|[✕✗✖]"
)

_COUNT_NOUNS = (
    r"tests?|errors?|warnings?|failures?|failed|passed|passing|failing|skipped|pending|todo"
    r"|xfailed|xpassed|deselected|broken|packages?|files?|modules?|problems?|issues?|violations?"
    r"|suites?|assertions?|examples?|specs?|checks?|crates?|targets?|dependencies|vulnerabilit(?:y|ies)"
    r"|insertions?|deletions?|succeeded|snapshots?|fixable|notes?|cases?|commits?"
)
# A count is looked for once per run of digits and commas, from where the run starts: a
# number begins at the run's start or after a comma (not `12:3  warning`), and all of a
# run's numbers end where it does. Tried at each comma, a long run was read again from each.
SUMMARY_RE = compile_on_use(
    rf"(?<![\d,])(?>(?<![\w:.])\d|[\d,]*?,\d)[\d,]*+\s+(?:{_COUNT_NOUNS})\b"
    r"|\b(?:Tests? run|Tests|Failures|Errors|Skipped|Passed|Failed|Total|Warnings)\s*:\s*\d"
    r"|^\W*(?:OK|PASS(?:ED)?|FAIL(?:ED)?|SUCCESS|FAILURE|BUILD \w+|ALL TESTS PASSED)\b"
    r"|\b[Ss]uccessfully (?:installed|built|compiled|created|uninstalled|tagged)\b"
    r"|\baborting due to\b|\bexit(?:ed)?(?: with)? (?:code|status):? -?\d"
    r"|^\W*(?:[Ff]inished|[Dd]one|[Cc]ompleted)\b.* in \d"
    rf"|^[\Wℹ]*(?:{_COUNT_NOUNS}|pass|fail)\s+\d[\d,]*\s*$"  # a count after its noun: TAP's `# tests 10`, node's `ℹ fail 2`
)

# A diagnostic's location at the start of a line (`src/a.c:12:5:`, `src/a.ts(12,5):`),
# when a severity or a rule code follows it on the line. One pattern for text and bytes.
_LOCATION_PLACE = r"^([ \t]*)[^\s:()\[\]]*\.[A-Za-z]\w*(?::\d+(?::\d+)?:(?!\d)|\(\d+,\d+\):|: line \d+, col(?:umn)? \d+,)"
_LOCATION_FOLLOWED_BY = (
    r"[^\n]*?(?:\b(?:error|warning|note|info|hint|fatal|ERROR|WARNING|Error|Warning)\b"
    r"|\b[A-Z]{1,4}\d{2,5}\b|\[[\w-]+\])"
)
LOCATION_PATTERN = f"{_LOCATION_PLACE}(?={_LOCATION_FOLLOWED_BY})"
LOCATION_RE = compile_on_use(LOCATION_PATTERN)
# Its two halves, for lines of one shape that repeat what follows their locations.
_LOCATION_PLACE_RE = compile_on_use(_LOCATION_PLACE)
_LOCATION_FOLLOWED_BY_RE = compile_on_use(_LOCATION_FOLLOWED_BY)
# Values that differ on every line whatever happened (clock times, long hex ids): a group
# shows its first one, and a line counts as shown without them.
_INCIDENTAL_RE = compile_on_use(
    r"(?:\d{4}-\d\d-\d\d[T ]?)?\d{1,2}:\d\d:\d\d(?:[.,]\d+)?Z?|\d{4}-\d\d-\d\d|(?=[0-9a-f]*\d)[0-9]*+[a-f][0-9a-f]*+"
)  # a hex id's first letter is the one after its leading digits: no choice to retry
# A word holding a digit, chained through `.:/-`: a number, time, id, version or duration.
VARYING_PATTERN = r"\b[A-Za-z_]*\d\w*(?:[.:/\-][A-Za-z_]*\d\w*)*"
_VARYING_RE = compile_on_use(VARYING_PATTERN)
# A source location anywhere in a line, one value: `pkg/mod_00.py:38:5`. A location fills
# a run of path bytes up to its colon, so it starts where the run starts, or where the
# last one ended inside a run (`a/b.py:12.c/d.py:3`, after up to 20 digits: any 64-bit
# number); tried at every byte, a long run without one was read again from each.
_AFTER_A_PLACE = "|".join(rf"(?<=:\d{{{digits}}})" for digits in range(1, 21))
_LOCATION_TOKEN_RE = compile_on_use(
    rf"(?:(?<![\w.\-/\\])|(?=[.\-/\\])(?:{_AFTER_A_PLACE}))"
    r"[\w.\-/\\]*[/.][\w\-]*\.[A-Za-z]\w*:\d+(?::\d+)?\b"
)
# A short quoted name: `x`, 'os', ‘y’, "foo".
_QUOTED_RE = compile_on_use(r"(?<=[`'‘\"])[^\s`'‘’\"]{1,40}(?=[`'’\"])")
# A line the tool cut to its width, `...` in place of the rest (a test runner's short
# summary: `… - AssertionError: gros...`, `… assert 961 ==...`): the cut word, with the
# marks before it, is one value, so that lines cut at different places are one shape. A
# shorter line ending in `...` is a message of its own (`Downloading x...`), not a cut.
CUT_WIDTH = 60
_CUT_WORD_PATTERN = r"(?<=\s)[^\w\s]*\s?\w*(?:\.\.\.|…)"  # marks and a word before the dots
CUT_TAIL_PATTERN = _CUT_WORD_PATTERN + r"\s*$"
_CUT_TAIL_RE = compile_on_use(CUT_TAIL_PATTERN)
# A cut tail inside a group line (`assert {961, 1117} ==...}`).
_CUT_SHOWN_RE = compile_on_use(_CUT_WORD_PATTERN)
_CUT_ENDS = ("...", "…")


def is_failure(line: str) -> bool:
    return FAILURE_RE.search(line) is not None


def is_summary(line: str) -> bool:
    return SUMMARY_RE.search(line) is not None


def slots(line: str, known: SlotsSeen | None = None) -> tuple[list[str], list[str]]:
    """(constant texts, values): `line == c0 + v0 + c1 + … + vN-1 + cN`. `known` keeps the
    values found in what follows a line's location, for lines of one shape that repeat it
    (`: warning: unused variable 'v3' …` after each file's location)."""
    start = 0
    location = LOCATION_RE.match(line) if known is None else _location(line, known)
    if location:
        start = location.end() - 1
    # What is found from `start` on depends on that text alone: the location ends with a
    # digit then the `:` at `start`, which no value's look-behind reads past.
    rest = line[start:]
    split = known.rests.get(rest) if known is not None else None
    if split is None:
        split = _rest_slots(line, start, rest)
        if known is not None:
            known.rests[rest] = split
    constants, values = split
    if location:
        begin = location.end(1)
        return [line[:begin], *constants], [line[begin:start], *values]
    return list(constants), list(values)


def _rest_slots(line: str, start: int, rest: str) -> tuple[list[str], list[str]]:
    """`slots` of `rest`, the text of `line` from `start` on, after its location."""
    constants: list[str] = []
    values: list[str] = []
    at = 0
    for match in _varying_or_quoted(line, start):
        constants.append(rest[at : match.start() - start])
        values.append(match[0])
        at = match.end() - start
    constants.append(rest[at:])
    return constants, values


def plain_words(joined: str) -> bool:
    """Whether words joined by line breaks hold no location and no quoted name: their
    `slots` values are then `_VARYING_RE`'s matches alone."""
    return _QUOTED_OR_LOCATED_RE.search(joined) is None


def shape_pattern(constants: list[str]) -> re.Pattern[str]:
    """A pattern matching, at a line's start, a plain word whose `slots` have `constants`,
    its values as groups. Each value is `_VARYING_RE`'s match where its constant text ends
    (atomic: taken as the scan takes it); no value can start inside a constant text, as
    none did in the word the texts come from, and such a value's first digit would be in
    the text. So a plain word matches exactly when its slots have these texts."""
    value = f"(?>({VARYING_PATTERN}))"
    return re.compile("^" + value.join(map(re.escape, constants)) + r"(?:\n|\Z)", re.MULTILINE)


def values_of_shape(joined: str, count: int, shape: re.Pattern[str]) -> list[Sequence[str]] | None:
    """Each value's list across the `count` plain words of `joined` (`plain_words`), when
    every one matches `shape` (`shape_pattern`); None when one does not. One scan: each
    match ends at the next word's start, where the next one begins."""
    found = shape.findall(joined)
    if len(found) != count:
        return None
    if shape.groups == 1:
        return [found]
    return [list(values) for values in zip(*found)]


# What joins a value to the rest of its word (`EUR-10`, `orders-shard-01`, `v2.1`): a
# word is read whole, so that a name varying in its letters too is one value.
_WORD_BYTES = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-/+")


def word_slots(line: str, known: SlotsSeen | None = None) -> tuple[list[str], list[str]]:
    """`slots(line)` with each value stretched to its whole word, and values left in one
    word merged: `[EUR-10]` holds the value `EUR-10`, not `10` after a constant `EUR-`."""
    constants, values = slots(line, known)
    merged_constants, merged_values = [constants[0]], []
    for value, after in zip(values, constants[1:], strict=True):
        before = merged_constants[-1]
        lead = len(before)
        while lead > 0 and before[lead - 1] in _WORD_BYTES:
            lead -= 1
        if merged_values and lead == 0:  # no constant between this value and the last
            merged_constants.pop()
            merged_values[-1] += before + value
        else:
            merged_constants[-1] = before[:lead]
            merged_values.append(before[lead:] + value)
        trail = 0
        while trail < len(after) and after[trail] in _WORD_BYTES:
            trail += 1
        merged_values[-1] += after[:trail]
        merged_constants.append(after[trail:])
    return merged_constants, merged_values


_QUOTE_CHAR_RE = compile_on_use("[`'\"\u2018\u2019]")
# What a word needs to hold a location (`LOCATION_RE`, `_LOCATION_TOKEN_RE`): `a.c:3`, `a.ts(3`.
_LOCATED_WORD_RE = compile_on_use(r"\.[A-Za-z]\w*+(?::\d|\(\d)")
_QUOTED_OR_LOCATED_RE = compile_on_use(f"{_QUOTE_CHAR_RE.pattern}|{_LOCATED_WORD_RE.pattern}")


def _location(line: str, known: SlotsSeen) -> re.Match[str] | None:
    """`LOCATION_RE.match(line)`, its look-ahead read once for each text that follows a
    location. The first place the pattern finds is its match when what follows passes
    (whose first word boundary sees the place's last character, `:` or `,`, as it would
    see a text's start); else the whole pattern decides, as it may try other places."""
    place = _LOCATION_PLACE_RE.match(line)
    if place is None:
        return None
    after = line[place.end() :]
    passes = known.followed.get(after)
    if passes is None:
        passes = known.followed[after] = _LOCATION_FOLLOWED_BY_RE.match(line, place.end()) is not None
    return place if passes else LOCATION_RE.match(line)


@dataclass
class SlotsSeen:
    """What `slots` found in the texts that follow a location, for lines of one shape that
    repeat them (`: warning: unused variable 'v3' …` after each file's place): the constant
    texts and values of each (read, never changed: each line's lists are its own), and
    whether each is what a location needs after it."""

    rests: dict[str, tuple[list[str], list[str]]] = field(default_factory=dict)
    followed: dict[str, bool] = field(default_factory=dict)


def cut_tail(line: str) -> re.Match[str] | None:
    """Where a line cut to its width by its tool ends (`gros...`), if it is one."""
    if len(line) < CUT_WIDTH or not line.rstrip().endswith(_CUT_ENDS):
        return None
    return _CUT_TAIL_RE.search(line, len(line) - CUT_WIDTH)


def _cut_stem(value: str) -> str:
    """A cut tail's text, without its dots and spaces: what the tool printed of the word."""
    return "".join(value.split()).rstrip(".…")


def cut_shown(values: Sequence[str]) -> str | None:
    """Cut tails of lines of one shape as one: the one that shows the most, when every
    other is a shorter cut of it (`gros...`, `gro...`: one text cut at several widths)."""
    if not all(value.rstrip().endswith(_CUT_ENDS) for value in values):
        return None
    longest = max(values, key=lambda value: len(_cut_stem(value)))
    stem = _cut_stem(longest)
    return longest if all(stem.startswith(_cut_stem(value)) for value in values) else None


def cut_in(value: str, group_line: str) -> bool:
    """Whether a group line shows a cut tail `value` by a longer cut of the same text."""
    if not value.rstrip().endswith(_CUT_ENDS):
        return False
    stem = _cut_stem(value)
    return any(_cut_stem(shown[0]).startswith(stem) for shown in _CUT_SHOWN_RE.finditer(group_line))


def _varying_or_quoted(line: str, start: int) -> list[re.Match[str]]:
    """The values in `line` from `start` on: varying words, source locations and quoted
    names, the longest where they overlap, and a cut tail (`cut_tail`) last. The second
    and third are looked for only where a line holds what they need (a quote, a `.ext:N`):
    most lines hold varying words alone."""
    cut = cut_tail(line)
    if cut is not None and cut.start() >= start:
        return [*(match for match in _varying_or_quoted(line[: cut.start()], start)), cut]
    found = list(_VARYING_RE.finditer(line, start))
    located = _LOCATED_WORD_RE.search(line, start) is not None
    quoted = _QUOTE_CHAR_RE.search(line, start) is not None
    if not (located or quoted):
        return found
    if located:
        found[:0] = _LOCATION_TOKEN_RE.finditer(line, start)
    if quoted:
        found += _QUOTED_RE.finditer(line, start)
    found.sort(key=lambda match: (match.start(), -match.end()))
    kept: list[re.Match[str]] = []
    for match in found:
        if not kept or match.start() >= kept[-1].end():
            kept.append(match)
    return kept


# A source location as a value: `src/a.c:12:5`, `pkg/m.py:40`, `src/a.ts(12,5)`: the
# file, then its place (`:12:5`, `(12,5)`). The place starts at one of the last `:` or `(`,
# the latest one that works; the file is everything before it, with a `.` or `/` after its
# own last `:` or `(`. Each part is read once per `:` or `(`, never again from each byte.
_FILE_UP_TO_ITS_DOT = r"(?:[^\n]*[:(])?(?>[^:(\n]*[./])"
_PLACE = r"(:\d+(?::\d+)?|\(\d+,\d+\)|: line \d+, col(?:umn)? \d+)"
LOCATION_VALUE_RE = compile_on_use(f"({_FILE_UP_TO_ITS_DOT}[^:(]*+){_PLACE}")
# The same, a line at a time in values joined by line breaks: it reads no line break, so
# a value without one matches on its line, with the same groups, exactly when it does.
_LOCATION_VALUE_LINE_RE = compile_on_use(rf"^({_FILE_UP_TO_ITS_DOT}[^:(\n]*+){_PLACE}$", re.MULTILINE)
# Its common case, read in half the time: a file holding no `:` or `(`, then `:12` or
# `:12:5`. Where this matches a line, so does the whole pattern, with the same groups: a
# file read after a `:` of the place would need a `.` or `/` among its digits.
_PLAIN_LOCATION_LINE_RE = compile_on_use(r"^([^:(\n]*[./][^:(\n]*)(:\d+(?::\d+)?)$", re.MULTILINE)


# Each line's (constant texts, values), and the positions of the values that vary.
VaryingSlots = tuple[list[tuple[list[str], list[str]]], list[int]]


def varying_slots(lines: list[str]) -> VaryingSlots | None:
    """Each line's slots, and the positions of the values that differ between them (not
    clock times or ids); None if the lines' constant texts differ. Values that vary within
    one word (`tests/{a, b}.py::{x, y}`) are one value, the whole word: a test id or a
    path is read whole, never as lists to pair up."""
    known = SlotsSeen()
    split = [slots(line, known) for line in lines]
    if not _one_shape(split):
        # Ids that differ in their letters too (`[EUR-10]`, `[GBP-25]`) are one value each.
        split = [word_slots(line, known) for line in lines]
        if not _one_shape(split):
            return None
    varying = [
        position
        for position in range(len(split[0][1]))
        if any(values[position] != split[0][1][position] for _, values in split) and not incidental(split[0][1][position])
    ]
    for first, last in reversed(word_runs(split[0][0], varying)):
        split = [merged_run(constants, values, first, last) for constants, values in split]
        varying = [p for p in varying if p <= first] + [p - (last - first) for p in varying if p > last]
    return split, varying


def _one_shape(split: list[tuple[list[str], list[str]]]) -> bool:
    """Whether the lines' constant texts are the same, spacing aside."""
    first_texts = split[0][0]
    folded = [spaces_squeezed(text) for text in first_texts]
    return not any(
        len(values) != len(split[0][1]) or (texts != first_texts and list(map(spaces_squeezed, texts)) != folded)
        for texts, values in split
    )


def word_runs(constants: list[str], varying: list[int]) -> list[tuple[int, int]]:
    """Runs of varying positions with no whitespace between them (one word)."""
    runs: list[tuple[int, int]] = []
    for position in varying:
        if runs and not any(_SPACE_RE.search(text) for text in constants[runs[-1][1] + 1 : position + 1]):
            runs[-1] = (runs[-1][0], position)
        else:
            runs.append((position, position))
    return [run for run in runs if run[1] > run[0]]


def merged_run(constants: list[str], values: list[str], first: int, last: int) -> tuple[list[str], list[str]]:
    """Values `first..last` and the constants between them as one value, stretched to the
    whole word (its ends are held by the constants around them)."""
    before, after = constants[first], constants[last + 1]
    lead = before.split()[-1] if before and not before[-1].isspace() else ""
    trail = after.split()[0] if after and not after[0].isspace() else ""
    middle = values[first] + "".join(text + value for text, value in zip(constants[first + 1 : last + 1], values[first + 1 : last + 1]))
    merged_constants = [*constants[:first], before[: len(before) - len(lead)], after[len(trail) :], *constants[last + 2 :]]
    return merged_constants, [*values[:first], lead + middle + trail, *values[last + 1 :]]


_SPACE_RE = compile_on_use(r"\s")


def is_location(value: str) -> bool:
    """Whether a slot's value is a source location (`src/a.c:12:5`, `a.ts(3,5)`)."""
    return LOCATION_VALUE_RE.fullmatch(value) is not None


def location_parts(values: Sequence[str]) -> list[tuple[str, str]] | None:
    """Each value's file and place (`LOCATION_VALUE_RE`'s groups), when every one of
    `values` is a location (`is_location`); else None. One scan of them all: a large
    group's values are many."""
    joined = "\n".join(values)
    if joined.count("\n") != len(values) - 1:  # a value holds a line break
        located = [LOCATION_VALUE_RE.fullmatch(value) for value in values]
        return [(match[1], match[2]) for match in located if match] if all(located) else None
    found: list[tuple[str, str]] = _PLAIN_LOCATION_LINE_RE.findall(joined)
    if len(found) != len(values):
        found = _LOCATION_VALUE_LINE_RE.findall(joined)
    return found if len(found) == len(values) else None


def incidental(value: str) -> bool:
    """A clock time, date or long hex id: it says when, or which object, not what happened."""
    return len(value) >= 8 and _INCIDENTAL_RE.fullmatch(value) is not None


def all_incidental(values: Collection[str]) -> bool:
    """Whether each of `values` (none holding a line break) is `incidental`: one scan of
    them all, as a large group's values are many."""
    return not values or _INCIDENTAL_LINES_RE.fullmatch("\n".join(values)) is not None


# Each value's match is atomic: once a value is matched, a later one that is not never
# sends the scan back to match the earlier ones another way.
_INCIDENTAL_LINES_RE = compile_on_use(f"(?>(?=[^\\n]{{8}})(?:{_INCIDENTAL_RE.pattern})(?:\\n|\\Z))++")


def spaces_squeezed(text: str) -> str:
    """A text with each run of whitespace as one space: lines that differ in spacing alone read alike."""
    return " ".join(text.split())


# Phrases that say something went wrong without a severity word: a linker's `undefined
# reference`, `cannot open`, `No such file or directory`, `not found`, `Permission denied`.
PROBLEM_RE = compile_on_use(
    r"\b(?:undefined (?:reference|symbol)|unresolved (?:external|symbol|import)|cannot|can't|could not"
    r"|couldn't|unable to|not found|no such file|permission denied|connection refused|timed out)\b",
    re.IGNORECASE,
)


def is_problem(line: str) -> bool:
    """A failure line, or one naming a problem in words (`undefined reference`, `cannot`)."""
    return is_failure(line) or PROBLEM_RE.search(line) is not None
