"""Whether a visible text shows a line: read back from what the optimizers print.

A line counts as visible when the text holds it, or when a folded group's line shows its
constant text and its values (`shown_by`: a list `{a, b}`, a column's runs `02–24`, a
location list naming its folder once), or when a search listing names it: a hit under
its file's heading, a file in a folder's list. The SIGNAL stage asks `not_shown`; the
optimizers that print such lines (`line_values`, the log and search families) are what
it reads. How a line splits into constant texts and values is `line_shapes`' concern.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from tokenlab.optimizers.lines import columns
from tokenlab.optimizers.lines.shapes import (
    LOCATION_VALUE_RE,
    cut_in,
    incidental,
    merged_run,
    slots,
    spaces_squeezed,
    word_runs,
    word_slots,
)
from tokenlab.patterns import compile_on_use


def shown_by(line: str, group_line: str, folder: str = "", values_in: str | None = None) -> bool:
    """Whether `group_line` shows `line`: its constant texts and every one of its values
    (locations may leave out `folder`, named once for the whole text); the values read in
    `values_in` instead when given (a line of failures `TOLD_ABOVE`: the text above it)."""
    stripped = line.strip()
    if folder and stripped.startswith(folder) and len(stripped) > len(folder):
        line = stripped[len(folder) :]  # a path in the folder named once, listed without it
    constants, values = slots(line)
    squeezed = spaces_squeezed(group_line)
    if values_in is not None:
        group_line = values_in
    if _slots_shown(constants, values, squeezed, group_line, folder):
        return True
    # A group line lists a word holding several values whole (`{tests/a.py::t1, …}`).
    for first, last in reversed(word_runs(constants, list(range(len(values))))):
        constants, values = merged_run(constants, values, first, last)
    if _slots_shown(constants, values, squeezed, group_line, folder):
        return True
    # Or lists the words holding its values whole (`[{EUR-55, GBP-10}]`, `varying_slots`),
    # or with their brackets (`{[eu-west-1], [us-east-2]}`, `line_values.word_summary`).
    constants, values = word_slots(line)
    if _slots_shown(constants, values, squeezed, group_line, folder):
        return True
    if _slots_shown(*_with_brackets(constants, values), squeezed, group_line, folder):
        return True
    return _name_shown(line, squeezed, group_line)


def _with_brackets(constants: list[str], values: list[str]) -> tuple[list[str], list[str]]:
    """The slots with each value that fills a pair of brackets holding them (`[eu-west-1]`)."""
    constants, values = list(constants), list(values)
    for at, value in enumerate(values):
        opening, after = constants[at][-1:], constants[at + 1]
        if opening in "[(" and opening and after[:1] == {"[": "]", "(": ")"}[opening]:
            values[at] = opening + value + after[0]
            constants[at], constants[at + 1] = constants[at][:-1], after[1:]
    return constants, values


_NAME_WORD_RE = compile_on_use(r"[A-Za-z_][\w.\-]*")


def _name_shown(line: str, squeezed: str, group_line: str) -> bool:
    """Whether a group line of records that differ in a name (`name: #` … `search`) shows
    `line` by one of its words: the line with that word as `#` (its constant texts and
    values, as `shown_by` reads them), and the word."""
    for word in _NAME_WORD_RE.finditer(line):
        constants, values = slots(line[: word.start()] + "#" + line[word.end() :])
        if _slots_shown(constants, values, squeezed, group_line, "") and re.search(
            rf"(?<![\w.\-]){re.escape(word[0])}(?![\w\-])", group_line
        ):
            return True
    return False


def _slots_shown(constants: list[str], values: list[str], squeezed: str, group_line: str, folder: str) -> bool:
    return all(spaces_squeezed(text) in squeezed for text in constants) and all(
        _value_shown(value, group_line, folder) for value in values if not incidental(value)
    )


def _value_shown(value: str, group_line: str, shared: str = "") -> bool:
    if value in group_line or _in_runs(value, group_line) or cut_in(value, group_line):
        return True
    if columns.said_by_offset(value, group_line):
        return True
    located = LOCATION_VALUE_RE.fullmatch(value)
    if located is None or located[2] not in group_line:
        return False
    path, place = located.groups()
    stem, dot, extension = path.rpartition(".")
    if dot and f"}}.{extension}{place}" in group_line:
        path = stem  # `{a b}.js:2:8`: the extension and place shared, named once after
    if path in group_line or (shared and path.startswith(shared) and path[len(shared) :] in group_line):
        return True
    # A list names the folder its files share once, however deep (`{in src/: mod1/a.c:3:1 …}`).
    return any(path.startswith(folder) and path[len(folder) :] in group_line for folder in FOLDER_LISTED_RE.findall(group_line))


# A value holding one number: its prefix, the number, its suffix (`orders-shard-`, `17`, ``).
_ONE_NUMBER_RE = compile_on_use(r"(\D*?)(\d+)(\D*)")


def _in_runs(value: str, group_line: str) -> bool:
    """Whether a group line says `value` by a column's runs (`lines.columns.progression`):
    `orders-shard-17` by `orders-shard-02–24`, `24` by `10 to 150 step 7`."""
    numbered = _ONE_NUMBER_RE.fullmatch(value)
    if numbered is None or "–" not in group_line and " step " not in group_line:
        return False
    prefix, number, suffix = numbered.groups()
    return any(
        group_line.endswith(prefix, 0, runs.start())
        and group_line.startswith(suffix, runs.end())
        and columns.holds(runs[0], number)
        for runs in columns.RUNS_RE.finditer(group_line)
    )


# How a location list names the folder its files share: `{in src/app/: a.c:3:1 …}`.
FOLDER_LISTED_RE = compile_on_use(r"\{in ([^\s{]+/): ")  # `{` ends a try: linear on any line


# A group line of a run's closing list of failures, each told in its section above: said
# by its shape, its values read above it.
TOLD_ABOVE = "each # as told above"


def _told_above(text: str, visible: str, folder: str) -> bool:
    """Whether a line `TOLD_ABOVE` shows `text`: its constant texts, and its values in that
    line (those all its failures share) or in the visible text above it."""
    at = visible.find(TOLD_ABOVE)
    while at >= 0:
        start = visible.rfind("\n", 0, at) + 1
        end = visible.find("\n", at)
        end = end if end >= 0 else len(visible)
        if shown_by(text, visible[start:end], folder, values_in=visible[:end]):
            return True
        at = visible.find(TOLD_ABOVE, at + 1)
    return False


# How a log's header names the folder all its location lists share (`; locations in src/`).
FOLDER_NAMED = "locations in"
_FOLDER_NAMED_RE = compile_on_use(rf"^\[log: [^\n]*?; {FOLDER_NAMED} (\S+/)[:\]]", re.MULTILINE)


def not_shown(expected: tuple[str, ...], visible: str) -> tuple[str, ...]:
    """The expected strings that the visible text neither contains nor shows by its values
    in a folded group's line, or as a file of a folder's list."""
    missing = [text for text in expected if text not in visible]
    if not missing:
        return ()
    named = _FOLDER_NAMED_RE.search(visible)
    folder = named[1] if named else ""
    lines = visible.splitlines()
    group_lines = [line for line in lines if "{" in line]
    missing = [text for text in missing if not any(shown_by(text, line, folder) for line in group_lines)]
    if missing and TOLD_ABOVE in visible:
        missing = [text for text in missing if not _told_above(text, visible, folder)]
    listed = [found for line in lines if (found := folder_list(line) or located_files(line))]
    missing = [text for text in missing if not any(_listed_in(text, found) for found in listed)]
    if missing:
        flat = hits_under_headings(lines)
        missing = [text for text in missing if not any(text in line for line in flat)]
    return tuple(missing)


# A search tool's line as a flat listing prints it: `path:12:text` for a hit, `path-12-text`
# for a context line, `path=12=text` for the enclosing function's line (git grep -p/-W).
# A grouped listing prints it under its file's heading (`path` or `path (3 hits)`), as
# `12:text`, `12-text` or `12=text`.
_HEADED_LINE_RE = compile_on_use(r"(\d+)([:=-])")
# Hits printed alike in one file, shown once with every line number: `{1084 1202}:text`.
_ALIKE_LINES_RE = compile_on_use(r"\{(\d+(?: \d+)+)\}:")
# A heading may say what its ref holds: `path (14 hits, 11 more: #ref:ctx_…)`, or what the
# listing's one ref holds of it: `path (2 hits; the ref has 1 hit with all context)`.
_HEADING_COUNT_RE = compile_on_use(r" \((?:\d[\d,]* hits?(?:[;,] [^()]*)?|[^()]*: #ref:ctx_\w+)\)$")
# A hit printed as `path scope 12 text` (cscope's line-oriented output) shows `scope 12 text`.
_SCOPED_LINE_RE = compile_on_use(r"[^ \[]\S* \d+ ")


def hits_under_headings(lines: Sequence[str]) -> set[str]:
    """Every `N:text` / `N-text` / `N=text` line shown under a file heading, as the flat
    listing prints it (`path-N-text`), and as `path:N:text`; a `scope N text` line as
    `path scope N text`; hits printed alike, `{N M}:text`, as each of their lines. The
    heading is the nearest line above that is neither a numbered line nor a fold marker
    (`[… 3 more hits: …]`)."""
    found: set[str] = set()
    heading = ""
    for line in lines:
        numbered = _HEADED_LINE_RE.match(line)
        alike = _ALIKE_LINES_RE.match(line)
        if alike:
            text = line[alike.end() :]
            found.update(f"{heading}:{number}:{text}" for number in alike[1].split(" ") if heading)
        elif heading and _SCOPED_LINE_RE.match(line):
            found.add(f"{heading} {line}")
        elif line.startswith("{"):
            heading = ""  # a list of places names its files itself (`located_files`)
            found.update(_located_hits(line))
        elif numbered:
            if heading:
                number, text = numbered[1], line[numbered.end() :]
                found.add(f"{heading}:{number}:{text}")  # how a hit list names any line it shows
                found.add(f"{heading}{numbered[2]}{number}{numbered[2]}{text}")
        elif line.strip() and not line.startswith("[") and line != "--":
            heading = _HEADING_COUNT_RE.sub("", line)
    return found


# A folder's list of files, as search results fold files that show no hit:
# `./test/ (5 files, 63 hits): test_a.py (53), test_b.py (4): #ref:ctx_…`.
FOLDER_LIST = "/ ("
_FILES = " files"


def folder_list(line: str) -> tuple[str, list[str]] | None:
    """(folder, file names) of a folder's list line; plain string scans, linear on any line."""
    at = line.find(FOLDER_LIST)
    if at <= 0 or " " in line[:at]:
        return None
    count_end = line.find(")", at)
    if count_end < 0 or _FILES not in line[at:count_end] or line[count_end : count_end + 3] != "): ":
        return None
    names = [item.rsplit(" (", 1)[0] for item in line[count_end + 3 :].split(", ")]
    return line[: at + 1], names


def located_files(line: str) -> tuple[str, list[str]] | None:
    """(folder, file names) of a list of places that opens a line, as search results show
    files printing the same line: `{in stubs/: a.pyi:51 b.pyi:19}:text`, `{a.py:3 b.py:9}:text`,
    and, parted by commas when some say their hit count, `{a.py:3 (4 hits), b.py:9}:text`;
    plain string scans, linear on any line."""
    if not line.startswith("{"):
        return None
    end = line.find("}")
    if end < 0:
        return None
    places = line[1:end]
    folder = ""
    if places.startswith("in ") and (at := places.find("/: ")) > 0:
        folder, places = places[3 : at + 1], places[at + 3 :]
    listed = places.split(", ") if ", " in places else places.split(" ")
    names = [place.split(" (", 1)[0].rpartition(":")[0] for place in listed]
    return (folder, names) if all(names) else None


def _located_hits(line: str) -> list[str]:
    """A list of places' line as the flat listing prints each of its hits: `{in a/: b.py:3
    c.py:9 (2 hits)}:text` as `a/b.py:3:text` and `a/c.py:9:text`."""
    end = line.find("}:")
    located = located_files(line[: end + 1]) if end > 0 else None
    if located is None:
        return []
    folder, names = located
    places = line[1:end].removeprefix(f"in {folder}: ") if folder else line[1:end]
    listed = places.split(", ") if ", " in places else places.split(" ")
    numbers = [place.split(" (", 1)[0].rpartition(":")[2] for place in listed]
    return [f"{folder}{name}:{number}:{line[end + 2 :]}" for name, number in zip(names, numbers)]


def _listed_in(text: str, found: tuple[str, list[str]]) -> bool:
    folder, names = found
    return text.startswith(folder) and text[len(folder) :] in names
