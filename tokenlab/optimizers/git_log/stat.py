"""What a commit's stat or name list says, read and shown: `git diff --stat`, `git log
--stat`, `git show --name-status`. Split out of `git_log.py`, which renders commits.

A listing of at most `show_stat_lines` lines is shown as printed. A longer one shows its
summary line, then the lines that stand out, as printed: files only removed from, a
rename's `a => b`, and the `STAT_STANDOUTS` largest changes when larger than the median
one (what a reviewer opens first). Then every path, grouped by folder; in a listing of at
most `STAT_COUNTED_FILES` files each with its count and which way it went (`g0.py 120+`,
`README.md 28-`, `app.py 13±`, `bin` for a binary file), a count shared by half a
folder's files said once for the folder, and names that differ in one number said once
(`api_{001…046}.py`, see `numbered`). The listing as printed is one ref.

A path git cut to fit the width (`.../internal/Repo.java`, `...ntityHandler.java`) is an
opaque name: it is listed under the folder it still shows (`.../internal`), or with the
other names cut before any folder, each row with its own count; two rows whose cut names
are equal are two files, never merged (the name is said once, before each row's count),
and `...` is no folder.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from tokenlab.optimizers import Omission, OptimizeResult, Part, join_literals, visible
from tokenlab.optimizers.lines import numbered
from tokenlab.patterns import compile_on_use

SUMMARY_RE = compile_on_use(
    rb"^ (\d+) files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?", re.MULTILINE
)
_STAT_COUNT_RE = compile_on_use(rb"\s*(?:\d+(?: [+-]*)?|Bin\b.*)\s*")
_STAT_PARTS_RE = compile_on_use(rb"\s*(\d+)(?: ([+-]*))?\s*")
NAME_STATUS_RE = compile_on_use(rb"([ACDMRTUXB])\d*\t([^\t]*)(?:\t(.*))?")
# Lines of a long stat listing shown verbatim for being among the largest changes.
STAT_STANDOUTS = 5
# Lines shown verbatim for touching files only by removing lines (or renaming them).
STAT_REMOVALS = 10
# Rows a long stat listing shows as printed where it begins.
STAT_FIRST_ROWS = 2
# A listing of at most this many files gives each file's count; a longer one names them.
STAT_COUNTED_FILES = 200


@dataclass
class Changes:
    """What a commit's stat, name list or patch says about the files it touched."""

    paths: list[str] = field(default_factory=list)
    counts: dict[str, str] = field(default_factory=dict)  # path -> `120+`, `28-`, `13±`, `bin`
    row_counts: list[str] = field(default_factory=list)  # each path's count, in order (`` for none)
    files: int = 0
    added: int = 0
    removed: int = 0
    summary: str = ""  # the stat's summary line, as printed
    stat: tuple[int, int] | None = None  # input span of the stat or name list
    patch: tuple[int, int] | None = None  # input span of the patch


def looks_like_stat_listing(data: bytes) -> bool:
    """A `git diff --stat` (or `git apply --stat`) alone: ` path | N +-` lines ending with
    its `N files changed` summary."""
    lines = data[-4096:].rstrip().splitlines()
    if not lines or not SUMMARY_RE.match(lines[-1]):
        return False
    stat = [line for line in data[:16384].splitlines()[:-1] if line.strip()]
    shaped = sum(1 for line in stat if _is_stat_line(line))
    return shaped >= 2 and shaped >= 0.9 * len(stat)


def _is_stat_line(line: bytes) -> bool:
    bar = line.rfind(b" | ")
    return line.startswith(b" ") and bar > 0 and _STAT_COUNT_RE.fullmatch(line[bar + 3 :].rstrip(b"\r")) is not None


def optimize_listing(data: bytes, verbatim_bytes: int, show_stat_lines: int) -> OptimizeResult:
    """A stat listing with no commit around it, shown as a single commit's listing is."""
    changes = Changes()
    read_listing(data, changes)
    long = data.count(b"\n") > show_stat_lines
    signals = (changes.summary, *standouts(data)) if long else tuple(listing_paths(data))
    if len(data) <= verbatim_bytes:
        return OptimizeResult((visible(data),), signals)
    parts = single_listing(data, changes, (0, len(data)), show_stat_lines)
    return OptimizeResult(tuple(join_literals(parts)), signals)


def read_listing(listing: bytes, changes: Changes) -> None:
    for raw in listing.splitlines():
        line = raw.rstrip(b"\r")
        if not line.strip() or line == b"---":  # `git show --stat -p` puts `---` before the stat
            continue
        summary = SUMMARY_RE.match(line)
        if summary:
            changes.summary = visible(line.strip())
            changes.files = int(summary.group(1))
            changes.added = int(summary.group(2) or 0)
            changes.removed = int(summary.group(3) or 0)
            continue
        bar = line.rfind(b" | ")
        if line.startswith(b" ") and bar > 0 and _STAT_COUNT_RE.fullmatch(line[bar + 3 :]):
            path = visible(line[:bar].strip())
            changes.paths.append(path)
            changes.counts[path] = _count(line[bar + 3 :])
            changes.row_counts.append(changes.counts[path])
            continue
        status = NAME_STATUS_RE.fullmatch(line)
        if status:
            old, new = status.group(2), status.group(3)
            changes.paths.append(visible(old + b" => " + new if new else old))
        else:
            changes.paths.append(visible(line.strip()))
        changes.row_counts.append("")
    if not changes.summary:
        changes.files = len(changes.paths)


def _count(stat: bytes) -> str:
    """`120+` for ` 120 ++++`, `28-`, `13±` for a mix, the bare count with no graph, `bin`."""
    found = _STAT_PARTS_RE.fullmatch(stat)
    if found is None:
        return "bin"
    graph = found.group(2) or b""
    way = ("+" if b"+" in graph else "") + ("-" if b"-" in graph else "")
    return visible(found.group(1)) + ("±" if way == "+-" else way)


def single_listing(data: bytes, changes: Changes, span: tuple[int, int], show_stat_lines: int) -> list[Part]:
    listing = data[span[0] : span[1]]
    if listing.count(b"\n") <= show_stat_lines:
        return [visible(listing)]
    parts: list[Part] = []
    if changes.summary:
        parts.append(f" {changes.summary}\n")
    parts += [line + "\n" for line in standouts(listing, STAT_FIRST_ROWS)]
    counted = len(changes.paths) <= STAT_COUNTED_FILES
    row_counts = changes.row_counts if counted else [""] * len(changes.paths)
    parts += [
        f" {len(changes.paths)} paths by folder{', with their counts' if counted else ''}; the listing as printed: ",
        Omission(listing, "git stat"),
        "\n",
    ]
    for folder, names in _by_folder(changes.paths, row_counts):
        parts.append(f"  {_folder_line(folder, names)}\n")
    if listing.endswith((b"\n\n", b"\r\n\r\n")):
        parts.append("\n")
    return parts


def _folder_line(folder: str, names: list[tuple[str, str]]) -> str:
    """`src: a.py 3+, b.py 40±` from (name, count) rows; a count half a folder's files
    share is said once: `pkg (1+ each unless noted): a.py, b.py, c.py 3±`; so are names
    that differ in one number: `t_{01…40}.py`. Names git cut are listed row by row."""
    common, seen = Counter(count for _, count in names).most_common(1)[0]
    if not common or seen < 3 or seen * 2 < len(names):
        common = ""
    if any(is_cut(name) or folder.startswith(CUT) for name, _ in names):
        listed = _cut_names_once(names, common)
    else:
        listed = numbered.said_once([name if count in ("", common) else f"{name} {count}" for name, count in names])
    said = f" ({common} each unless noted)" if common else ""
    return f"{folder}{said}: {', '.join(listed)}"


def _cut_names_once(names: list[tuple[str, str]], common: str) -> list[str]:
    """Rows whose names git cut alike are as many files, each with its own count: the name
    is said once, before every such row's count in order (`...Handler.java ×3: 79± 57± 30±`),
    as deep trees print the same file names under many folders."""
    counts: dict[str, list[str]] = {}
    for name, count in names:
        counts.setdefault(name, []).append(count)
    listed = []
    for name, rows in counts.items():
        if len(rows) > 1:
            listed.append(f"{name} ×{len(rows)}" + (": " + " ".join(rows) if any(rows) else ""))
        else:
            listed.append(name if rows[0] in ("", common) else f"{name} {rows[0]}")
    return listed


def standouts(listing: bytes, first_rows: int = 0) -> list[str]:
    """Stat lines shown as printed: removals only, renames, the largest changes, and the
    `first_rows` rows where the listing begins (the rest is said by folder)."""
    lines = listing.splitlines()
    sized, removals = _sized_rows(lines)
    first = [at for _, at in sorted(sized, key=lambda row: row[1])[:first_rows]]
    chosen = sorted(set(first) | set(removals[:STAT_REMOVALS]) | set(_largest(sized, STAT_STANDOUTS)))
    return [visible(lines[at].rstrip(b"\r")) for at in chosen]


def largest_rows(listing: bytes, count: int) -> list[str]:
    """The `count` largest changes of a stat listing that stand out, as printed, largest
    first, then its renames (`a => b`, at most `STAT_REMOVALS`) as printed."""
    lines = listing.splitlines()
    sized, removals = _sized_rows(lines)
    largest = _largest(sized, count)
    renames = [at for at in removals if b"=> " in lines[at] and at not in largest][:STAT_REMOVALS]
    return [visible(lines[at].rstrip(b"\r")) for at in largest + renames]


def _sized_rows(lines: list[bytes]) -> tuple[list[tuple[int, int]], list[int]]:
    """(-size, line index) of each stat row, and the rows that only remove lines or rename."""
    sized: list[tuple[int, int]] = []
    removals: list[int] = []
    for at, raw in enumerate(lines):
        line = raw.rstrip(b"\r")
        bar = line.rfind(b" | ")
        found = _STAT_PARTS_RE.fullmatch(line[bar + 3 :]) if line.startswith(b" ") and bar > 0 else None
        if found is None:
            continue
        graph = found.group(2) or b""
        if (graph and b"+" not in graph) or b"=> " in line[:bar]:  # `...=> b}` when git cut it
            removals.append(at)
        sized.append((-int(found.group(1)), at))
    return sized, removals


def _largest(sized: list[tuple[int, int]], count: int) -> list[int]:
    """The largest changes, when they stand out: above the median (all equal, none do)."""
    median = sorted(sized)[len(sized) // 2][0] if sized else 0
    return [at for size, at in sorted(sized)[:count] if size < median]


# How git marks a path it cut to fit the width: `.../tail` or `...tail`.
CUT = "..."
_CUT_BEFORE_FOLDERS = "(cut by git)"


def is_cut(path: str) -> bool:
    return path.startswith(CUT)


def _by_folder(paths: list[str], counts: list[str]) -> list[tuple[str, list[tuple[str, str]]]]:
    """(name, count) rows grouped by folder, in order of first appearance; renames stay
    whole. A cut path's folder is what it still shows (`.../internal`); one cut before
    any folder is listed with the others so cut, as printed."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for path, count in zip(paths, counts, strict=True):
        slash = path.rfind("/")
        if "{" in path or " => " in path:
            folder, name = ".", path
        elif is_cut(path) and (slash < 0 or path.find("/", len(CUT) + 1) < 0 or slash <= len(CUT)):
            folder, name = _CUT_BEFORE_FOLDERS, path
        elif slash < 0:
            folder, name = ".", path
        else:
            folder, name = path[:slash], path[slash + 1 :]
        groups.setdefault(folder, []).append((name, count))
    return list(groups.items())


def listing_paths(listing: bytes) -> list[str]:
    """Each path a stat, `--name-only` or `--name-status` listing prints (read as
    `read_listing` reads it, but as printed: a rename's two paths apart), and its summary."""
    found = []
    for raw in listing.splitlines():
        line = raw.rstrip(b"\r")
        if not line.strip() or line == b"---":
            continue
        bar = line.rfind(b" | ")
        status = NAME_STATUS_RE.fullmatch(line)
        if SUMMARY_RE.match(line):
            pieces = [line]
        elif line.startswith(b" ") and bar > 0 and _STAT_COUNT_RE.fullmatch(line[bar + 3 :]):
            pieces = [line[:bar]]
        elif status:
            pieces = [status.group(2), status.group(3) or b""]
        else:
            pieces = [line]
        found += [text for piece in pieces if (text := visible(piece).strip())]
    return found
