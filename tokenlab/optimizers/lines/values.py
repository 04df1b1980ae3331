"""How a folded group's line shows the values its lines differ in.

`line_shapes` splits a line into constant text and values (slots); this module owns what a
group line makes of those values: `with_values` lists each slot's values inline (locations
with a file or folder named once, repeats as a tally), `summarised` and `word_summary`
stand for any number of lines word by word in bounded memory (`_Field`: a list, a tally,
a range of numbers or times, never one value shown as if constant). Which lines of a
run stand out by a quantity is `line_quantities`' concern. It depends on `line_shapes`,
never the reverse: `line_shown.not_shown` reads these group lines back by their text alone.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain, islice
from typing import Any

from tokenlab.optimizers.lines import columns
from tokenlab.optimizers.lines.shapes import (
    VaryingSlots,
    all_incidental,
    cut_shown,
    incidental,
    is_location,
    location_parts,
    plain_words,
    shape_pattern,
    slots,
    values_of_shape,
    varying_slots,
)
from tokenlab.patterns import compile_on_use

_WORD_RE = compile_on_use(r"\S+")
_HEX_ID_RE = compile_on_use(r"[0-9a-f]+")
# A word shown as one example of many values (`src/{codec_00, …}.c`) or as varying ids (`{…}`).
_ONE_EXAMPLE_RE = compile_on_use(r"[^{}]*\{(?:[^{}]*, …|…)\}[^{}]*")


def summarised(lines: Sequence[str], cap: int) -> str | None:
    """One line standing for any number of `lines` that have as many words: each word all
    of them share as it is, every other word by its values (`word_summary`), so that
    nothing it shows as constant varies. None if their word counts differ. Reads `lines`
    once, holding a few values of each field: `lines` may be a lazy view of a large log.
    None too when each varying word would show only one example and `…`."""
    shown = word_summaries(lines, cap)
    if shown is None or (shown and all(_ONE_EXAMPLE_RE.fullmatch(word) for word in shown.values())):
        # Every varying word would show one example of many: the first line, labelled as an
        # example (`[×60 like] …`), says the same more briefly.
        return None
    return with_words(lines[0], shown)


def word_summaries(lines: Iterable[str], cap: int) -> dict[int, str] | None:
    """Each varying word's position in `lines` and its `word_summary`; None if their word
    counts differ. One pass, a batch of lines at a time: a batch's words are split once and
    read column by column, and a column of words all equal to the first line's costs a
    count."""
    batches = _batches(lines)
    first_batch = next(batches, [])
    if not first_batch:
        return {}
    first = first_batch[0].split()
    columns: dict[int, _Column] = {}
    seen = 0
    for batch in chain([first_batch], batches):
        rows = list(map(str.split, batch))
        if set(map(len, rows)) != {len(first)}:
            return None
        for at, words in enumerate(zip(*rows)):
            column = columns.get(at)
            if column is None:
                if words.count(first[at]) == len(words):
                    continue
                column = columns[at] = _Column(cap)
                for done in range(0, seen, _BATCH):  # the lines before, all with the first's word
                    column.add([first[at]] * min(_BATCH, seen - done))
            column.add(words)
        seen += len(rows)
    return {at: columns[at].shown() for at in sorted(columns)}


def _batches(lines: Iterable[str]) -> Iterator[list[str]]:
    """`lines` a batch at a time: a large group's texts are made as they are read."""
    found = iter(lines)
    while batch := list(islice(found, _BATCH)):
        yield batch


# Lines read at once: enough that per-batch overhead vanishes, few enough to hold.
_BATCH = 1024


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
    column = _Column(cap)
    for batch in _batches(words):
        column.add(batch)
    return column.shown()


class _Column:
    """One word position over many lines: the whole words as one `_Field`, and while every
    word has the same constant text around its values (`line_shapes.slots`), each value's
    `_Field` too. Words are split into slots once per distinct word of a batch."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.whole = _Field(cap)
        self.constants: list[str] | None = None
        self.parts: list[_Field] = []
        self.shape: re.Pattern[str] | None = None  # `shape_pattern` of the constants

    def add(self, words: Sequence[str]) -> None:
        if not words:
            return
        if self.whole.settled and self.constants is not None and not self.parts:
            self.whole.count += len(words)  # nothing else these words could change is shown
            return
        # How often each word occurs matters only to a field that still tallies its values.
        tallied = self.whole.tally is not None or any(part.tally is not None for part in self.parts)
        counts: dict[str, int] = Counter(words) if tallied or self.constants is None else dict.fromkeys(words, 0)
        self.whole.add_counted(words, counts, len(words))
        if self.constants is None:
            self.constants, values = slots(words[0])
            # A word that is one value (a time, `12ms`) shows as its whole field would,
            # whether or not the others are: its parts need not be read.
            whole = self.constants == ["", ""]
            self.parts = [] if whole else [_Field(self.cap) for _ in values]
        if not self.parts:
            return
        distinct = list(counts) if len(counts) < len(words) else words
        values_at = self._values_at(distinct)
        if values_at is None:
            self.parts = []
            return
        if distinct is words:
            for part, values in zip(self.parts, values_at):
                counted = Counter(values) if part.tally is not None else dict.fromkeys(values, 0)
                part.add_counted(values, counted, len(values))
        else:
            order = {word: at for at, word in enumerate(distinct)}
            leading_words = [order[word] for word in words[: 2 * self.cap]]
            for part, values in zip(self.parts, values_at):
                part.add_counted([values[at] for at in leading_words], _tally(part, values, counts), len(words))
        if sum(part.varies for part in self.parts) > 1:
            self.parts = []  # shown whole (`shown`) whatever the rest hold: a part that varies always will

    def _values_at(self, words: Sequence[str]) -> list[Sequence[str]] | None:
        """Each part's values in `words`, in order; None if a word's constant text differs."""
        constants, width = self.constants or [], len(self.parts)
        joined = "\n".join(words)
        if plain_words(joined):
            if self.shape is None:
                self.shape = shape_pattern(constants)
            return values_of_shape(joined, len(words), self.shape)
        found = []
        for word in words:
            split_word = slots(word)
            if split_word[0] != constants or len(split_word[1]) != width:
                return None
            found.append(split_word[1])
        return [[values[at] for values in found] for at in range(width)]

    def shown(self) -> str:
        if self.constants is None or not self.parts or sum(part.varies for part in self.parts) > 1:
            return self.whole.shown()
        shown = [self.constants[0]]
        for part, text in zip(self.parts, self.constants[1:]):
            shown += [part.shown(), text]
        return "".join(shown)


def _tally(field: _Field, values: Sequence[str], counts: dict[str, int]) -> dict[str, int]:
    """How often each of `values` occurs, `values[at]` standing for the words of
    `counts` at `at` (several words may share a value), in order of first appearance; for a
    field that no longer tallies, only which values occur."""
    if field.tally is None:
        return dict.fromkeys(values, 0)
    tally: Counter[str] = Counter()
    for value, times in zip(values, counts.values()):
        tally[value] += times
    return tally


def value_summary(values: Iterable[str], cap: int) -> str:
    """One field's values on several lines, never one of them as if constant (`_Field`)."""
    field = _Field(cap)
    field.add_all(list(values))
    return field.shown()


class _Field:
    """One field's values on many lines, in bounded memory, shown in braces unless all are
    the same: all of them in line order when few (`{a, b}`; up to `2 * cap` when they are
    more than `cap` different ones), a tally when a few repeat
    (`{200 ×120, 500 ×10}`), the range of numbers (`{3.499 … 12.174}`: the least and the
    greatest), else the first and `…`. Clock times always show their range (the second
    without the date they share): when, not which line was when; ids that vary show as
    `{…}`, as their range would say nothing. Values arrive a batch at a time, and each
    test that looks at a value's text runs once per distinct value, while it can still
    change what is shown."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.count = 0
        self.first: list[str] = []  # the first `2 * cap` values, in line order
        self.tally: Counter[str] | None = Counter()  # None once more than `cap` differ
        self.numbers: set[tuple[str, str]] | None = set()  # the letters around the numbers
        self.least: tuple[float, str] | None = None
        self.greatest: tuple[float, str] | None = None
        self.incidental: tuple[str, str] | None = None  # least and greatest, while all are

    def add_all(self, values: Sequence[str]) -> None:
        """Add `values`, in line order."""
        self.add_counted(values, Counter(values), len(values))

    def add_counted(self, leading: Sequence[str], counts: dict[str, int], total: int) -> None:
        """Add `total` values, each as often as `counts` says (in order of first
        appearance; once the field no longer tallies, only its keys are read); `leading`
        holds at least the first `2 * cap` of them in line order."""
        if not total:
            return
        if self.settled:
            self.count += total
            return
        if self.count == 0 and incidental(leading[0]):
            self.incidental = (leading[0], leading[0])
        self.count += total
        if len(self.first) < 2 * self.cap:
            self.first += leading[: 2 * self.cap - len(self.first)]
        if self.tally is not None:
            self.tally.update(counts)
            if len(self.tally) > self.cap:
                self.tally = None
        if self.numbers is not None:
            self._add_numbers(list(counts))
        if self.incidental is not None:
            least, greatest = self.incidental
            if all_incidental(counts):
                self.incidental = (min(least, min(counts)), max(greatest, max(counts)))
            else:
                self.incidental = None

    def _add_numbers(self, values: list[str]) -> None:
        """Values that are all numbers (with the same letters around them) keep their least
        and greatest; one that is not ends that."""
        found = _NUMBERS_RE.findall("\n".join(values))
        if self.numbers is None or len(found) != len(values):
            self.numbers = None
            return
        before, numbers, after = zip(*found)
        self.numbers.update(zip(before, after))
        keys = list(map(float, numbers))
        least, greatest = _extreme(min, keys, values), _extreme(max, keys, values)
        self.least = least if self.least is None or least < self.least else self.least
        self.greatest = greatest if self.greatest is None or greatest > self.greatest else self.greatest

    @property
    def settled(self) -> bool:
        """Whether more values can change only the count: no tally, range or incidental
        span is kept any longer, and the values listed first are all held."""
        return (
            self.tally is None
            and self.numbers is None
            and self.incidental is None
            and len(self.first) >= 2 * self.cap
        )

    @property
    def varies(self) -> bool:
        return self.tally is None or len(self.tally) > 1

    def shown(self) -> str:
        if not self.varies:
            return self.first[0]
        if self.incidental is not None:
            least, greatest = self.incidental
            if _HEX_ID_RE.fullmatch(least):
                return "{…}"  # random ids: their order and range say nothing
            date = _DATE_RE.match(least)
            return "{" + least + " … " + (greatest[date.end() :] if date and greatest.startswith(date[0]) else greatest) + "}"
        if self.count <= self.cap or (self.tally is None and self.count <= 2 * self.cap):
            return _listed(self.first, 2 * self.cap, 2 * self.cap)
        if self.tally is not None:
            return "{" + ", ".join(f"{value} ×{count}" for value, count in self.tally.items()) + "}"
        if self.numbers is not None and len(self.numbers) == 1 and self.least and self.greatest:
            return "{" + self.least[1] + " … " + self.greatest[1] + "}"
        return "{" + self.first[0] + ", …}"


def _extreme(pick: Callable[..., Any], keys: list[float], values: list[str]) -> tuple[float, str]:
    """`pick` (min or max) of the pairs of `keys` and `values`, without building each pair
    unless several values share the extreme key (`1.0` and `1`)."""
    key = pick(keys)
    if keys.count(key) == 1:
        return key, values[keys.index(key)]
    return key, pick(value for other, value in zip(keys, values) if other == key)


_DATE_RE = compile_on_use(r"\d{4}-\d\d-\d\d[T ]")


# A number with the letters around it that name it (`missing37`, `12ms`, `-1697`, `4.418`),
# one a line.
_NUMBERS_RE = compile_on_use(r"^([A-Za-z_]*)(-?\d+(?:\.\d+)?)([A-Za-z%]*)$", re.MULTILINE)


def with_values(lines: list[str], cap: int, location_cap: int | None = None) -> str | None:
    """One line standing for `lines` of one shape: each slot's value where all agree, else
    `{a, b, c}` in line order (at most `cap` of them, then `… +N`; locations up to
    `location_cap`, a file named once for its next lines: `{a.c:3:1, :9:2, b.c:4:4}`).
    None if their constant texts differ."""
    return slots_shown(varying_slots(lines), cap, location_cap)


def slots_shown(found: VaryingSlots | None, cap: int, location_cap: int | None = None) -> str | None:
    """`with_values` of lines whose `varying_slots` are `found`."""
    if found is None:
        return None
    split, _ = found
    constants = split[0][0]
    shown = [constants[0]]
    for position in range(len(split[0][1])):
        values = [values[position] for _, values in split]
        if all(value == values[0] for value in values):
            shown.append(values[0])
        elif cut := cut_shown(values):
            shown.append(cut)
        elif incidental(values[0]):
            shown.append(value_summary(values, cap))
        else:
            shown.append(_listed(values, cap, cap if location_cap is None else location_cap))
        shown.append(constants[position + 1])
    joined = "".join(shown)
    return joined if "|" in joined else _PADDING_RE.sub(" ", joined)  # a code frame keeps its columns


# Column padding between the words of a line: one space says as much in a group line
# (not in a code frame, where columns place the caret).
_PADDING_RE = compile_on_use(r"(?<=\S) {2,}(?=\S)")


def _listed(values: list[str], cap: int, location_cap: int) -> str:
    # Read as locations when all are; the first says whether to look at the rest.
    matches = location_parts(values) if is_location(values[0]) else None
    separator = ", "
    place = ""
    if matches is not None:
        cap = location_cap
        places = {where for _, where in matches}
        paths = [path for path, _ in matches]
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
        runs = columns.progression(values) if all(value.isdigit() for value in values) else None
        if runs is not None and (" step " in runs or "–" in runs):  # numbered lines (`[31-DE]`, `[38-DE]`, …): all, as runs
            return "{" + runs + "}"
        tally = Counter(values)
        if len(values) > 2 and len(tally) * 2 <= len(values):
            # Values that repeat (the same few names over many lines) as a tally; a few
            # are all named, or a reader cannot tell which names the lines hold.
            values = [f"{value} ×{count}" for value, count in tally.items()]
            cap = max(cap, _TALLY_NAMED)
        listed = values[:cap]
    more = f"{separator}… +{len(values) - cap}" if len(values) > cap else ""
    if matches is not None and more and len({path for path, _ in matches}) == 1:
        more += " in this file"  # or a reader cannot tell where the rest are
    return "{" + separator.join(listed) + more + "}" + place


# A tally of this many distinct values or fewer names them all.
_TALLY_NAMED = 10


def _by_place(located: list[tuple[str, str]]) -> str:
    """Files that share a few places, each place named once after its files, in order of
    first appearance: `{in src/: a b}.ts(3,53) {c d}.ts(3,55)`."""
    shown = _locations(located)
    lead = ""
    if shown[0].startswith("in "):
        lead, _, shown[0] = shown[0].partition(": ")
        lead += ": "
    by_place: dict[str, list[str]] = {}
    for text, (_, place) in zip(shown, located, strict=True):
        by_place.setdefault(place, []).append(text.removesuffix(place))
    lists = []
    for place, names in by_place.items():
        extensions = {name.rpartition(".")[2] for name in names if "." in name.rpartition("/")[2]}
        suffix = place
        if len(extensions) == 1 and all("." in name.rpartition("/")[2] for name in names):
            suffix = "." + extensions.pop() + place
            names = [name.removesuffix(suffix.removesuffix(place)) for name in names]
        lists.append("{" + " ".join(names) + "}" + suffix)
    return "{" + lead + lists[0][1:] + "".join(" " + each for each in lists[1:]) if lists else ""


def _locations(located: list[tuple[str, str]]) -> list[str]:
    """Locations (file, place) with each file named once for a run of them (`a.c:3:1`,
    `:9:2`), and the folder all of them share named once: `in src/app/: a.c:3:1, …`."""
    paths = {path for path, _ in located}
    folder = os.path.commonprefix(sorted(paths)).rpartition("/")[0] + "/" if len(paths) > 1 else "/"
    if len(folder) * (len(located) - 1) < _SHARED_FOLDER_SAVES or folder == "/":
        folder = ""
    listed: list[str] = []
    previous = None
    for path, place in located:
        listed.append(place if path == previous else path[len(folder) :] + place)
        previous = path
    if folder:
        listed[0] = f"in {folder}: {listed[0]}"
    return listed


# A folder shared by every listed location is named once (`in src/: `, a few characters)
# when that leaves out at least this many characters from the list.
_SHARED_FOLDER_SAVES = 16
