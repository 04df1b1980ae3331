"""Long listings (`ls -l`, `ls -la`, `ls -lR`) and `tree` drawings, as short listings.

`ls -l` prints one line per entry with a permission column (`drwxr-xr-x 2 user group
4096 Jan  1 12:00 name`), a `total N` line per folder, and with `-R` a `dir:` header
before each folder's block. An agent wants the folders, what is in them and the entries
that matter, not the owners and dates. The visible text has:

- a header: folders, files, symlinks and the total size of the files, as listed;
- one line per folder block, the `dir:` header kept as written: counts, total size, the
  largest files, notable entries (README, manifests, executables, symlinks `a -> b`) and,
  for small folders (`max_named_entries`, or names fitting in `max_named_bytes`), every
  entry by name; a single-folder listing names all its entries
  when they fit (`max_top_names`). Past `max_folder_lines` blocks, the folders with most
  entries keep their line and the others are named together, compactly, when they fit;
- lines that are none of these (`ls: cannot open directory …`) verbatim.

Rows led by an inode and a block count (`find -ls`, `ls -lis`) are read the same way.
`find` names paths rather than entries of a `dir:` block: its rows are gathered into one
block per folder, each entry named by its path as listed.

The `total` lines, owners, dates and links go behind refs. COARSE: one ref holds the whole
listing. FINE: one ref per folder block (its exact bytes, header to the next block), one
for the folders named together, one for the lines kept verbatim.

A `tree` drawing is turned into the paths it draws and summarised by the path-list tree
of `file_list`; its first and last lines (the root, "N directories, M files") stay, and
one ref holds the drawing.

Lines are parsed one by one in Python: long listings carry a dozen fields per line and
are far smaller than the path lists `file_list` folds with C-level passes.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from tokenlab.optimizers import Granularity, Omission, OptimizerConfig, OptimizeResult, Part, visible
from tokenlab.optimizers.file_list.parse import DEFAULT_LIMITS as FILE_LIMITS
from tokenlab.optimizers.file_list.parse import notable_names
from tokenlab.optimizers.lines.shapes import ANSI_RE
from tokenlab.patterns import compile_on_use

_DATE = (
    rb"(?:(?:[A-Z][a-z]{2}[ \t]+\d{1,2}|\d{1,2}[ \t]+[A-Za-z]{3}\.?)[ \t]+(?:\d{1,2}:\d\d|\d{4})"
    rb"|\d{4}-\d\d-\d\d(?:[ \t]+\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:[ \t]+[+-]\d{4})?)?)"
)
# mode, size, name: "-rw-r--r-- 1 root root 14020 Apr 28  2025 __init__.py" (also -h, -n,
# -g/-o with one owner column, --time-style=long-iso/full-iso, devices "8, 1").
_ROW = (
    rb"([-bcdlpsDnCM?])[-rwxsStTlL]{9}[.+@]?[ \t]+\d+[ \t]+(?:\S+[ \t]+){1,2}?"
    rb"(\d+(?:[.,]\d+)?[KMGTPEZY]?|\d+,[ \t]*\d+)[ \t]+" + _DATE + rb"[ \t](.*?)\r?"
)
_ENTRY_RE = compile_on_use(_ROW)
# The same row led by an inode and/or a block count: `find -ls`, `ls -lis`. The blanks
# after a count are taken whole: split between two counts, a long run was tried each way.
_COUNTED_ENTRY_RE = compile_on_use(rb"(?:[ \t]*+\d+(?:[.,]\d+)?[KMGTPEZY]?[ \t]++){0,2}" + _ROW)
_TOTAL_RE = compile_on_use(rb"total[ \t]+\d+(?:[.,]\d+)?[KMGTPEZY]?\r?")
_HEADER_RE = compile_on_use(rb"(\S.*):\r?")
_TREE_RE = compile_on_use(rb"^((?:(?:\xe2\x94\x82|\|)(?:\xc2\xa0|[ \t]){3}|    )*)(?:\xe2\x94\x9c|\xe2\x94\x94|\||`)(?:\xe2\x94\x80\xe2\x94\x80|--)[ \xc2\xa0]+(.*?)\r?$")
_UNITS = {b"K": 1 << 10, b"M": 1 << 20, b"G": 1 << 30, b"T": 1 << 40, b"P": 1 << 50, b"E": 1 << 60}
_SELF = (b".", b"..")


@dataclass(frozen=True)
class LongListingConfig:
    max_folder_lines: int = 120  # folder blocks with a line of their own
    max_folder_names: int = 1000  # other folders named together, compactly, when they fit
    max_named_entries: int = 12  # a folder with at most this many entries names them all
    max_named_bytes: int = 400  # ...as does one whose names fit in this many bytes
    max_top_names: int = 200  # ...and a listing of one folder names this many
    max_largest: int = 3
    max_notable: int = 8  # notable entries named per folder
    max_special: int = 30  # entries with special permissions shown as listed, per folder
    max_symlinks: int = 500  # symlinks named with their targets, per folder
    max_kept_lines: int = 20  # unrecognised lines (errors) kept verbatim
    line_width: int = 100  # names are packed several per line up to this width


DEFAULT_LIMITS = LongListingConfig()


@dataclass
class _Entry:
    mode: bytes  # `drwxr-xr-x`; its first character is the kind
    name: bytes  # as listed, colours removed; a symlink's is `name -> target`
    size: int
    line: bytes = b""  # the entry's line as listed, colours removed
    raw: bytes = b""  # the entry's line exactly as listed

    @property
    def kind(self) -> bytes:
        return self.mode[:1]

    @property
    def executable(self) -> bool:
        return self.kind == b"-" and b"x" in self.mode[1:]

    @property
    def special(self) -> bool:
        """setuid or setgid, or writable by anyone (a symlink always shows `rwx`)."""
        mode = self.mode
        return mode[3:4] in (b"s", b"S") or mode[6:7] in (b"s", b"S") or (mode[8:9] == b"w" and self.kind != b"l")


@dataclass
class _Block:
    header: bytes | None
    start: int  # byte span of the block in the input, up to the next block's header
    end: int = 0
    total: bytes = b""  # the block's `total N` line
    entries: list[_Entry] = field(default_factory=list)
    rows: bytes = b""  # a block gathered from rows apart (`find -ls`): its rows, in order

    @property
    def shown(self) -> list[_Entry]:
        return [entry for entry in self.entries if entry.name not in _SELF]


def looks_like_long_listing(data: bytes) -> bool:
    """True if most non-empty lines are `ls -l` entries, `total` lines or `dir:` headers."""
    return _mostly_rows(data, _ENTRY_RE)


def looks_like_counted_long_listing(data: bytes) -> bool:
    """True if most non-empty lines are long-listing rows led by an inode and/or a block
    count (`find -ls`, `ls -lis`), which `looks_like_long_listing` leaves out."""
    return not _mostly_rows(data, _ENTRY_RE) and _mostly_rows(data, _COUNTED_ENTRY_RE)


def _mostly_rows(data: bytes, row: re.Pattern[bytes]) -> bool:
    lines = [line for line in data[: 64 * 1024].split(b"\n") if line.strip()]
    if len(data) > 64 * 1024 and len(lines) > 1:
        lines.pop()  # the sample may end mid-line
    # Each distinct line is matched once, weighed by how often it occurs: output of many
    # short lines repeats them.
    counts = Counter(lines)
    entries = sum(count for line, count in counts.items() if len(line) < 8192 and row.fullmatch(line))
    other = sum(
        count for line, count in counts.items() if _TOTAL_RE.fullmatch(line) or line.endswith((b":", b":\r"))
    )
    return entries >= 3 and entries + other >= 0.8 * len(lines)


def looks_like_tree(data: bytes) -> bool:
    """True if most lines are `tree` drawing lines (`├── name`, `│   └── name`)."""
    lines = [line for line in data[: 64 * 1024].split(b"\n") if line.strip()]
    drawn = sum(count for line, count in Counter(lines).items() if _TREE_RE.match(line))
    return drawn >= 5 and drawn >= 0.8 * (len(lines) - 3)


def _size(text: bytes) -> int:
    if b"," in text and text.replace(b" ", b"").replace(b",", b"").isdigit():
        return 0  # a device's "major, minor"
    unit = _UNITS.get(text[-1:], 1)
    number = text.rstrip(b"KMGTPEZY").replace(b",", b".")
    try:
        return int(float(number) * unit)
    except ValueError:
        return 0


def _human(size: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"


def _parse(data: bytes) -> tuple[list[_Block], list[bytes]]:
    """Folder blocks in listing order, and the lines that are not part of any block's shape."""
    blocks = [_Block(None, 0)]
    kept: list[bytes] = []
    lines = data.split(b"\n")
    offset = 0
    for at, line in enumerate(lines):
        entry = _COUNTED_ENTRY_RE.fullmatch(line) if len(line) < 8192 else None
        if entry:
            _kind, size, name = entry.groups()
            mode = line[entry.start(1) : entry.start(1) + 10]
            plain = ANSI_RE.sub(b"", line.rstrip(b"\r")) if b"\x1b" in line else line.rstrip(b"\r")
            name = ANSI_RE.sub(b"", name) if b"\x1b" in name else name
            blocks[-1].entries.append(_Entry(mode, name, _size(size), plain, line))
        elif _HEADER_RE.fullmatch(line) and _block_follows(lines, at + 1, blocks[-1]):
            header = line.rstrip(b"\r")[:-1]
            if blocks[-1].entries or blocks[-1].header is not None or offset:
                blocks.append(_Block(header, offset))
            else:
                blocks[-1].header = header
        elif _TOTAL_RE.fullmatch(line):
            blocks[-1].total = blocks[-1].total or line
        elif line.strip():
            kept.append(line)
        offset += len(line) + 1
    for block, following in zip(blocks, blocks[1:] + [None]):
        block.end = following.start if following else len(data)
    return [block for block in blocks if block.shown or block.header is not None], kept


def _by_folder(block: _Block) -> list[_Block]:
    """Rows naming paths (`find -ls`) as one block per folder, entries in listing order:
    the shape `ls -lR` prints, so that both read the same. Names stay the paths as
    listed; a row naming no folder (the starting point) stays in a block of its own."""
    folders: dict[bytes | None, _Block] = {}
    for entry in block.entries:
        path = entry.name.split(b" -> ", 1)[0].rstrip(b"/")
        parent, slash, _name = path.rpartition(b"/")
        header = (parent or b"/") if slash else None
        folders.setdefault(header, _Block(header, 0)).entries.append(entry)
    for folder in folders.values():
        folder.rows = b"\n".join(entry.raw for entry in folder.entries) + b"\n"
    return [folder for folder in folders.values() if folder.shown or folder.header is not None]


def _names_paths(block: _Block) -> bool:
    """A block without a `dir:` header whose entries are mostly named by paths."""
    entries = block.shown
    paths = sum(1 for entry in entries if b"/" in entry.name.split(b" -> ", 1)[0])
    return block.header is None and paths > 0 and paths >= 0.8 * len(entries)


def _block_follows(lines: list[bytes], at: int, current: _Block) -> bool:
    """A `dir:` header starts a block: a `total` line or an entry comes next (ls -R)."""
    nxt = lines[at] if at < len(lines) else b""
    return bool(_TOTAL_RE.fullmatch(nxt) or (len(nxt) < 8192 and _COUNTED_ENTRY_RE.fullmatch(nxt)))


def _entry_name(entry: _Entry) -> str:
    name = visible(entry.name)
    return name + "/" if entry.kind == b"d" else name


def _pack(names: list[str], width: int, pad: str) -> str:
    """Names joined by ", ", wrapped into lines of about `width` characters."""
    lines, current = [], ""
    for name in names:
        if current and len(current) + len(name) + 2 > width:
            lines.append(current + ",")
            current = name
        else:
            current = f"{current}, {name}" if current else name
    lines.append(current)
    return f"\n{pad}".join(lines)


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("s" if count != 1 else "")


def _counts(block: _Block) -> str:
    entries = block.shown
    files = [entry for entry in entries if entry.kind == b"-"]
    words = [f"{len(files):,} file" + ("s" if len(files) != 1 else "")]
    folders = sum(1 for entry in entries if entry.kind == b"d")
    links = sum(1 for entry in entries if entry.kind == b"l")
    other = len(entries) - len(files) - folders - links
    if folders:
        words.append(f"{folders:,} folder" + ("s" if folders != 1 else ""))
    if links:
        words.append(f"{links:,} symlink" + ("s" if links != 1 else ""))
    if other:
        words.append(f"{other:,} other")
    words.append(_human(sum(entry.size for entry in files)))
    return ", ".join(words)


def _details(block: _Block, limits: LongListingConfig, notable: frozenset[bytes], prefixes: tuple[bytes, ...], names_cap: int, recursive: bool) -> list[str]:
    entries = block.shown
    names = [_entry_name(entry) for entry in entries]
    if len(names) <= limits.max_named_entries or sum(len(name) + 2 for name in names) <= limits.max_named_bytes:
        return [_pack(names, limits.line_width, "    ")] if entries else []
    files = [entry for entry in entries if entry.kind == b"-"]
    largest = sorted(files, key=lambda entry: -entry.size)[: limits.max_largest]
    parts = _special_parts(entries, limits)
    if largest:
        parts.append("largest: " + ", ".join(f"{visible(entry.name)} ({_human(entry.size)})" for entry in largest))
    executables = sum(entry.executable for entry in files)
    picked = [
        visible(entry.name) + ("*" if entry.executable else "")
        for entry in entries
        if entry.kind != b"l"
        and (
            (base := entry.name.rpartition(b"/")[2]) in notable
            or base.startswith(prefixes)
            or (entry.executable and executables <= len(files) // 2)
        )
    ]
    links = [visible(entry.name) for entry in entries if entry.kind == b"l"]
    if picked or links:
        # Every symlink with its target (up to `max_symlinks`): where a name really leads.
        more = len(picked) - limits.max_notable
        named = picked[: limits.max_notable] + ([f"… {more:,} more"] if more > 0 else [])
        more_links = len(links) - limits.max_symlinks
        named += links[: limits.max_symlinks] + ([f"… {more_links:,} more symlinks"] if more_links > 0 else [])
        parts.append("notable: " + _pack(named, limits.line_width, "    "))
    if len(entries) <= names_cap:
        parts.append("entries: " + _pack(names, limits.line_width, "    "))
        return parts
    folders = [_entry_name(entry) for entry in entries if entry.kind == b"d"]
    if folders and not recursive:
        more = len(folders) - limits.max_top_names
        parts.append("folders: " + _pack(folders[: limits.max_top_names], limits.line_width, "    ") + (f", … {more:,} more" if more > 0 else ""))
    return parts


def _special_parts(entries: list[_Entry], limits: LongListingConfig) -> list[str]:
    """Entries with special permissions (setuid, setgid, writable by anyone), as listed:
    the first thing a reviewer of a folder's permissions looks for."""
    special = [entry for entry in entries if entry.special]
    if not special:
        return []
    more = len(special) - limits.max_special
    shown = [visible(entry.line) for entry in special[: limits.max_special]]
    return ["special permissions (setuid, setgid, world-writable):", *shown] + ([f"… {more:,} more"] if more > 0 else [])


def optimize_long(data: bytes, config: OptimizerConfig, limits: LongListingConfig = DEFAULT_LIMITS) -> OptimizeResult:
    blocks, kept = _parse(data)
    paths = len(blocks) == 1 and _names_paths(blocks[0])
    if paths:
        blocks = _by_folder(blocks[0])
    notable, prefixes = notable_names(FILE_LIMITS)
    recursive = len(blocks) > 1
    names_cap = limits.max_named_entries if recursive else limits.max_top_names
    entries = [entry for block in blocks for entry in block.shown]
    files = [entry for entry in entries if entry.kind == b"-"]
    links = sum(1 for entry in entries if entry.kind == b"l")
    folders = len(blocks) if recursive else sum(1 for entry in entries if entry.kind == b"d")
    where = f" of {visible(blocks[0].header)}" if blocks and blocks[0].header and not recursive else ""
    parts: list[Part] = [
        (
            f"{'find -ls' if paths else 'ls -l'} listing{where}: {_plural(folders, 'folder')}, {_plural(len(files), 'file')}, "
            f"{_plural(links, 'symlink')}, {_human(sum(entry.size for entry in files))} in files (sizes as listed)\n"
        )
    ]
    if not recursive and blocks and blocks[0].total:
        parts.append(visible(blocks[0].total.rstrip(b"\r")) + "\n")  # ls's own count, in blocks
    fine = config.granularity is Granularity.FINE
    ranked = sorted(range(len(blocks)), key=lambda at: (-len(blocks[at].entries), at))
    detailed = set(ranked[: limits.max_folder_lines])
    for at, block in enumerate(blocks):
        if at not in detailed:
            continue
        title = visible(block.header) + ": " if block.header is not None else ""
        details = _details(block, limits, notable, prefixes, names_cap, recursive)
        # One folder: the listing's header line already gives its counts.
        lines = [f"{title}{_counts(block)}"] + ["  " + part for part in details] if recursive else details
        parts.append("\n".join(lines))
        if fine:
            rows = block.rows or data[block.start : block.end]
            parts += [" ", Omission(rows, f"ls -l block {title or 'listing'}exactly as listed")]
        parts.append("\n")
    rest = [block for at, block in enumerate(blocks) if at not in detailed]
    if rest:
        root = _common_root([block.header or b"" for block in blocks])
        names = [visible((block.header or b"")[len(root) :]) for block in rest[: limits.max_folder_names]]
        more = len(rest) - len(names)
        under = f" under {visible(root)}" if root else ""
        parts.append(f"other folders{under} ({len(rest):,}, {sum(len(b.shown) for b in rest):,} entries):\n  ")
        parts.append(_pack(names, limits.line_width, "  ") + (f", … {more:,} more" if more > 0 else ""))
        if fine:
            rows = b"".join(b.rows or data[b.start : b.end] for b in rest)
            parts += [" ", Omission(rows, "ls -l blocks of the other folders")]
        parts.append("\n")
    shown_kept = kept[: limits.max_kept_lines]
    parts += [visible(line.rstrip(b"\r")) + "\n" for line in shown_kept]
    if len(kept) > len(shown_kept):
        parts.append(f"… {len(kept) - len(shown_kept):,} more unrecognised lines\n")
    if not fine:
        line_count = data.count(b"\n") + (not data.endswith(b"\n"))
        parts += ["full listing: ", Omission(data, f"full ls -l listing, {line_count:,} lines"), "\n"]
    elif blocks and blocks[0].start:  # lines before the first block (errors, a leading blank)
        parts += ["lines before the first folder: ", Omission(data[: blocks[0].start], "lines before the first folder"), "\n"]
    return OptimizeResult(tuple(parts))


def _common_root(headers: list[bytes]) -> bytes:
    """The folder, ending in "/", that every header is under, if any."""
    low, high = min(headers, default=b""), max(headers, default=b"")
    shared = 0
    while shared < min(len(low), len(high)) and low[shared] == high[shared]:
        shared += 1
    if shared == len(low) and high[shared : shared + 1] in (b"/", b""):
        return low.rstrip(b"/") + b"/" if low else b""
    return low[: low.rfind(b"/", 0, shared) + 1]


def tree_paths(data: bytes) -> tuple[bytes, bytes, bytes]:
    """(first line, paths one per line, last line) of a `tree` drawing; the paths are
    relative to the drawn root, folders being the ones that have entries under them."""
    lines = data.split(b"\n")
    paths: list[bytes] = []
    stack: list[bytes] = []
    for line in lines:
        match = _TREE_RE.match(line)
        if not match:
            continue
        depth = len(match.group(1).replace(b"\xe2\x94\x82", b"|").replace(b"\xc2\xa0", b" ")) // 4
        del stack[depth:]
        stack.append(match.group(2).split(b" -> ", 1)[0])
        if paths and paths[-1].count(b"/") + 1 == depth and stack[:-1] == paths[-1].split(b"/"):
            paths.pop()  # the previous entry has children: it is a folder, not a file
        paths.append(b"/".join(stack))
    body = [line for line in lines if line.strip()]
    first = body[0] if body and not _TREE_RE.match(body[0]) else b""
    last = body[-1] if len(body) > 1 and not _TREE_RE.match(body[-1]) else b""
    return first, b"\n".join(paths) + b"\n", last
