"""The diff optimizer's parser: a unified or combined diff read into per-file sections.

A line-based state machine driven by the hunk headers' line counts, so a removed line that
starts with `-- ` is never taken for a file header; a combined diff's hunks (`@@@`) are
walked by their prefix columns. It never raises: whatever it does not recognise ends a
section and stays visible. Split out of `diff.py`, which decides and renders.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from itertools import accumulate, repeat
from operator import add

from tokenlab.patterns import compile_on_use

_HUNK_RE = compile_on_use(rb"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_COMBINED_HUNK_RE = compile_on_use(rb"(@{3,}) -")
_INDEX_RE = compile_on_use(rb"index [0-9a-f]+(?:,[0-9a-f]+)*\.\.[0-9a-f]+(?: [0-7]+)?\r?\Z")


class Header(Enum):
    META = "meta"  # always folded
    NAMING = "naming"  # folded when `---`/`+++` name the files anyway
    KEPT = "kept"
    BINARY_NOTICE = "binary notice"  # `Binary files a/x and b/x differ` names the file
    OLD_PATH = "old path"
    NEW_PATH = "new path"
    BINARY_PATCH = "binary patch"


_HEADER_PREFIXES: tuple[tuple[bytes, Header], ...] = (
    (b"similarity index ", Header.META),
    (b"dissimilarity index ", Header.META),
    (b"new file mode 100644", Header.NAMING),
    (b"deleted file mode 100644", Header.NAMING),
    (b"rename from ", Header.NAMING),
    (b"rename to ", Header.NAMING),
    (b"new file mode ", Header.KEPT),
    (b"deleted file mode ", Header.KEPT),
    (b"old mode ", Header.KEPT),
    (b"new mode ", Header.KEPT),
    (b"copy from ", Header.KEPT),
    (b"copy to ", Header.KEPT),
    (b"Binary files ", Header.BINARY_NOTICE),
    (b"GIT binary patch", Header.BINARY_PATCH),
)


def _header_kind(line: bytes) -> Header | None:
    if line.startswith(b"index "):
        return Header.META if _INDEX_RE.match(line) else None
    for prefix, kind in _HEADER_PREFIXES:
        if line.startswith(prefix):
            return kind
    return None


@dataclass(slots=True)
class Section:
    """One file's part of the diff: line index range plus what the renderer needs."""

    start: int
    end: int = 0
    git: bool = False
    diff_line: int = -1
    combined: bool = False  # `diff --cc`: a file in the middle of a merge, said on that line
    old_path: bytes = b""
    new_path: bytes = b""
    has_path_lines: bool = False
    binary_notice: bool = False
    meta_lines: list[int] = field(default_factory=list)
    naming_lines: list[int] = field(default_factory=list)
    body_start: int = -1
    near_top: bool = False
    binary_patch: bool = False
    added: int = 0
    removed: int = 0
    # Unchanged context runs, four ints each: first line, line after, and whether a change
    # comes before and after it in the hunk. Flat, so a batch of files is cut in C-level maps.
    runs: list[int] = field(default_factory=list)
    # Hunks, two ints each: the `@@` header line and the line after the hunk's body.
    hunks: list[int] = field(default_factory=list)


class Lines:
    """Input bytes [start, end) split on b"\\n" only, with where each line starts."""

    def __init__(self, data: bytes, start: int = 0, end: int | None = None) -> None:
        self.start = start
        self.end = len(data) if end is None else end
        self.items = data[start : self.end].split(b"\n")
        if data[start : self.end].endswith(b"\n"):
            self.items.pop()
        self.count = len(self.items) if self.end > start else 0
        # before[i]: bytes of the lines before line i, newlines excluded.
        self.before = array("q", accumulate(map(len, self.items), initial=0))

    def offsets(self, lines: Sequence[int]) -> array[int]:
        """Where each line starts in the input (the end, past the last line): 8 bytes each,
        where a list of ints takes 40 (a large diff's cuts are millions)."""
        at = map(add, map(self.before.__getitem__, lines), lines)
        return array("q", map(min, map(add, at, repeat(self.start)), repeat(self.end)))


def scan(lines: Lines) -> Iterator[Section]:
    items, count = lines.items, lines.count
    i = 0
    while i < count:
        line = items[i]
        starts = line.startswith((b"diff ", b"@@")) or (
            line.startswith(b"--- ") and i + 1 < count and items[i + 1].startswith(b"+++ ")
        )
        if not starts:
            i += 1
            continue
        section = _parse_section(items, i, count)
        yield section
        i = section.end


def _parse_section(items: list[bytes], i: int, count: int) -> Section:
    section = Section(start=i)
    if items[i].startswith(b"diff "):
        section.git = items[i].startswith(b"diff --git ")
        section.combined = items[i].startswith((b"diff --cc ", b"diff --combined "))
        section.diff_line = i
        if section.git:
            section.new_path = _git_line_path(items[i])
        i += 1
    i = _parse_headers(items, i, count, section)
    if i < count and items[i].startswith(b"@@"):
        section.body_start = i
        section.near_top = _starts_near_top(items[i])
        while i < count and items[i].startswith(b"@@"):
            header, i = i, _walk_hunk(items, i, count, section)
            section.hunks += (header, i)
    section.end = max(i, section.start + 1)
    return section


def _parse_headers(items: list[bytes], i: int, count: int, section: Section) -> int:
    while i < count:
        line = items[i]
        if line.startswith(b"--- "):
            if section.has_path_lines or i + 1 >= count or not items[i + 1].startswith(b"+++ "):
                return i
            section.has_path_lines = True
            prefixed = section.git or section.combined  # git writes a/ and b/ in both
            section.old_path = _path_from_header(line, b"a/" if prefixed else b"")
            section.new_path = _path_from_header(items[i + 1], b"b/" if prefixed else b"")
            return i + 2  # only hunks follow the +++ line
        kind = _header_kind(line)
        if kind is None:
            return i
        if kind is Header.META:
            section.meta_lines.append(i)
        elif kind is Header.BINARY_NOTICE:
            section.binary_notice = True
        elif kind is Header.NAMING:
            section.naming_lines.append(i)
        elif kind is Header.BINARY_PATCH:
            section.binary_patch = True
            i += 1
            while i < count and not items[i].startswith(b"diff "):
                i += 1
            return i
        i += 1
    return i


def _walk_hunk(items: list[bytes], i: int, count: int, section: Section) -> int:
    """Consume one hunk starting at its `@@` line; return the index after it."""
    hunk = _HUNK_RE.match(items[i])
    if hunk:
        old_left = 1 if hunk[2] is None else int(hunk[2])
        new_left = 1 if hunk[4] is None else int(hunk[4])
        return _walk_counted(items, i + 1, count, section, old_left, new_left)
    combined = _COMBINED_HUNK_RE.match(items[i])
    width = len(combined[1]) - 1 if combined else 1
    return _walk_prefixed(items, i + 1, count, section, width)


def _walk_counted(
    items: list[bytes], i: int, count: int, section: Section, old_left: int, new_left: int
) -> int:
    run_start = -1
    seen_change = False
    while i < count:
        line = items[i]
        first = line[:1]
        if old_left > 0 and new_left > 0 and (first == b" " or line in (b"", b"\r")):
            old_left -= 1
            new_left -= 1
            if run_start < 0:
                run_start = i
            i += 1
            continue
        if first == b"-" and old_left > 0:
            old_left -= 1
            section.removed += 1
        elif first == b"+" and new_left > 0:
            new_left -= 1
            section.added += 1
        elif first != b"\\":
            break
        if run_start >= 0:
            section.runs += (run_start, i, seen_change, True)
            run_start = -1
        seen_change = True
        i += 1
    if run_start >= 0:
        section.runs += (run_start, i, seen_change, not seen_change)
    return i


def _walk_prefixed(items: list[bytes], i: int, count: int, section: Section, width: int) -> int:
    """Hunks without usable counts (combined diffs): columns of ' ', '+', '-' per parent."""
    context = b" " * width
    run_start = -1
    seen_change = False
    while i < count:
        line = items[i]
        prefix = line[:width]
        if prefix == context:
            if run_start < 0:
                run_start = i
            i += 1
            continue
        if len(prefix) < width or prefix.strip(b" +-") and not prefix.startswith(b"\\"):
            break
        section.added += b"+" in prefix
        section.removed += b"-" in prefix
        if run_start >= 0:
            section.runs += (run_start, i, seen_change, True)
            run_start = -1
        seen_change = True
        i += 1
    if run_start >= 0:
        section.runs += (run_start, i, seen_change, not seen_change)
    return i


def _starts_near_top(hunk_header: bytes) -> bool:
    """Whether the hunk shows a file's first lines, where "generated" banners live."""
    hunk = _HUNK_RE.match(hunk_header)
    return hunk is not None and (int(hunk[1]) <= 3 or int(hunk[3]) <= 3)


def _path_from_header(line: bytes, prefix: bytes) -> bytes:
    path = line[4:].split(b"\t", 1)[0].rstrip(b"\r")
    if path == b"/dev/null":
        return b""
    return path[len(prefix) :] if prefix and path.startswith(prefix) else path


def _git_line_path(line: bytes) -> bytes:
    """The b-side path of `diff --git a/X b/Y` (X and Y may differ on renames)."""
    rest = line[len(b"diff --git ") :].rstrip(b"\r")
    _, sep, new = rest.rpartition(b" b/")
    return new if sep else rest
