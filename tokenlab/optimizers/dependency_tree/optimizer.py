"""Dependency trees (`npm ls --all`, `cargo tree`, `pipdeptree`, `mvn dependency:tree`,
`gradle dependencies`): the roots and direct dependencies stay, the deep levels fold.

Recognised by shape: most lines are tree-drawing lines (`├── `, `└─┬ `, `│ `, ASCII `+- `,
`\\- `, `+--- `, `|  `, with an optional `[INFO] ` lead) whose entry names a package with a
version (`name@1.2.3`, `name v1.2.3`, `name [required: …, installed: 1.2]`,
`group:artifact:jar:1.2:compile`). A `tree` listing of files fails the version test.
A tree drawn by indentation alone (`npm explain`: each record a `name@1.2.3` line, its
location, and the indented chain of its dependents) is read by `indented.py`; its lines at
the margin are its roots.

An entry's depth comes from the column where its branch starts, compared with its
ancestors' columns, so npm's 2-wide, mvn's 3-wide and cargo's 4-wide units all work.

What stays visible:
- a census: entries per depth, distinct packages (and the names installed at several
  versions), repeated entries (`deduped`, `(*)`, `omitted for duplicate`);
- every line outside the drawing (root lines, `[dev-dependencies]`, `npm error …`), up to
  `roots_shown`;
- every depth-1 entry, up to `direct_shown`, and the next levels while the shallow lines
  stay within `shallow_lines`;
- every problem line wherever it is (`line_shapes.is_failure`, `UNMET`, `invalid`,
  `extraneous`, `missing`), with its ancestors so its path reads; these are the
  optimizer's signals.

Each run of other lines leaves `… N lines: a, b, …` at the run's indentation, naming the
records (subtrees) it is made of by what tells them apart: their packages, or, when they
all name one package (its dependents), the words that differ. Of a long run
(`first_whole_run_lines`), the first record stays whole when it is small
(`first_whole_lines`), so that one path reads to its end. COARSE: one ref
holds all folded lines in order; FINE: one ref per run. Trees under `small_bytes` pass
through unchanged.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate

from tokenlab.optimizers import (
    Granularity,
    OptimizerConfig,
    OptimizeResult,
    join_literals,
    visible,
)
from tokenlab.optimizers.dependency_tree import indented
from tokenlab.optimizers.lines.folds import fold_unkept, headed
from tokenlab.optimizers.lines.shapes import is_failure
from tokenlab.patterns import compile_on_use


@dataclass(frozen=True)
class TreeLimits:
    small_bytes: int = 4096  # smaller trees pass through unchanged
    roots_shown: int = 200
    direct_shown: int = 200
    shallow_lines: int = 40  # levels below 1 are shown while the shallow lines fit this
    problems_shown: int = 200
    names_listed: int = 8
    first_whole_lines: int = 12  # of alike folded subtrees, the first is shown when this small
    first_whole_run_lines: int = 48  # … and its run this long: a short run is read whole when opened


DEFAULT_LIMITS = TreeLimits()

_LEAD = r"(?:\[[A-Z]+\] )?"
# An entry's text runs to its last non-blank: blanks are taken a whole run at a time, as a
# blank run tried at each of its bytes was read again from each.
_ENTRY_RE = compile_on_use(
    rf"^({_LEAD})([│|\s\xa0]*?)([├└][─┬]+|[+\\`]-+|\|--)[ \xa0](\S(?:[^\S\n]*+\S)*+)\s*$"
)
_VERSIONED_RE = compile_on_use(
    r"^(?:UNMET (?:OPTIONAL |PEER )?DEPENDENCY )?(?:"
    r"@?[^\s@]+@\S*\d"  # npm: name@1.2.3
    r"|\S+ v\d"  # cargo: name v1.2.3
    r"|\S+ \[required: .*installed: "  # pipdeptree
    r"|\S+==\d"  # pipdeptree root
    r"|[\w.\-]+:[\w.\-]+:(?:[\w.\-]+:){0,3}\d"  # maven, gradle: group:artifact:…:1.2
    r")"
)
# An entry of a tree drawn by indentation alone names its package the way a package manager
# does (`name@1.2.3`, `name@"^1.2"`, `name v1.2.3`, `name==1.2`); `a:b:c:1` is too common a
# shape of indented values (hex dumps) to tell a tree without its drawing.
_INDENTED_VERSIONED_RE = compile_on_use(r"@?(?=[^\s@]*[A-Za-z])[^\s@]++@\S*\d|\S+ v\d|\S+==\d")
_PROBLEM_RE = compile_on_use(r"\bUNMET\b|\s(?:invalid|extraneous|missing)\b|\bnpm (?:ERR!|error)|\bERROR\b")
_RANGE_LEADS = ('"', "'", "^", "~", "<", ">", "=", "*")  # a version range: `"^7.5.3"`, `>=2`
_REPEAT_RE = compile_on_use(r" deduped\b|\(\*\)|omitted for duplicate")


def looks_like_dependency_tree(sample: bytes) -> bool:
    return _drawing(sample) is not None


def _drawing(sample: bytes) -> bool | None:
    """True for a tree drawn with branches, False for one drawn by indentation alone, None
    for no tree."""
    lines = [line for line in sample.decode("utf-8", errors="replace").split("\n")[:2000] if line.strip()]
    if len(lines) > 1:
        lines.pop()  # the sample may end inside a line
    entries = drawn = 0
    for line in lines:
        match = _ENTRY_RE.match(line)
        drawn += match is not None
        entries += match is not None and _VERSIONED_RE.match(match.group(4)) is not None
    if entries >= 5 and entries >= 0.5 * len(lines):
        return True
    if drawn == 0 and indented.looks_indented(lines, _INDENTED_VERSIONED_RE):
        return False
    return None


@dataclass
class _Line:
    start: int
    end: int
    text: str
    depth: int  # 0: outside the drawing
    entry: str
    draw: str  # the drawing before the branch, with the lead
    versioned: bool = True  # names a package (in a tree drawn by indentation, not every line does)


def _parse(data: bytes, drawn: bool) -> list[_Line]:
    raw = data.split(b"\n")
    if raw[-1] == b"":
        raw.pop()
    starts = list(accumulate((len(line) + 1 for line in raw), initial=0))
    parsed: list[_Line] = []
    columns: list[int] = []  # branch columns of the current line's ancestors
    for number, line in enumerate(raw):
        text = line.decode("utf-8", errors="replace").rstrip("\r")
        end = min(starts[number + 1], len(data))
        if not drawn:
            parsed.append(_indented_line(starts[number], end, text, columns))
            continue
        match = _ENTRY_RE.match(text) if len(text) < 4096 else None
        if match is None:
            columns = []
            parsed.append(_Line(starts[number], end, text, 0, text.strip(), ""))
            continue
        _descend(columns, len(match.group(2)))
        draw = match.group(1) + match.group(2)
        parsed.append(_Line(starts[number], end, text, len(columns), match.group(4), draw))
    return parsed


def _descend(columns: list[int], column: int) -> None:
    """The ancestors' columns once a line starting at `column` joins the path."""
    while columns and columns[-1] >= column:
        columns.pop()
    columns.append(column)


def _indented_line(start: int, end: int, text: str, columns: list[int]) -> _Line:
    """A line of a tree drawn by indentation: a line at the margin is a root, and each
    deeper indentation a level further (`columns` is the path's, updated in place)."""
    column = indented.indentation(text)
    entry = indented.entry_text(text, _INDENTED_VERSIONED_RE)
    versioned, entry = entry is not None, entry or text.strip()
    if column == 0 or not text.strip():
        columns.clear()
        return _Line(start, end, text, 0, entry, "", versioned)
    _descend(columns, column)
    return _Line(start, end, text, len(columns), entry, text[:column], versioned)


def _package(entry: str) -> tuple[str, str]:
    """(name, version) of an entry, as well as its shape tells."""
    entry = re.sub(r"^UNMET (?:OPTIONAL |PEER )?DEPENDENCY ", "", entry)
    words = entry.split()
    if not words:
        return "", ""
    first = words[0]
    if "==" in first:
        name, _, version = first.partition("==")
        return name, version
    if "@" in first[1:]:
        name, _, version = first.rpartition("@")
        return name, version
    if len(words) > 1 and re.fullmatch(r"v\d\S*", words[1]):
        return first, words[1][1:]
    installed = re.search(r"installed: ([^\]\s]+)", entry)
    if installed:
        return first, installed.group(1)
    parts = first.split(":")
    if len(parts) >= 3:
        version = next((part for part in parts[2:] if part[:1].isdigit()), "")
        return ":".join(parts[:2]), version
    return first, ""


def _is_problem(line: _Line) -> bool:
    return _PROBLEM_RE.search(line.entry) is not None or is_failure(line.text)


def optimize(data: bytes, config: OptimizerConfig, limits: TreeLimits = DEFAULT_LIMITS) -> OptimizeResult:
    drawn = _drawing(data[:65536]) if len(data) >= limits.small_bytes else None
    if drawn is None:
        return OptimizeResult((visible(data),) if data else ())
    lines = _parse(data, drawn)
    keep = _kept(lines, limits)
    return _render(data, lines, keep, config.granularity is Granularity.FINE, limits)


def _kept(lines: list[_Line], limits: TreeLimits) -> list[bool]:
    """Which lines stay visible: roots, shallow levels, and problems with their ancestors."""
    per_depth = Counter(line.depth for line in lines if line.depth)
    shown_depth, total = 1, per_depth[1]
    while per_depth[shown_depth + 1] and total + per_depth[shown_depth + 1] <= limits.shallow_lines:
        shown_depth += 1
        total += per_depth[shown_depth]
    keep = [False] * len(lines)
    roots = direct = problems = 0
    ancestors: list[int] = []  # line index per depth, for the current path
    for index, line in enumerate(lines):
        del ancestors[max(line.depth - 1, 0) :]
        if line.depth == 0:
            roots += 1
            keep[index] = roots <= limits.roots_shown
        elif line.depth == 1:
            direct += 1
            keep[index] = direct <= limits.direct_shown
        elif line.depth <= shown_depth:
            keep[index] = True
        if line.depth and _is_problem(line) and problems < limits.problems_shown:
            problems += 1
            keep[index] = True
            for ancestor in ancestors:
                keep[ancestor] = True
        if line.depth:
            ancestors.append(index)
    _show_first_records(lines, keep, limits)
    return keep


def _run_heads(lines: list[_Line], first: int, stop: int) -> list[int]:
    """The entries at the top of a run of lines: the records the run is made of."""
    depth = min((line.depth for line in lines[first:stop] if line.depth), default=0)
    return [at for at in range(first, stop) if depth and lines[at].depth == depth and lines[at].versioned]


def _show_first_records(lines: list[_Line], keep: list[bool], limits: TreeLimits) -> None:
    """Of a folded run of alike records (subtrees under one entry), the first stays whole
    when it is small, so that one path reads to its end; the rest fold behind a line that
    names them."""
    index = 0
    while index < len(lines):
        if keep[index]:
            index += 1
            continue
        stop = index
        while stop < len(lines) and not keep[stop]:
            stop += 1
        heads = _run_heads(lines, index, stop)
        if (
            len(heads) > 1
            and heads[0] == index  # the run starts with a record, not inside another
            and heads[1] - index <= limits.first_whole_lines
            and stop - index >= limits.first_whole_run_lines
        ):
            keep[index : heads[1]] = [True] * (heads[1] - index)
        index = stop


def _render(
    data: bytes, lines: list[_Line], keep: list[bool], fine: bool, limits: TreeLimits
) -> OptimizeResult:
    def label(first: int, stop: int) -> str:
        marker = f"{lines[first].draw}… {stop - first:,} line{'s' if stop - first > 1 else ''}"
        heads = _run_heads(lines, first, stop)
        if not heads:
            return marker
        said = list(dict.fromkeys(_names([lines[at].entry for at in heads])))
        more = f", … +{len(said) - limits.names_listed}" if len(said) > limits.names_listed else ""
        return f"{marker}: {', '.join(said[: limits.names_listed])}{more}"

    body, folded = fold_unkept(
        data, [(line.start, line.end) for line in lines], keep, label, fine, "dependency tree lines"
    )
    parts = headed(_census(lines, keep, limits), data, folded, fine, "dependency tree lines")
    signals = [
        line.text
        for line, kept in zip(lines, keep)
        if kept and line.text.strip() and (line.depth == 0 or _is_problem(line))
    ]
    return OptimizeResult(tuple(join_literals(parts + body)), tuple(dict.fromkeys(signals)))


def _names(entries: list[str]) -> list[str]:
    """What tells folded entries apart: their packages' names, or when they name one
    package (the dependents of one package, listed by what depends on it) the words that
    differ between them."""
    names = [_package(entry)[0] for entry in entries]
    if len(set(names)) > 1:
        return names
    if len(entries) == 1:
        return entries
    # The package's own word (with the range each asks for) tells them no further apart.
    return indented.varying_words([entry.partition(" ")[2] or entry for entry in entries])


def _census(lines: list[_Line], keep: list[bool], limits: TreeLimits) -> str:
    entries = [line for line in lines if line.depth and line.versioned]
    per_depth = Counter(line.depth for line in entries)
    depths = ", ".join(f"{depth}: {per_depth[depth]:,}" for depth in sorted(per_depth))
    packages = {_package(line.entry) for line in entries}
    versions: dict[str, list[str]] = {}
    for name, version in sorted(packages):
        if not version.startswith(_RANGE_LEADS):  # what a dependent asks for, not what is installed
            versions.setdefault(name, []).append(version)
    several = [(name, found) for name, found in versions.items() if len(found) > 1]
    head = (
        f"[dependency tree: {len(entries):,} entries by depth {depths}; {len(packages):,} distinct packages"
    )
    if several:
        listed = ", ".join(f"{name} ({', '.join(found)})" for name, found in several[: limits.names_listed])
        more = f", … +{len(several) - limits.names_listed}" if len(several) > limits.names_listed else ""
        head += f", {len(several):,} at several versions: {listed}{more}"
    repeats = sum(1 for line in entries if _REPEAT_RE.search(line.entry))
    if repeats:
        head += f"; {repeats:,} repeated entries"
    problems = [line for line in entries if _is_problem(line)]
    if problems:
        # Whether a fold may hide one: a name holding `error` is then no problem of the tree.
        shown = sum(1 for line, kept in zip(lines, keep) if kept and line.depth and line.versioned and _is_problem(line))
        head += f"; {len(problems):,} problem entries, " + ("all shown" if shown == len(problems) else f"{shown:,} shown")
    return head
