"""The file-list optimizer's model: its limits (`FileListConfig`), the parse of a listing
into a `Listing` (common root, a `Folder` tree of counts, the spans of the lines naming
notable files), and the rules both views share: which folders are set aside (vendored,
build output, hidden), which names are notable, and how a large listing is cut into
line-aligned slices.

Counting is done by one regex pass that yields (folder, extension) per line and a
`Counter` over those pairs, so the per-path work stays in C; the tree is built from the
distinct folders only. A second pass splits the lines once to find folder entries and
notable file names with set lookups and C-level maps.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate, compress, repeat
from operator import itemgetter, or_

from tokenlab.mapped import ends_with


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
ENTRY_RE = re.compile(rb"^(?:\./)?([^\n]*/)?(?:[^/\n][^/\n]*(\.[^./\n\r]+)\r?$|[^/\n]*$)", re.MULTILINE)
_CHUNK_BYTES = 1 << 22
_MAX_PARSE_DEPTH = 64
_MAX_PATH_BYTES = 4096  # PATH_MAX: longer "paths" are not checked for folder entries
_BLANK_RE = re.compile(rb"^[ \t]*\r?$", re.MULTILINE)
# A blank line after the line break that leads it: looked for as fast as a word, where
# `_BLANK_RE` was tried at every byte (0.12 s on a 20 MB listing, against 0.02 s).
_BLANK_AFTER_BREAK_RE = re.compile(rb"\n[ \t]*+\r?(?![^\n])")
EXT_OK_RE = re.compile(rb"\.[A-Za-z0-9_+-]{1,10}")


@dataclass
class Folder:
    """One folder of the listing; `files` counts its whole subtree."""

    path: bytes  # relative to the root, ending in "/"
    depth: int
    files: int = 0
    direct: Counter[bytes] = field(default_factory=Counter)  # extension -> files directly here
    children: dict[bytes, Folder] = field(default_factory=dict)

    def child(self, name: bytes) -> Folder:
        found = self.children.get(name)
        if found is None:
            found = self.children[name] = Folder(self.path + name + b"/", self.depth + 1)
        return found

    def subtree(self) -> Iterator[Folder]:
        """This folder and every folder below it (iteratively: paths can be very deep)."""
        stack = [self]
        while stack:
            folder = stack.pop()
            yield folder
            stack.extend(folder.children.values())

    def extensions(self) -> Counter[bytes]:
        total: Counter[bytes] = Counter()
        for folder in self.subtree():
            total.update(folder.direct)
        return total

    def collapsed(self) -> Folder:
        """Follow a chain of folders that each hold only one subfolder (src/main/java/…)."""
        folder = self
        while len(folder.children) == 1 and not folder.direct:
            folder = next(iter(folder.children.values()))
        return folder


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

    Working slice by slice keeps the per-line lists a regex or split builds small, so
    memory stays near the input size on a listing of millions of paths.
    """
    size = len(data) - ends_with(data, b"\n")
    start = 0
    while start < size:
        cut = data.find(b"\n", start + _CHUNK_BYTES, size)
        end = size if cut < 0 else cut
        yield start, end
        start = end + 1


def parse(data: bytes, limits: FileListConfig) -> Listing:
    pairs: Counter[tuple[bytes, bytes]] = Counter()
    for start, end in chunks(data):
        pairs.update(ENTRY_RE.findall(data, start, end))
    if pairs[(b"", b"")]:  # blank lines match as top-level files without an extension
        pairs[(b"", b"")] -= sum(_blank_lines(data, start, end) for start, end in chunks(data))
    notable = _scan_lines(data, pairs, limits)
    root = common_folder([folder for (folder, _ext), count in pairs.items() if count > 0])
    tree = Folder(b"", 0)
    extensions: Counter[bytes] = Counter()
    for (folder, ext), count in pairs.items():
        if count <= 0 or not folder.startswith(root):
            continue
        ext = ext if EXT_OK_RE.fullmatch(ext) else b""
        node = tree
        node.files += count
        relative = folder[len(root) : -1]
        # Deeper levels stay joined in one name: no tree shows them, and a hostile
        # megabyte of slashes must not become a million folders.
        for name in relative.split(b"/", _MAX_PARSE_DEPTH) if relative else ():
            node = node.child(name)
            node.files += count
        node.direct[ext] += count
        extensions[ext] += count
    return Listing(root, tree, tree.files, extensions, notable)


def _blank_lines(data: bytes, start: int, end: int) -> int:
    """How many lines of data[start:end], which starts a line, are blank."""
    if start:  # the line break before `start` leads its first line
        return len(_BLANK_AFTER_BREAK_RE.findall(data, start - 1, end))
    return (_BLANK_RE.match(data, 0, end) is not None) + len(_BLANK_AFTER_BREAK_RE.findall(data, 0, end))


def _scan_lines(
    data: bytes, pairs: Counter[tuple[bytes, bytes]], limits: FileListConfig
) -> list[tuple[int, int]]:
    """One pass over the listing's lines, each slice split once: folder entries are taken
    out of `pairs`, and the (start, end) of each line naming a notable file is returned."""
    entries = _folder_entries(pairs)
    names, prefixes = notable_names(limits)
    present: set[bytes] = set()
    notable: list[tuple[int, int]] = []
    for start, end in chunks(data):
        piece = data[start:end]
        lines = piece.split(b"\n")
        present.update(_entry_lines(lines, entries, b"\r" in piece))
        notable += _notable_lines(data, start, end, lines, names, prefixes)
    for form in present:
        match = ENTRY_RE.match(form)
        if match:
            pairs[(match.group(1) or b"", match.group(2) or b"")] -= 1
    return notable


def _folder_entries(pairs: Counter[tuple[bytes, bytes]]) -> set[bytes]:
    """How a folder's own line may read, but for a leading `./` and a trailing CR: `find`
    without `-type f` prints folders too, which were counted as files and are taken out
    again. (Those variants are stripped from the lines instead: four forms of every
    folder held at once cost more than the listing on a large one.)"""
    folders = {b""}
    # Each folder with its ancestors, deepest first, up to the first one already there,
    # whose ancestors are all there too: a folder shared by many files is walked once.
    for folder in {folder for folder, _ext in pairs}:
        end = folder.rfind(b"/", 0, _MAX_PATH_BYTES)
        while end >= 0 and folder[: end + 1] not in folders:
            folders.add(folder[: end + 1])
            end = folder.rfind(b"/", 0, end)
    entries: set[bytes] = set()
    for folder in folders:
        entries.update({folder, folder[:-1]} - {b""} if folder else (b".", b"./"))
    return entries


def _entry_lines(lines: list[bytes], entries: set[bytes], with_cr: bool) -> Iterator[bytes]:
    """The lines that are a folder entry, perhaps led by `./` and ended by a CR (which only
    lines holding a CR can be)."""
    bare = list(map(bytes.removeprefix, lines, repeat(b"./")))
    variants = [lines, bare]
    if with_cr:
        variants += [list(map(bytes.removesuffix, variant, repeat(b"\r"))) for variant in (lines, bare)]
    named = map(any, zip(*(map(entries.__contains__, variant) for variant in variants)))
    return compress(lines, named)


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
