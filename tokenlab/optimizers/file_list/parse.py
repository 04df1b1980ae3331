"""The file-list optimizer's model: its limits (`FileListConfig`), the parse of a listing
into a `Listing` (common root, a tree of counts held flat in a `FolderTable`, the spans
of the lines naming notable files), and the rules both views share: which folders are set
aside (vendored, build output, hidden), which names are notable, and how a large listing
is cut into line-aligned slices.

Counting is done by one regex pass that yields (folder, extension) per line and, slice by
slice, a `Counter` over those pairs, so the per-path work stays in C; only each slice's
distinct folders are looked up in the table. A second pass splits the lines once to find
folder entries and notable file names with set lookups and C-level maps. Each pass gives
back the pages of a mapped listing as it goes: what a listing costs is its folders (about
80 bytes each), not its bytes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, compress, repeat
from operator import itemgetter, or_

from tokenlab.mapped import ends_with, let_go
from tokenlab.optimizers.file_list.folders import MAX_DEPTH, Folder, FolderTable, after_kept_names
from tokenlab.patterns import compile_on_use


@dataclass(frozen=True)
class FileListConfig:
    small_listing_lines: int = 40  # shorter listings stay verbatim
    max_depth: int = 4  # deepest folder level the tree shows (chains of lone folders count once)
    max_tree_lines: int = 60  # folder lines in the tree; the largest folders are expanded first
    max_children: int = 12  # subfolders shown under one folder; the rest are summed on one line
    max_exts: int = 3  # extensions named on a folder line; the rest are "other"
    max_notable: int = 64
    max_top_names: int = 200  # a root holding at most this many files names them all, sorted
    max_top_files: int = 20  # ...else this many are named, in listing order
    notable_names: tuple[str, ...] = (
        "pyproject.toml", "setup.py", "setup.cfg", "package.json", "Cargo.toml", "go.mod",
        "Makefile", "CMakeLists.txt", "Dockerfile", "tsconfig.json", "pom.xml",
        "build.gradle", "build.gradle.kts", "Gemfile", "composer.json", "pnpm-workspace.yaml",
        "tox.ini", "noxfile.py", "Pipfile", "environment.yml", "Justfile", "Procfile",
        "CODEOWNERS", ".gitlab-ci.yml", "Jenkinsfile", "deno.json", "mix.exs", "flake.nix",
    )  # fmt: skip
    notable_prefixes: tuple[str, ...] = (
        "README", "LICENSE", "LICENCE", "COPYING", "Dockerfile.", "docker-compose",
        "compose.y", "requirements", "CONTRIBUTING", "SECURITY", "CHANGELOG",
    )  # fmt: skip
    # Paths under these folders are never "notable": vendored code repeats the same manifests.
    vendor_dirs: tuple[str, ...] = (
        "node_modules", ".git", "vendor", "site-packages", "dist-packages", ".venv", "venv",
        "__pycache__", ".tox", ".mypy_cache", "target", "third_party",
    )  # fmt: skip
    # Set aside with vendored folders: built files, named after the sources a reader wants.
    # (Not skipped by `notable`: a build tree such as llvm's `build/` holds real manifests.)
    build_dirs: tuple[str, ...] = ("dist", "build", "out", "coverage")
    # Hidden folders are tool state (`.cache/`, `.idea/`), set aside, except these, which hold
    # the project's own configuration.
    project_dot_dirs: tuple[str, ...] = (".github", ".gitlab", ".circleci", ".devcontainer", ".husky")
    max_named_chars: int = 80  # a folder line names its files when they say in this many characters
    max_named_files: int = 200  # ...and folders holding more files are not looked at for names


DEFAULT_LIMITS = FileListConfig()


# One match per line: the folder part (without a leading "./") and the extension, if any.
# The extension needs one character before its dot, so ".gitignore" has none. Greedy runs
# that backtrack to the last "/" and "." keep this linear even on a 5 MB line.
ENTRY_RE = compile_on_use(rb"^(?:\./)?([^\n]*/)?(?:[^/\n][^/\n]*(\.[^./\n\r]+)\r?$|[^/\n]*$)", re.MULTILINE)
_CHUNK_BYTES = 1 << 20
_MAX_PATH_BYTES = 4096  # PATH_MAX: longer "paths" are not checked for folder entries
_BLANK_RE = compile_on_use(rb"^[ \t]*\r?$", re.MULTILINE)
# A blank line after the line break that leads it: looked for as fast as a word, where
# `_BLANK_RE` was tried at every byte (0.12 s on a 20 MB listing, against 0.02 s).
_BLANK_AFTER_BREAK_RE = compile_on_use(rb"\n[ \t]*+\r?(?![^\n])")
EXT_OK_RE = compile_on_use(rb"\.[A-Za-z0-9_+-]{1,10}")


@dataclass(frozen=True)
class Listing:
    root: bytes
    tree: Folder
    paths: int
    extensions: Counter[bytes]
    notable: list[tuple[int, int]]  # (start, end) of each line naming a notable file


@lru_cache(maxsize=8)
def set_aside_re(limits: FileListConfig) -> re.Pattern[bytes]:
    """Finds, in a folder path ending in "/", the first vendored, build or hidden folder."""
    named = "|".join(re.escape(name) for name in (*limits.vendor_dirs, *limits.build_dirs))
    own = "|".join(re.escape(name[1:]) for name in limits.project_dot_dirs if name.startswith("."))
    hidden = rf"\.(?!(?:{own})/)[^./][^/]*" if own else r"\.[^./][^/]*"
    return re.compile(rf"(?:^|/)(?:{named}|{hidden})/".encode())


def chunks(data: bytes) -> Iterator[tuple[int, int]]:
    """(start, end) of line-aligned slices of about `_CHUNK_BYTES`, final newline excluded.

    Working slice by slice keeps the per-line lists a regex or split builds small, and
    lets a pass give back a mapped listing's pages as it goes: memory does not grow with
    the listing's bytes, only with its folders.
    """
    size = len(data) - ends_with(data, b"\n")
    start = 0
    while start < size:
        cut = data.find(b"\n", start + _CHUNK_BYTES, size)
        end = size if cut < 0 else cut
        yield start, end
        start = end + 1


def parse(data: bytes, limits: FileListConfig) -> Listing:
    table, notable, root = _counted(data, limits, b"")
    if table.capped and root != table.base:  # the depth limit counts names below the root
        table, notable, root = _counted(data, limits, root)
    top = table.folder_id(root, {}, create=False)
    empty = table.child(top, b"", create=False)
    if empty >= 0:  # the root then "/" (`/x` at the top) is an empty path below the root: the root
        table.move_direct_files(empty, top)
    table.total()
    return Listing(root, Folder(table, top, top), table.files[top], table.extensions(), notable)


def _counted(
    data: bytes, limits: FileListConfig, base: bytes
) -> tuple[FolderTable, list[tuple[int, int]], bytes]:
    """The folders under `base` with their direct counts, folder entries and blank lines taken
    out; the spans of the notable lines; and the common root of the folders holding files."""
    table, folders, blank_pair = _count_pairs(data, base)
    notable, present = _scan_lines(data, table, limits)
    emptied = _take_out(table, present)
    if blank_pair and not base:  # blank lines match as top-level files without an extension
        table.add(0, b"", -_blank_count(data))
        emptied.append(0)
    if any(table.direct[node] == 0 for node in emptied):  # a folder of folder entries only
        folders = [base + table.path(node) for node in range(len(table)) if table.direct[node] > 0]
    return table, notable, common_folder(folders)


def _count_pairs(data: bytes, base: bytes) -> tuple[FolderTable, list[bytes], int]:
    """One regex pass: each line's folder and extension, counted per slice in C and added
    to the table. Also the least and greatest folder (which bound the common root) and how
    many lines matched as a top-level file without an extension (blank lines do)."""
    table = FolderTable(base)
    bounds: list[bytes] = []
    blank_pair = 0
    for start, end in chunks(data):
        pairs = Counter(ENTRY_RE.findall(data, start, end))
        let_go(data, start, end)
        known: dict[bytes, int] = {}
        for (folder, ext), count in pairs.items():
            node = table.folder_id(folder, known)
            if node >= 0:
                table.add(node, ext if EXT_OK_RE.fullmatch(ext) else b"", count)
                bounds = [min(bounds[0], folder), max(bounds[1], folder)] if bounds else [folder, folder]
        blank_pair += pairs.get((b"", b""), 0)
    return table, bounds, blank_pair


def _take_out(table: FolderTable, present: set[bytes]) -> list[int]:
    """Take each distinct folder entry line out of the count it was added to; the folders
    it was taken from."""
    known: dict[bytes, int] = {}
    emptied = []
    for form in present:
        match = ENTRY_RE.match(form)
        if match:
            node = table.folder_id(match.group(1) or b"", known, create=False)
            if node >= 0:
                ext = match.group(2) or b""
                table.add(node, ext if EXT_OK_RE.fullmatch(ext) else b"", -1)
                emptied.append(node)
    return emptied


def _blank_count(data: bytes) -> int:
    blank = 0
    for start, end in chunks(data):
        blank += _blank_lines(data, start, end)
        let_go(data, start, end)
    return blank


def _blank_lines(data: bytes, start: int, end: int) -> int:
    """How many lines of data[start:end], which starts a line, are blank."""
    if start:  # the line break before `start` leads its first line
        return len(_BLANK_AFTER_BREAK_RE.findall(data, start - 1, end))
    return (_BLANK_RE.match(data, 0, end) is not None) + len(_BLANK_AFTER_BREAK_RE.findall(data, 0, end))


def _scan_lines(
    data: bytes, table: FolderTable, limits: FileListConfig
) -> tuple[list[tuple[int, int]], set[bytes]]:
    """One pass over the listing's lines, each slice split once: the (start, end) of each
    line naming a notable file, and the distinct lines that name a folder of `table`."""
    names, prefixes = notable_names(limits)
    present: set[bytes] = set()
    notable: list[tuple[int, int]] = []
    above = _entries_above(table.base)
    for start, end in chunks(data):
        piece = data[start:end]
        lines = piece.split(b"\n")
        notable += _notable_lines(data, start, end, lines, names, prefixes)
        let_go(data, start, end)
        present.update(_entry_lines(lines, table, above, b"\r" in piece))
    return notable, present


def _entries_above(base: bytes) -> set[bytes]:
    """How the root's own line and those of `base` and the folders above it may read."""
    return {b".", b"./"} | _forms(base, 0)


def _entry_lines(lines: list[bytes], table: FolderTable, above: set[bytes], with_cr: bool) -> Iterator[bytes]:
    """The lines that are a folder entry (`find` without `-type f` prints folders too,
    which were counted as files), perhaps led by `./` and ended by a CR (which only lines
    holding a CR can be): a folder's path, with or without its final "/"."""
    bare = list(map(bytes.removeprefix, lines, repeat(b"./")))
    variants = [lines, bare]
    if with_cr:
        variants += [list(map(bytes.removesuffix, variant, repeat(b"\r"))) for variant in (lines, bare)]
    entries = _entries_near(lines, table, above)
    named = map(any, zip(*(map(entries.__contains__, variant) for variant in variants)))
    return compress(lines, named)


def _entries_near(lines: list[bytes], table: FolderTable, above: set[bytes]) -> set[bytes]:
    """The forms of every folder one of these lines can name: a line names a subfolder of
    its own folder, or (ending in "/") of that folder's parent. The folders the lines are
    in are found in C and each looked up once."""
    folders = set(map(itemgetter(0), map(bytes.rpartition, lines, repeat(b"/"))))
    folders = {form for folder in folders for form in (folder, folder.removeprefix(b"./"))}
    parents = {folder[: folder.rfind(b"/") + 1] for folder in folders} | {folder + b"/" for folder in folders}
    entries = set(above)
    known: dict[bytes, int] = {}
    for folder in {_within_depth(parent, table.base) for parent in parents}:
        node = table.folder_id(folder, known, create=False)
        for child in table.all_children(node) if node >= 0 else ():
            entries.update(_forms(folder + table.name(child) + b"/", len(folder)))
    return entries


def _within_depth(folder: bytes, base: bytes) -> bytes:
    """A folder, or, if it lies deeper than the table splits paths, its deepest split
    ancestor, whose last names hold the rest of every path below it."""
    if folder.count(b"/", len(base)) <= MAX_DEPTH:
        return folder
    return folder[: after_kept_names(folder, len(base))]


def _forms(path: bytes, start: int) -> set[bytes]:
    """Each folder path that ends at a "/" of `path` after `start`, with and without it."""
    forms: set[bytes] = set()
    end = path.find(b"/", start, _MAX_PATH_BYTES)
    while end >= 0:
        forms.update({path[: end + 1], path[:end]} - {b""})
        end = path.find(b"/", end + 1, _MAX_PATH_BYTES)
    return forms


def common_folder(folders: list[bytes]) -> bytes:
    """The longest folder prefix shared by all folders (min and max bound every other)."""
    if not folders:
        return b""
    low, high = min(folders), max(folders)
    shared, limit = 0, min(len(low), len(high))
    while shared < limit:  # binary search on prefix length: C-level compares, no char loop
        step = (limit - shared + 1) // 2
        if low[: shared + step] == high[: shared + step]:
            shared += step
        else:
            limit = shared + step - 1
    return low[: low.rfind(b"/", 0, shared) + 1]


@lru_cache(maxsize=8)
def notable_names(limits: FileListConfig) -> tuple[frozenset[bytes], tuple[bytes, ...]]:
    """File names that are notable as they stand (also with a CR after them), and prefixes."""
    names = [name.encode() for name in limits.notable_names]
    return frozenset(names + [name + b"\r" for name in names]), tuple(
        p.encode() for p in limits.notable_prefixes
    )


_WORKFLOW = b".github/workflows/"


def _in_workflows(folder: bytes) -> bool:
    return folder == _WORKFLOW or folder.endswith(b"/" + _WORKFLOW)


def _notable_lines(
    data: bytes,
    start: int,
    end: int,
    lines: list[bytes],
    names: frozenset[bytes],
    prefixes: tuple[bytes, ...],
) -> list[tuple[int, int]]:
    """(start, end) of the lines of data[start:end] (split into `lines`) that name a notable
    file: a notable name or prefix after the last "/", or a file right in .github/workflows/."""
    tails = list(map(itemgetter(2), map(bytes.rpartition, lines, repeat(b"/"))))  # in C
    notable = map(or_, map(names.__contains__, tails), map(bytes.startswith, tails, repeat(prefixes)))
    found = set(compress(range(len(lines)), notable))
    if data.find(_WORKFLOW, start, end) >= 0:
        found.update(
            at
            for at, (line, tail) in enumerate(zip(lines, tails))
            if tail and _in_workflows(line[: len(line) - len(tail)])
        )
    if not found:
        return []
    line_starts = list(accumulate(map((1).__add__, map(len, lines)), initial=start))
    return [(line_starts[at], line_starts[at] + len(lines[at])) for at in sorted(found)]
