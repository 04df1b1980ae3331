"""What a person reads first in line-structured tool output, recognised by shape.

Any tool's output, not a list of tools: a *failure* line names an error-severity
diagnostic, a failed test, an exception or a crash; a *summary* line counts things with
a count noun (`22 failed`, `added 2 packages`, `Found 3 errors in 2 files`) or states a
verdict (`OK`, `BUILD FAILURE`, `Successfully installed …`, `exit code 2`). The log
optimizer keeps these visible, and the pipeline's SIGNAL stage checks that they are.

Lines are also split into *slots*: the parts that vary between lines of one shape (a
`file:line:col` location, words holding a digit, short quoted names) and the constant
text around them. A folded group shows its slots' values inline, and a line counts as
visible when a group line shows its constant text and its values.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence

# Terminal escape sequences (colours, cursor moves, titles): never part of what is read.
ANSI_RE = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b\r\n]*(?:\x07|\x1b\\)|[@-Z\\-_])")

# Error severities, failed tests and crashes; not warnings, and not counts like "0 errors".
FAILURE_RE = re.compile(
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
SUMMARY_RE = re.compile(
    rf"(?<![:.])\b\d[\d,]*\s+(?:{_COUNT_NOUNS})\b"  # not `12:3  warning`
    r"|\b(?:Tests? run|Tests|Failures|Errors|Skipped|Passed|Failed|Total|Warnings)\s*:\s*\d"
    r"|^\W*(?:OK|PASS(?:ED)?|FAIL(?:ED)?|SUCCESS|FAILURE|BUILD \w+|ALL TESTS PASSED)\b"
    r"|\b[Ss]uccessfully (?:installed|built|compiled|created|uninstalled|tagged)\b"
    r"|\baborting due to\b|\bexit(?:ed)?(?: with)? (?:code|status):? -?\d"
    r"|^\W*(?:[Ff]inished|[Dd]one|[Cc]ompleted)\b.* in \d"
    rf"|^\W*(?:{_COUNT_NOUNS}|pass|fail)\s+\d[\d,]*\s*$"  # a count after its noun: TAP's `# tests 10`
)

# A diagnostic's location at the start of a line (`src/a.c:12:5:`, `src/a.ts(12,5):`),
# when a severity or a rule code follows it on the line. One pattern for text and bytes.
LOCATION_PATTERN = (
    r"^([ \t]*)[^\s:()\[\]]*\.[A-Za-z]\w*(?::\d+(?::\d+)?:(?!\d)|\(\d+,\d+\):|: line \d+, col(?:umn)? \d+,)"
    r"(?=[^\n]*?(?:\b(?:error|warning|note|info|hint|fatal|ERROR|WARNING|Error|Warning)\b"
    r"|\b[A-Z]{1,4}\d{2,5}\b|\[[\w-]+\]))"
)
LOCATION_RE = re.compile(LOCATION_PATTERN)
# Values that differ on every line whatever happened (clock times, long hex ids): a group
# shows its first one, and a line counts as shown without them.
_INCIDENTAL_RE = re.compile(
    r"(?:\d{4}-\d\d-\d\d[T ]?)?\d{1,2}:\d\d:\d\d(?:[.,]\d+)?Z?|\d{4}-\d\d-\d\d|(?=[0-9a-f]*\d)[0-9a-f]*[a-f][0-9a-f]*"
)
# A word holding a digit, chained through `.:/-`: a number, time, id, version or duration.
_VARYING_RE = re.compile(r"\b[A-Za-z_]*\d\w*(?:[.:/\-][A-Za-z_]*\d\w*)*")
# A source location anywhere in a line, one value: `pkg/mod_00.py:38:5`.
_LOCATION_TOKEN_RE = re.compile(r"[\w.\-/\\]*[/.][\w\-]*\.[A-Za-z]\w*:\d+(?::\d+)?\b")
# A short quoted name: `x`, 'os', ‘y’, "foo".
_QUOTED_RE = re.compile(r"(?<=[`'‘\"])[^\s`'‘’\"]{1,40}(?=[`'’\"])")


def is_failure(line: str) -> bool:
    return FAILURE_RE.search(line) is not None


def is_summary(line: str) -> bool:
    return SUMMARY_RE.search(line) is not None


def slots(line: str) -> tuple[list[str], list[str]]:
    """(constant texts, values): `line == c0 + v0 + c1 + … + vN-1 + cN`."""
    constants: list[str] = []
    values: list[str] = []
    start = 0
    location = LOCATION_RE.match(line)
    if location:
        begin = location.end(1)
        constants.append(line[:begin])
        values.append(line[begin : location.end() - 1])
        start = location.end() - 1
    for match in _varying_or_quoted(line, start):
        constants.append(line[start : match.start()])
        values.append(match.group())
        start = match.end()
    constants.append(line[start:])
    return constants, values


def _varying_or_quoted(line: str, start: int) -> list[re.Match[str]]:
    found = [
        *_LOCATION_TOKEN_RE.finditer(line, start),
        *_VARYING_RE.finditer(line, start),
        *_QUOTED_RE.finditer(line, start),
    ]
    found.sort(key=lambda match: (match.start(), -match.end()))
    kept: list[re.Match[str]] = []
    for match in found:
        if not kept or match.start() >= kept[-1].end():
            kept.append(match)
    return kept


_WORD_RE = re.compile(r"\S+")


def summarised(lines: Sequence[str], cap: int) -> str | None:
    """One line standing for any number of `lines` that have as many words: each word all
    of them share as it is, every other word by its values (`word_summary`), so that
    nothing it shows as constant varies. None if their word counts differ. Reads `lines`
    twice, holding a few values of each field: `lines` may be a lazy view of a large log."""
    shown = word_summaries(lines, cap)
    return None if shown is None else with_words(lines[0], shown)


def word_summaries(lines: Sequence[str], cap: int) -> dict[int, str] | None:
    """Each varying word's position in `lines` and its `word_summary`; None if their word
    counts differ."""
    first = lines[0].split()
    varying: set[int] = set()
    for line in lines:
        words = line.split()
        if len(words) != len(first):
            return None
        varying.update(at for at, (word, other) in enumerate(zip(words, first)) if word != other)
    return {at: word_summary((line.split()[at] for line in lines), cap) for at in sorted(varying)}


def with_words(line: str, shown: dict[int, str]) -> str:
    """`line` with its words at the positions of `shown` replaced, its spacing kept."""
    parts: list[str] = []
    start = 0
    for at, word in enumerate(_WORD_RE.finditer(line)):
        if at in shown:
            parts += [line[start : word.start()], shown[at]]
            start = word.end()
    return "".join(parts) + line[start:]


def word_summary(words: Iterable[str], cap: int) -> str:
    """The words one position takes on several lines, as what varies in them: the text
    they share as it is and its varying part by `value_summary` (`[{580 ×2, 581 ×2}]`,
    `duration={1ms … 340ms}`); a word of several varying parts, or of no shared shape, by
    its whole values."""
    whole = _Field(cap)
    constants: list[str] | None = None
    parts: list[_Field] = []
    for word in words:
        whole.add(word)
        if constants is None or parts:
            texts, values = slots(word)
            if constants is None:
                constants, parts = texts, [_Field(cap) for _ in values]
            if texts != constants or len(values) != len(parts):
                parts = []
            for part, value in zip(parts, values):
                part.add(value)
    if constants is None or not parts or sum(part.varies for part in parts) > 1:
        return whole.shown()
    shown = [constants[0]]
    for part, text in zip(parts, constants[1:]):
        shown += [part.shown(), text]
    return "".join(shown)


def value_summary(values: Iterable[str], cap: int) -> str:
    """One field's values on several lines, never one of them as if constant (`_Field`)."""
    field = _Field(cap)
    for value in values:
        field.add(value)
    return field.shown()


class _Field:
    """One field's values on many lines, in bounded memory, shown in braces unless all are
    the same: all of them in line order when few (`{a, b}`; up to `2 * cap` when they are
    more than `cap` different ones), a tally when a few repeat
    (`{200 ×120, 500 ×10}`), the range of numbers (`{3.499 … 12.174}`: the least and the
    greatest), else the first and `…`. Clock times and ids always show their range (the
    second without the date they share): when, not which line was when."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.count = 0
        self.first: list[str] = []  # the first `2 * cap` values, in line order
        self.tally: Counter[str] | None = Counter()  # None once more than `cap` differ
        self.numbers: set[tuple[str, str]] | None = set()  # the letters around the numbers
        self.least: tuple[float, str] | None = None
        self.greatest: tuple[float, str] | None = None
        self.incidental: tuple[str, str] | None = None  # least and greatest, while all are

    def add(self, value: str) -> None:
        self.count += 1
        if len(self.first) < 2 * self.cap:
            self.first.append(value)
        if self.tally is not None:
            self.tally[value] += 1
            if len(self.tally) > self.cap:
                self.tally = None
        number = _NUMBER_RE.fullmatch(value)
        if number is None or self.numbers is None:
            self.numbers = None
        else:
            self.numbers.add((number[1], number[3]))
            key = (float(number[2]), value)
            self.least = key if self.least is None else min(self.least, key)
            self.greatest = key if self.greatest is None else max(self.greatest, key)
        if self.count == 1 and incidental(value):
            self.incidental = (value, value)
        elif self.incidental is not None:
            least, greatest = self.incidental
            self.incidental = (min(least, value), max(greatest, value)) if incidental(value) else None

    @property
    def varies(self) -> bool:
        return self.tally is None or len(self.tally) > 1

    def shown(self) -> str:
        if not self.varies:
            return self.first[0]
        if self.incidental is not None:
            least, greatest = self.incidental
            date = _DATE_RE.match(least)
            return "{" + least + " … " + (greatest[date.end() :] if date and greatest.startswith(date[0]) else greatest) + "}"
        if self.count <= self.cap or (self.tally is None and self.count <= 2 * self.cap):
            return _listed(self.first, 2 * self.cap, 2 * self.cap)
        if self.tally is not None:
            return "{" + ", ".join(f"{value} ×{count}" for value, count in self.tally.items()) + "}"
        if self.numbers is not None and len(self.numbers) == 1 and self.least and self.greatest:
            return "{" + self.least[1] + " … " + self.greatest[1] + "}"
        return "{" + self.first[0] + ", …}"


_DATE_RE = re.compile(r"\d{4}-\d\d-\d\d[T ]")


# A number with the letters around it that name it (`missing37`, `12ms`, `-1697`, `4.418`).
_NUMBER_RE = re.compile(r"([A-Za-z_]*)(-?\d+(?:\.\d+)?)([A-Za-z%]*)")


# A source location as a value: `src/a.c:12:5`, `pkg/m.py:40`, `src/a.ts(12,5)`: the
# file, then its place (`:12:5`, `(12,5)`).
_LOCATION_VALUE_RE = re.compile(r"(.*[./][^:(]*?)(:\d+(?::\d+)?|\(\d+,\d+\)|: line \d+, col(?:umn)? \d+)")


def with_values(lines: list[str], cap: int, location_cap: int | None = None) -> str | None:
    """One line standing for `lines` of one shape: each slot's value where all agree, else
    `{a, b, c}` in line order (at most `cap` of them, then `… +N`; locations up to
    `location_cap`, a file named once for its next lines: `{a.c:3:1, :9:2, b.c:4:4}`).
    None if their constant texts differ."""
    found = varying_slots(lines)
    if found is None:
        return None
    split, _ = found
    constants = split[0][0]
    shown = [constants[0]]
    for position in range(len(split[0][1])):
        values = [values[position] for _, values in split]
        if all(value == values[0] for value in values):
            shown.append(values[0])
        elif incidental(values[0]):
            shown.append(value_summary(values, cap))
        else:
            shown.append(_listed(values, cap, cap if location_cap is None else location_cap))
        shown.append(constants[position + 1])
    joined = "".join(shown)
    return joined if "|" in joined else _PADDING_RE.sub(" ", joined)  # a code frame keeps its columns


def varying_slots(lines: list[str]) -> tuple[list[tuple[list[str], list[str]]], list[int]] | None:
    """Each line's slots, and the positions of the values that differ between them (not
    clock times or ids); None if the lines' constant texts differ. Values that vary within
    one word (`tests/{a, b}.py::{x, y}`) are one value, the whole word: a test id or a
    path is read whole, never as lists to pair up."""
    split = [slots(line) for line in lines]
    folded = [_squeezed(text) for text in split[0][0]]
    if any(len(values) != len(split[0][1]) or list(map(_squeezed, texts)) != folded for texts, values in split):
        return None
    varying = [
        position
        for position in range(len(split[0][1]))
        if any(values[position] != split[0][1][position] for _, values in split) and not incidental(split[0][1][position])
    ]
    for first, last in reversed(_word_runs(split[0][0], varying)):
        split = [_merged(constants, values, first, last) for constants, values in split]
        varying = [p for p in varying if p <= first] + [p - (last - first) for p in varying if p > last]
    return split, varying


def _word_runs(constants: list[str], varying: list[int]) -> list[tuple[int, int]]:
    """Runs of varying positions with no whitespace between them (one word)."""
    runs: list[tuple[int, int]] = []
    for position in varying:
        if runs and not any(_SPACE_RE.search(text) for text in constants[runs[-1][1] + 1 : position + 1]):
            runs[-1] = (runs[-1][0], position)
        else:
            runs.append((position, position))
    return [run for run in runs if run[1] > run[0]]


def _merged(constants: list[str], values: list[str], first: int, last: int) -> tuple[list[str], list[str]]:
    """Values `first..last` and the constants between them as one value, stretched to the
    whole word (its ends are held by the constants around them)."""
    before, after = constants[first], constants[last + 1]
    lead = before.split()[-1] if before and not before[-1].isspace() else ""
    trail = after.split()[0] if after and not after[0].isspace() else ""
    middle = values[first] + "".join(text + value for text, value in zip(constants[first + 1 : last + 1], values[first + 1 : last + 1]))
    merged_constants = [*constants[:first], before[: len(before) - len(lead)], after[len(trail) :], *constants[last + 2 :]]
    return merged_constants, [*values[:first], lead + middle + trail, *values[last + 1 :]]


_SPACE_RE = re.compile(r"\s")


# Column padding between the words of a line: one space says as much in a group line
# (not in a code frame, where columns place the caret).
_PADDING_RE = re.compile(r"(?<=\S) {2,}(?=\S)")


def is_location(value: str) -> bool:
    """Whether a slot's value is a source location (`src/a.c:12:5`, `a.ts(3,5)`)."""
    return _LOCATION_VALUE_RE.fullmatch(value) is not None


def _listed(values: list[str], cap: int, location_cap: int) -> str:
    located = [_LOCATION_VALUE_RE.fullmatch(value) for value in values]
    separator = ", "
    place = ""
    if all(located):
        cap = location_cap
        matches = [match for match in located if match]
        places = {match[2] for match in matches}
        paths = [match[1] for match in matches]
        if len(places) == 1 and len(set(paths)) == len(paths):
            # The same place in every file (`a.js:2:8`, `b.js:2:8`): named once, after
            # the list, with the extension they share: `{a b}.js:2:8`.
            place = places.pop()
            extensions = {path.rpartition(".")[2] for path in paths if "." in path.rpartition("/")[2]}
            if len(extensions) == 1 and all("." in path.rpartition("/")[2] for path in paths):
                place = "." + extensions.pop() + place
            listed = [path.removesuffix(place) for path in _locations(matches[:cap])]
        elif len(set(paths)) == len(paths) == len(values) <= cap and len(values) >= 2 * len(places) <= 8:
            return _by_place(matches)
        else:
            listed = _locations(matches[:cap])
        separator = " "  # locations hold no spaces; `, :12:5` costs a token more than ` :12:5`
    else:
        tally = Counter(values)
        if len(values) > 2 and len(tally) * 2 <= len(values):
            # Values that repeat (the same few names over many lines) as a tally.
            values = [f"{value} ×{count}" for value, count in tally.items()]
        listed = values[:cap]
    more = f"{separator}… +{len(values) - cap}" if len(values) > cap else ""
    return "{" + separator.join(listed) + more + "}" + place


def _by_place(located: list[re.Match[str]]) -> str:
    """Files that share a few places, each place named once after its files, in order of
    first appearance: `{in src/: a b}.ts(3,53) {c d}.ts(3,55)`."""
    shown = _locations(located)
    lead = ""
    if shown[0].startswith("in "):
        lead, _, shown[0] = shown[0].partition(": ")
        lead += ": "
    by_place: dict[str, list[str]] = {}
    for text, match in zip(shown, located, strict=True):
        by_place.setdefault(match[2], []).append(text.removesuffix(match[2]))
    lists = []
    for place, names in by_place.items():
        extensions = {name.rpartition(".")[2] for name in names if "." in name.rpartition("/")[2]}
        suffix = place
        if len(extensions) == 1 and all("." in name.rpartition("/")[2] for name in names):
            suffix = "." + extensions.pop() + place
            names = [name.removesuffix(suffix.removesuffix(place)) for name in names]
        lists.append("{" + " ".join(names) + "}" + suffix)
    return "{" + lead + lists[0][1:] + "".join(" " + each for each in lists[1:]) if lists else ""


def _locations(located: list[re.Match[str]]) -> list[str]:
    """Locations with each file named once for a run of them (`a.c:3:1`, `:9:2`), and the
    folder all of them share named once: `in src/app/: a.c:3:1, …`."""
    paths = {match[1] for match in located}
    folder = os.path.commonprefix(sorted(paths)).rpartition("/")[0] + "/" if len(paths) > 1 else "/"
    if len(folder) * (len(located) - 1) < _SHARED_FOLDER_SAVES or folder == "/":
        folder = ""
    listed: list[str] = []
    previous = None
    for match in located:
        path, place = match.groups()
        listed.append(place if path == previous else path[len(folder) :] + place)
        previous = path
    if folder:
        listed[0] = f"in {folder}: {listed[0]}"
    return listed


# A folder shared by every listed location is named once (`in src/: `, a few characters)
# when that leaves out at least this many characters from the list.
_SHARED_FOLDER_SAVES = 16


def incidental(value: str) -> bool:
    """A clock time, date or long hex id: it says when, or which object, not what happened."""
    return len(value) >= 8 and _INCIDENTAL_RE.fullmatch(value) is not None


def _squeezed(text: str) -> str:
    return " ".join(text.split())


def shown_by(line: str, group_line: str, folder: str = "") -> bool:
    """Whether `group_line` shows `line`: its constant texts and every one of its values
    (locations may leave out `folder`, named once for the whole text)."""
    stripped = line.strip()
    if folder and stripped.startswith(folder) and len(stripped) > len(folder):
        line = stripped[len(folder) :]  # a path in the folder named once, listed without it
    constants, values = slots(line)
    squeezed = _squeezed(group_line)
    if _slots_shown(constants, values, squeezed, group_line, folder):
        return True
    # A group line lists a word holding several values whole (`{tests/a.py::t1, …}`).
    for first, last in reversed(_word_runs(constants, list(range(len(values))))):
        constants, values = _merged(constants, values, first, last)
    return _slots_shown(constants, values, squeezed, group_line, folder)


def _slots_shown(constants: list[str], values: list[str], squeezed: str, group_line: str, folder: str) -> bool:
    return all(_squeezed(text) in squeezed for text in constants) and all(
        _value_shown(value, group_line, folder) for value in values if not incidental(value)
    )


def _value_shown(value: str, group_line: str, shared: str = "") -> bool:
    if value in group_line:
        return True
    located = _LOCATION_VALUE_RE.fullmatch(value)
    if located is None or located[2] not in group_line:
        return False
    path, place = located.groups()
    stem, dot, extension = path.rpartition(".")
    if dot and f"}}.{extension}{place}" in group_line:
        path = stem  # `{a b}.js:2:8`: the extension and place shared, named once after
    folder, _, name = path.rpartition("/")
    if shared and path.startswith(shared) and path[len(shared) :] in group_line:
        return True
    return path in group_line or (f"in {folder}/: " in group_line and name in group_line)


# How a log's header names the folder all its location lists share (`; locations in src/`).
FOLDER_NAMED = "locations in"
_FOLDER_NAMED_RE = re.compile(rf"^\[log: [^\n]*?; {FOLDER_NAMED} (\S+/)[:\]]", re.MULTILINE)


def not_shown(expected: tuple[str, ...], visible: str) -> tuple[str, ...]:
    """The expected strings that the visible text neither contains nor shows by its values
    in a folded group's line."""
    missing = [text for text in expected if text not in visible]
    if not missing:
        return ()
    named = _FOLDER_NAMED_RE.search(visible)
    folder = named[1] if named else ""
    group_lines = [line for line in visible.splitlines() if "{" in line]
    return tuple(text for text in missing if not any(shown_by(text, line, folder) for line in group_lines))


# Phrases that say something went wrong without a severity word: a linker's `undefined
# reference`, `cannot open`, `No such file or directory`, `not found`, `Permission denied`.
PROBLEM_RE = re.compile(
    r"\b(?:undefined (?:reference|symbol)|unresolved (?:external|symbol|import)|cannot|can't|could not"
    r"|couldn't|unable to|not found|no such file|permission denied|connection refused|timed out)\b",
    re.IGNORECASE,
)


# A quantity: a number with a unit of time or size, a share, or a count of things. Units
# of one kind share a scale (`1.5 s` is 1500 ms), so that lines mixing them compare.
_QUANTITY_RE = re.compile(
    r"(?<![\w.:/-])(\d+(?:\.\d+)?) ?(ns|us|µs|ms|s|secs?|seconds?|mins?|minutes?|[kKMGT]i?B|B|bytes|%"
    r"|rows|buffers|pages|blocks|records|tuples|items|objects|requests|messages|retries|attempts)(?![\w%])"
)
_SECOND = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "ms": 1e-3,
    "min": 60.0,
    "mins": 60.0,
    "minute": 60.0,
    "minutes": 60.0,
}
_BYTE = {"B": 1.0, "bytes": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def quantities(line: str) -> dict[str, float]:
    """The largest quantity of each kind in `line` (`time`, `size`, `%` or the counted
    noun), on that kind's scale."""
    found: dict[str, float] = {}
    for match in _QUANTITY_RE.finditer(line):
        number, unit = float(match[1]), match[2]
        if unit in _SECOND or unit[0] == "s":
            kind, number = "time", number * _SECOND.get(unit, 1.0)
        elif unit.endswith("B") or unit == "bytes":
            kind, number = "size", number * _BYTE.get(unit if unit in _BYTE else unit[0], 1.0)
        else:
            kind = unit
        found[kind] = max(number, found.get(kind, number))
    return found


def outliers(lines: Sequence[str], factor: float = 10.0, lead: float = 2.0) -> list[int]:
    """Positions of the lines holding a quantity far beyond the others of its kind in
    `lines`: at least `factor` times their median, or their maximum when it is at least
    `lead` times the next largest. The slowest query, the biggest allocation."""
    by_kind: dict[str, list[tuple[float, int]]] = {}
    for position, line in enumerate(lines):
        for kind, number in quantities(line).items():
            by_kind.setdefault(kind, []).append((number, position))
    found: set[int] = set()
    for measured in by_kind.values():
        if len(measured) < 2:
            continue  # nothing to compare with
        measured.sort()
        median = measured[(len(measured) - 1) // 2][0]
        found.update(position for number, position in measured if median > 0 and number >= factor * median)
        top, runner_up = measured[-1][0], measured[-2][0]
        if top > 0 and top >= lead * runner_up:
            found.add(measured[-1][1])
    return sorted(found)


def is_problem(line: str) -> bool:
    """A failure line, or one naming a problem in words (`undefined reference`, `cannot`)."""
    return is_failure(line) or PROBLEM_RE.search(line) is not None
