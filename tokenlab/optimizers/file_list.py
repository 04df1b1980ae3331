"""File listings (`find`, `git ls-files`, `fd`): thousands of paths folded into a short tree.

An agent reading a listing wants the shape of the tree and the files that matter, not
every path. The visible text has three parts:

- a header: how many paths and folders, under which common root, and by extension;
- notable files (README, LICENSE, manifests, Dockerfiles, CI workflows…; `notable_names`
  and `notable_prefixes` in `FileListConfig`) named with their path exactly as the tool
  printed it, shallowest first, skipping vendored folders such as `node_modules/`;
- a depth-limited tree of folders, each line `src/components/ (412 files: 300 .tsx, 98
  .ts, 14 .css)`, where the project's own folders, then the largest, are expanded first
  within a line budget. A folder whose file names are about as short as its counts names
  them instead (`ts/ (6 files: m{1…6}.ts)`), unless it is vendored, build output or hidden
  ("set aside": `node_modules/`, `dist/`, `.venv/`…), whose names nobody reads first.

When the project's own lines are few and set-aside folders hold most of the listing
(`tsc --listFiles` beside `node_modules/`, `tree` of a small project), the summary would
hide exactly the names a reader looks for: the listing is then shown as printed, with each
run of set-aside lines folded to one line.

COARSE: one ref holds the whole original listing. FINE: one ref per folded folder line
(its paths, in original order), one per "… N more folders" group, one per "files directly
here" line, and one for lines outside the tree (blank lines, the root's own entry); shown
as printed, one per folded run, the lines shown being in no ref.

Counting is done by one regex pass that yields (folder, extension) per line and a
`Counter` over those pairs, so the per-path work stays in C; the tree is built from the
distinct folders only. A second pass splits the lines once to find folder entries and
notable file names with set lookups and C-level maps; a third collects names only for
the few folder lines that may say them. Listings shorter than
`small_listing_lines` stay verbatim.
"""

from __future__ import annotations

import heapq
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate, compress, repeat
from operator import or_

from tokenlab.optimizers import (
    Granularity,
    Omission,
    OptimizerConfig,
    OptimizeResult,
    Part,
    numbered,
    visible,
)


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
_ENTRY_RE = re.compile(rb"^(?:\./)?([^\n]*/)?(?:[^/\n][^/\n]*(\.[^./\n\r]+)\r?$|[^/\n]*$)", re.MULTILINE)
_CHUNK_BYTES = 1 << 22
_MAX_PARSE_DEPTH = 64
_MAX_PATH_BYTES = 4096  # PATH_MAX: longer "paths" are not checked for folder entries
_BLANK_RE = re.compile(rb"^[ \t]*\r?$", re.MULTILINE)
_EXT_OK_RE = re.compile(rb"\.[A-Za-z0-9_+-]{1,10}")
# looks_like_file_list: a path is one line of path characters, with at most a few spaces.
_PATH_LINE_RE = re.compile(rb"(?:\./|/|~/|\.\./)?[^\s:;,'\"<>|*?{}\[\]=]+(?: [^\s:;,'\"<>|*?{}\[\]=]+)*/?")
_ENDS_LIKE_FILE_RE = re.compile(rb"/|\.[A-Za-z0-9]{1,8}$|^[A-Z][A-Za-z]+$")


def looks_like_file_list(data: bytes) -> bool:
    """True if most non-empty lines are paths: no prose, enough lines, many with `/` or an extension."""
    lines = [line.rstrip(b"\r") for line in data[: 64 * 1024].split(b"\n")]
    if len(data) > 64 * 1024 and len(lines) > 1:
        lines.pop()  # the sample may end mid-line
    lines = [line for line in lines if line.strip()]
    if len(lines) < 5:
        return False
    path_like = sum(
        1 for line in lines if len(line) <= 400 and line.count(b" ") <= 2 and _PATH_LINE_RE.fullmatch(line)
    )
    file_like = sum(1 for line in lines if _ENDS_LIKE_FILE_RE.search(line))
    with_slash = sum(1 for line in lines if b"/" in line)
    return path_like >= 0.9 * len(lines) and file_like >= 0.8 * len(lines) and with_slash >= 0.5 * len(lines)


@dataclass
class _Folder:
    """One folder of the listing; `files` counts its whole subtree."""

    path: bytes  # relative to the root, ending in "/"
    depth: int
    files: int = 0
    direct: Counter[bytes] = field(default_factory=Counter)  # extension -> files directly here
    children: dict[bytes, _Folder] = field(default_factory=dict)

    def child(self, name: bytes) -> _Folder:
        found = self.children.get(name)
        if found is None:
            found = self.children[name] = _Folder(self.path + name + b"/", self.depth + 1)
        return found

    def subtree(self) -> Iterator[_Folder]:
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

    def collapsed(self) -> _Folder:
        """Follow a chain of folders that each hold only one subfolder (src/main/java/…)."""
        folder = self
        while len(folder.children) == 1 and not folder.direct:
            folder = next(iter(folder.children.values()))
        return folder


@dataclass(frozen=True)
class _Listing:
    root: bytes
    tree: _Folder
    paths: int
    extensions: Counter[bytes]
    notable: list[tuple[int, int]]  # (start, end) of each line naming a notable file


def optimize(data: bytes, config: OptimizerConfig, limits: FileListConfig = DEFAULT_LIMITS) -> OptimizeResult:
    if data.count(b"\n") < limits.small_listing_lines:
        return OptimizeResult((visible(data),) if data else ())
    drawn = _drawn_listing(data, config, limits)
    if drawn is not None:
        return drawn
    listing = _parse(data, limits)
    return _own_lines_as_printed(data, listing, config, limits) or _summary(data, listing, config, limits)


def _summary(
    data: bytes, listing: _Listing, config: OptimizerConfig, limits: FileListConfig
) -> OptimizeResult:
    """Header, notable files and the folder tree."""
    direct = sum(listing.tree.direct.values())
    wanted = direct if direct <= limits.max_top_names else min(limits.max_top_files, direct)
    top_files = _top_files(data, listing.root, listing.tree.children, wanted)
    layout = _Layout.plan(listing.tree, limits, top_files)
    names = _folder_names(data, listing.root, layout.nameable)
    if names:
        layout = _Layout.plan(listing.tree, limits, top_files, names)
    parts: list[Part] = [_header(listing, limits)]
    parts += _notable_section(data, listing.notable, limits)
    parts.append(f"tree (files counted recursively; folders to depth {limits.max_depth}):\n")
    fine = config.granularity is Granularity.FINE
    buckets = _bucket_lines(data, listing.root, layout) if fine else {}
    for line in layout.lines:
        parts.append(line.text)
        if line.key in buckets:
            parts += [" ", Omission(bytes(buckets[line.key]), line.reason)]
        parts.append("\n")
    if fine:
        outside = buckets.get(_OUTSIDE)
        if outside:
            count = outside.count(b"\n") + (not outside.endswith(b"\n"))
            parts += [f"{count:,} lines outside the tree: ", _outside_omission(outside), "\n"]
    else:
        parts += ["full listing: ", Omission(data, f"full file listing, {_line_count(data):,} lines"), "\n"]
    return OptimizeResult(tuple(parts))


def _line_count(data: bytes) -> int:
    return data.count(b"\n") + (not data.endswith(b"\n"))


@lru_cache(maxsize=8)
def _set_aside_re(limits: FileListConfig) -> re.Pattern[bytes]:
    """Finds, in a folder path ending in "/", the first vendored, build or hidden folder."""
    named = "|".join(re.escape(name) for name in (*limits.vendor_dirs, *limits.build_dirs))
    own = "|".join(re.escape(name[1:]) for name in limits.project_dot_dirs if name.startswith("."))
    hidden = rf"\.(?!(?:{own})/)[^./][^/]*" if own else r"\.[^./][^/]*"
    return re.compile(rf"(?:^|/)(?:{named}|{hidden})/".encode())


def _own_files(tree: _Folder, set_aside: re.Pattern[bytes]) -> int:
    """Files outside set-aside folders (counted over the distinct folders only)."""
    return sum(sum(folder.direct.values()) for folder in tree.subtree() if not set_aside.search(folder.path))


def _own_lines_as_printed(
    data: bytes, listing: _Listing, config: OptimizerConfig, limits: FileListConfig
) -> OptimizeResult | None:
    """The listing as printed, each run of lines under one set-aside folder folded to a
    line, when that shows at most `max_tree_lines` lines and at most half of the listing;
    else None."""
    set_aside = _set_aside_re(limits)
    if _own_files(listing.tree, set_aside) > limits.max_tree_lines:
        return None
    lines = data.split(b"\n")
    if not lines[-1]:
        lines.pop()
    items: list[bytes | list[bytes]] = []  # a line shown as printed, or a run of folded lines
    run_key = b""
    for line in lines:
        path = line[2:] if line.startswith(b"./") else line
        folder = path[len(listing.root) : path.rfind(b"/") + 1] if path.startswith(listing.root) else b""
        found = set_aside.search(folder)
        key = folder[: found.end()] if found else b""
        run = items[-1] if key and key == run_key else None
        if isinstance(run, list):
            run.append(line)
        else:
            items.append([line] if key else line)
        run_key = key
    runs = [item for item in items if isinstance(item, list)]
    if not runs or len(items) > limits.max_tree_lines or 2 * len(items) > len(lines):
        return None
    fine = config.granularity is Granularity.FINE
    parts: list[Part] = [_header(listing, limits)]
    for item in items:
        if isinstance(item, bytes):
            parts.append(visible(item.rstrip(b"\r")) + "\n")
            continue
        folder = _common_folder([line[: line.rfind(b"/") + 1] for line in item])
        exts = Counter(ext if _EXT_OK_RE.fullmatch(ext) else b"" for ext in _line_extensions(item))
        parts.append(f"{visible(folder)} ({len(item):,} paths: {_ext_summary(exts, limits.max_exts)})")
        if fine:
            folded = b"\n".join(item) + b"\n"
            last = item is items[-1] and not data.endswith(b"\n")
            reason = f"paths under {visible(folder)}, in listing order"
            parts += [" ", Omission(folded[:-1] if last else folded, reason)]
        parts.append("\n")
    if not fine:
        parts += ["full listing: ", Omission(data, f"full file listing, {_line_count(data):,} lines"), "\n"]
    return OptimizeResult(tuple(parts))


def _line_extensions(lines: list[bytes]) -> list[bytes]:
    return [match.group(2) or b"" for line in lines if (match := _ENTRY_RE.match(line.rstrip(b"\r")))]


# `ls -l` permission columns and `tree` connectors, looked for in the head of the input only.
_DRAWN_HINT_RE = re.compile(rb"^[-dl][-rwxsStT]{9}[.+@]? |\xe2\x94\x9c\xe2\x94\x80|^\|-- ", re.MULTILINE)


def _drawn_listing(data: bytes, config: OptimizerConfig, limits: FileListConfig) -> OptimizeResult | None:
    """`ls -l` and `tree` output, which `long_listing` summarises; None for a list of paths."""
    if not _DRAWN_HINT_RE.search(data, 0, 8192):
        return None
    from tokenlab.optimizers import long_listing

    if long_listing.looks_like_long_listing(data):
        return long_listing.optimize_long(data, config)
    if not long_listing.looks_like_tree(data):
        return None
    own = _own_drawing_as_printed(data, config, limits)
    if own is not None:
        return own
    first, paths, last = long_listing.tree_paths(data)
    if paths.count(b"\n") < limits.small_listing_lines:
        return OptimizeResult((visible(data),))
    inner = _summary(paths, _parse(paths, limits), OptimizerConfig(Granularity.COARSE), limits)
    whole = Omission(data, f"full tree drawing, {_line_count(data):,} lines")
    first, last = first.rstrip(b"\r"), last.rstrip(b"\r")
    parts: list[Part] = [f"tree of {visible(first)}\n" if first else ""]
    parts += [whole if isinstance(part, Omission) else part for part in inner.parts]
    parts.append(f"{visible(last)}\n" if last else "")
    return OptimizeResult(tuple(part for part in parts if part != ""))


# One entry of a `tree` drawing: its indent (`│   ` or `|   ` per level), then the connector
# (`├── `, `└── `, ASCII `|-- `, `` `-- ``) and the name.
_DRAWN_ENTRY_RE = re.compile(
    rb"((?:\xe2\x94\x82|\||\xc2\xa0| )*)(?:\xe2\x94\x9c|\xe2\x94\x94|\||`)(?:\xe2\x94\x80\xe2\x94\x80|--) ([^\r]*)\r?"
)


def _drawn_depth(indent: bytes) -> int:
    return len(indent.replace(b"\xe2\x94\x82", b"|").replace(b"\xc2\xa0", b" ")) // 4


def _own_drawing_as_printed(
    data: bytes, config: OptimizerConfig, limits: FileListConfig
) -> OptimizeResult | None:
    """A `tree` drawing as printed, the entries under each set-aside folder folded to one
    line, when that shows at most `max_tree_lines` entries and at most half of the lines."""
    set_aside = _set_aside_re(limits)
    lines = data.split(b"\n")
    if not lines[-1]:
        lines.pop()
    items: list[bytes | list[bytes]] = []
    aside_depth = -1  # depth of the set-aside folder whose entries are being folded
    for line in lines:
        entry = _DRAWN_ENTRY_RE.fullmatch(line) if len(line) < 8192 else None
        depth = _drawn_depth(entry.group(1)) if entry else -1
        if entry and 0 <= aside_depth < depth:
            if isinstance(items[-1], list):
                items[-1].append(line)
            else:
                items.append([line])
            continue
        items.append(line)
        name = entry.group(2).split(b" -> ", 1)[0] if entry else b""
        aside_depth = depth if entry and set_aside.match(name + b"/") else -1
    runs = [item for item in items if isinstance(item, list)]
    drawn = sum(1 for item in items if isinstance(item, list) or _DRAWN_ENTRY_RE.fullmatch(item))
    if not runs or drawn > limits.max_tree_lines or 2 * len(items) > len(lines):
        return None
    fine = config.granularity is Granularity.FINE
    parts: list[Part] = []
    for item in items:
        if isinstance(item, bytes):
            parts.append(visible(item.rstrip(b"\r")) + "\n")
            continue
        indent = _DRAWN_ENTRY_RE.fullmatch(item[0])
        names = [entry.group(2) for line in item if (entry := _DRAWN_ENTRY_RE.fullmatch(line))]
        exts = Counter(ext if _EXT_OK_RE.fullmatch(ext) else b"" for ext in _line_extensions(names))
        pad = visible(indent.group(1)) if indent else ""
        parts.append(f"{pad}… {len(item):,} entries folded ({_ext_summary(exts, limits.max_exts)})")
        if fine:
            folded = b"\n".join(item) + b"\n"
            last = item is items[-1] and not data.endswith(b"\n")
            parts += [
                " ",
                Omission(folded[:-1] if last else folded, "entries of a set-aside folder, as drawn"),
            ]
        parts.append("\n")
    if not fine:
        parts += [
            "full tree drawing: ",
            Omission(data, f"full tree drawing, {_line_count(data):,} lines"),
            "\n",
        ]
    return OptimizeResult(tuple(parts))


def _chunks(data: bytes) -> Iterator[tuple[int, int]]:
    """(start, end) of line-aligned slices of about `_CHUNK_BYTES`, final newline excluded.

    Working slice by slice keeps the per-line lists a regex or split builds small, so
    memory stays near the input size on a listing of millions of paths.
    """
    size = len(data) - data.endswith(b"\n")
    start = 0
    while start < size:
        cut = data.find(b"\n", start + _CHUNK_BYTES, size)
        end = size if cut < 0 else cut
        yield start, end
        start = end + 1


def _parse(data: bytes, limits: FileListConfig) -> _Listing:
    pairs: Counter[tuple[bytes, bytes]] = Counter()
    for start, end in _chunks(data):
        pairs.update(_ENTRY_RE.findall(data, start, end))
    if pairs[(b"", b"")]:  # blank lines match as top-level files without an extension
        pairs[(b"", b"")] -= sum(len(_BLANK_RE.findall(data, start, end)) for start, end in _chunks(data))
    notable = _scan_lines(data, pairs, limits)
    root = _common_folder([folder for (folder, _ext), count in pairs.items() if count > 0])
    tree = _Folder(b"", 0)
    extensions: Counter[bytes] = Counter()
    for (folder, ext), count in pairs.items():
        if count <= 0 or not folder.startswith(root):
            continue
        ext = ext if _EXT_OK_RE.fullmatch(ext) else b""
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
    return _Listing(root, tree, tree.files, extensions, notable)


def _scan_lines(
    data: bytes, pairs: Counter[tuple[bytes, bytes]], limits: FileListConfig
) -> list[tuple[int, int]]:
    """One pass over the listing's lines, each slice split once: folder entries are taken
    out of `pairs`, and the (start, end) of each line naming a notable file is returned."""
    forms = _folder_entry_forms(pairs)
    names, prefixes = _notable_names(limits)
    present: set[bytes] = set()
    notable: list[tuple[int, int]] = []
    for start, end in _chunks(data):
        lines = data[start:end].split(b"\n")
        present |= forms.intersection(lines)
        notable += _notable_lines(data, start, end, lines, names, prefixes)
    for form in present:
        match = _ENTRY_RE.match(form)
        if match:
            pairs[(match.group(1) or b"", match.group(2) or b"")] -= 1
    return notable


def _folder_entry_forms(pairs: Counter[tuple[bytes, bytes]]) -> set[bytes]:
    """How a folder's own line may read: `find` without `-type f` prints folders too,
    which were counted as files and are taken out again."""
    folders = {b""}
    for folder, _ext in pairs:
        end = folder.find(b"/", 0, _MAX_PATH_BYTES)
        while end >= 0:
            folders.add(folder[: end + 1])
            end = folder.find(b"/", end + 1, _MAX_PATH_BYTES)
    forms: set[bytes] = set()
    for folder in folders:
        for entry in {folder, folder[:-1]} - {b""} if folder else (b".", b"./"):
            forms.update((entry, b"./" + entry, entry + b"\r", b"./" + entry + b"\r"))
    return forms


def _common_folder(folders: list[bytes]) -> bytes:
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


def _files(count: int) -> str:
    return f"{count:,} file" if count == 1 else f"{count:,} files"


def _header(listing: _Listing, limits: FileListConfig) -> str:
    root = visible(listing.root) or "./"
    folders = sum(1 for _folder in listing.tree.subtree()) - 1
    exts = _ext_summary(listing.extensions, limits.max_exts + 5)
    folder_word = "folder" if folders == 1 else "folders"
    return f"{_files(listing.paths)} in {folders:,} {folder_word} under {root} ({exts})\n"


def _ext_summary(extensions: Counter[bytes], shown: int) -> str:
    ranked = sorted(extensions.items(), key=lambda item: (-item[1], item[0]))
    words = [f"{count:,} {visible(ext) if ext else 'no ext'}" for ext, count in ranked[:shown]]
    rest = ranked[shown:]
    if len(rest) == 1:
        ext, count = rest[0]
        words.append(f"{count:,} {visible(ext) if ext else 'no ext'}")
    elif rest:
        words.append(f"{sum(count for _ext, count in rest):,} other")
    return ", ".join(words)


@lru_cache(maxsize=8)
def _notable_names(limits: FileListConfig) -> tuple[frozenset[bytes], tuple[bytes, ...]]:
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
    tails = [line[line.rfind(b"/") + 1 :] for line in lines]
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


def _notable_section(data: bytes, spans: list[tuple[int, int]], limits: FileListConfig) -> list[Part]:
    vendor = tuple(f"/{name}/".encode() for name in limits.vendor_dirs)
    found = []
    for order, (start, end) in enumerate(spans):
        path = data[start:end].rstrip(b"\r")
        if any(marker in b"/" + path for marker in vendor):
            continue
        found.append((path.count(b"/"), order, path))
    if not found:
        return []
    chosen = sorted(heapq.nsmallest(limits.max_notable, found), key=lambda item: item[1])
    lines: list[Part] = ["notable files:\n"]
    lines += [f"  {visible(path)}\n" for _depth, _order, path in chosen]
    if len(found) > len(chosen):
        lines.append(f"  … {len(found) - len(chosen):,} more notable files, deeper in the tree\n")
    return lines


@dataclass(frozen=True)
class _TreeLine:
    text: str
    key: bytes  # the bucket of listing lines this tree line stands for (see _bucket_lines)
    reason: str


# Bucket keys that are not folder paths start with a NUL byte, which no path contains.
_OUTSIDE = b"\x00outside"
_MORE = b"\x00more:"
_DIRECT = b"\x00direct:"


class _Layout:
    """Which folders the tree shows, which it expands, and which bucket each folder feeds."""

    def __init__(
        self, tree: _Folder, limits: FileListConfig, top_files: list[bytes], names: dict[bytes, list[bytes]]
    ) -> None:
        self.limits = limits
        self.tree = tree
        self.top_files = top_files
        self.names = names  # bucket key -> the file names its line may say (see `nameable`)
        self.set_aside = _set_aside_re(limits)
        self.expanded: set[bytes] = {b""}
        self.lines: list[_TreeLine] = []
        self.bucket_of: dict[bytes, bytes] = {}  # folder path -> bucket key
        # bucket key -> (folder, whether its whole subtree is named): lines that could say names
        self.nameable: dict[bytes, tuple[_Folder, bool]] = {}

    @classmethod
    def plan(
        cls,
        tree: _Folder,
        limits: FileListConfig,
        top_files: list[bytes],
        names: dict[bytes, list[bytes]] | None = None,
    ) -> _Layout:
        layout = cls(tree, limits, top_files, names or {})
        layout._expand()
        layout._render(tree, indent=0)
        return layout

    def _aside(self, folder: _Folder) -> bool:
        return self.set_aside.search(folder.path) is not None

    def _shown_children(self, folder: _Folder) -> tuple[list[_Folder], list[_Folder]]:
        """The largest subfolders (set-aside ones too: they keep their counts), by path."""
        ranked = sorted(folder.children.values(), key=lambda sub: (-sub.files, sub.path))
        cap = self.limits.max_children if folder.depth else self.limits.max_tree_lines // 2
        shown = [sub.collapsed() for sub in ranked[:cap]]
        return sorted(shown, key=lambda sub: sub.path), ranked[cap:]

    def _expand(self) -> None:
        """Expand the project's own folders, then the largest, while the line budget lasts."""
        shown, rest = self._shown_children(self.tree)
        budget = self.limits.max_tree_lines - len(shown) - bool(rest)
        heap = [(self._aside(sub), -sub.files, sub.path, 1, sub) for sub in shown]
        heapq.heapify(heap)
        while heap:
            _aside, _size, _path, level, folder = heapq.heappop(heap)
            if not folder.children or level >= self.limits.max_depth or self._vendored(folder):
                continue
            subs, more = self._shown_children(folder)
            cost = len(subs) + bool(more) + bool(folder.direct)
            if cost > budget:
                continue
            budget -= cost
            self.expanded.add(folder.path)
            for sub in subs:
                heapq.heappush(heap, (self._aside(sub), -sub.files, sub.path, level + 1, sub))

    def _vendored(self, folder: _Folder) -> bool:
        """Vendored trees (node_modules/, .git/…) are shown as one line, never expanded."""
        return (
            folder.path.rstrip(b"/").rpartition(b"/")[2].decode("utf-8", "replace") in self.limits.vendor_dirs
        )

    def _render(self, folder: _Folder, indent: int) -> None:
        shown, rest = self._shown_children(folder)
        pad = "  " * (indent + 1)
        for sub in shown:
            if sub.path in self.expanded:
                text = f"{pad}{visible(sub.path)} ({_files(sub.files)}: {self._exts(sub)})"
                self.lines.append(_TreeLine(text, b"", ""))
                self._render(sub, indent + 1)
            else:
                self._register(sub, sub.path)
                if sub.files <= self.limits.max_named_files and not self._aside(sub):
                    self.nameable[sub.path] = (sub, True)
                said = self._named(sub.path, sub.files, self._exts(sub))
                text = f"{pad}{visible(sub.path)} ({_files(sub.files)}: {said})"
                reason = f"paths under {visible(sub.path)}, in listing order"
                self.lines.append(_TreeLine(text, sub.path, reason))
        if rest:
            key = _MORE + folder.path
            for sub in rest:
                self._register(sub, key)
            files = sum(sub.files for sub in rest)
            where = visible(folder.path) or "the root"
            text = f"{pad}… {len(rest):,} more folders in {where} ({_files(files)})"
            reason = f"paths in {len(rest)} smaller folders of {where}, in listing order"
            self.lines.append(_TreeLine(text, key, reason))
        if folder.direct:
            self._direct_line(folder, pad)

    def _direct_line(self, folder: _Folder, pad: str) -> None:
        key = _DIRECT + folder.path
        self.bucket_of[folder.path] = key
        count = sum(folder.direct.values())
        if folder is self.tree:
            text = self._top_line(count, pad)
            reason = "top-level files, in listing order"
        else:
            where = visible(folder.path)
            if count <= self.limits.max_named_files and not self._aside(folder):
                self.nameable[key] = (folder, False)
            said = self._named(key, count, _ext_summary(folder.direct, self.limits.max_exts))
            text = f"{pad}({_files(count)} directly in {where}: {said})"
            reason = f"files directly in {where}, in listing order"
        self.lines.append(_TreeLine(text, key, reason))

    def _top_line(self, count: int, pad: str) -> str:
        """All top-level file names, sorted and packed several per line, when they fit;
        else the first ones in listing order and how many more."""
        names = [visible(name) for name in self.top_files]
        if len(names) >= count:
            names.sort(key=lambda name: name.removeprefix("./"))
        more = count - len(names)
        lines, current = [], f"{pad}top-level files ({count:,}): "
        for at, name in enumerate(names):
            word = name + ("," if at < len(names) - 1 or more > 0 else "")
            if len(current) + len(word) > 100 and not current.endswith(": "):
                lines.append(current.rstrip())
                current = pad + "  "
            current += word + " "
        lines.append(current + (f"… {more:,} more" if more > 0 else ""))
        return "\n".join(lines).rstrip()

    def _named(self, key: bytes, count: int, counts: str) -> str:
        """The line's file names, sorted, a numbered family said once (`m{1…6}.ts`), when
        they are all known and say in `max_named_chars` (or no more than `counts` does)."""
        names = self.names.get(key, [])
        if len(names) != count:
            return counts
        said = ", ".join(numbered.said_once(sorted(map(visible, names))))
        return said if len(said) <= max(self.limits.max_named_chars, len(counts)) else counts

    def _register(self, folder: _Folder, key: bytes) -> None:
        """Send the lines of this folder and every folder below it to `key`."""
        for node in folder.subtree():
            self.bucket_of[node.path] = key

    def _exts(self, folder: _Folder) -> str:
        return _ext_summary(folder.extensions(), self.limits.max_exts)


def _top_files(data: bytes, root: bytes, folders: dict[bytes, _Folder], wanted: int) -> list[bytes]:
    """The first `wanted` file names directly under the root, in listing order; under the
    working folder (no common root) as the tool printed them, with any "./"."""
    if wanted <= 0:
        return []
    pattern = re.compile(rb"^((?:\./)?" + re.escape(root) + rb")([^/\n]*[^/\n\r])\r?$", re.MULTILINE)
    names = []
    for match in pattern.finditer(data):
        # `find` also prints the folders themselves, and "." for the root.
        if match.group(2) not in folders and match.group(2) not in (b".", b".."):
            names.append(match.group(2) if root else match.group(1) + match.group(2))
            if len(names) >= wanted:
                break
    return names


def _folder_names(
    data: bytes, root: bytes, nameable: dict[bytes, tuple[_Folder, bool]]
) -> dict[bytes, list[bytes]]:
    """The file names of each nameable line, relative to its folder, in listing order."""
    owner: dict[bytes, tuple[bytes, bytes, _Folder]] = {}  # folder path -> (key, line's folder, node)
    for key, (folder, subtree) in nameable.items():
        for node in folder.subtree() if subtree else (folder,):
            owner[node.path] = (key, folder.path, node)
    names: dict[bytes, list[bytes]] = {}
    if not owner:
        return names
    for start, end in _chunks(data):
        for line in data[start:end].split(b"\n"):
            path = (line[2:] if line.startswith(b"./") else line).rstrip(b"\r")
            if not path.startswith(root):
                continue
            relative = path[len(root) :]
            cut = relative.rfind(b"/") + 1
            found = owner.get(relative[:cut])
            # `find` also prints the folders themselves, which are no files.
            if found is None or not relative[cut:] or relative[cut:] in found[2].children:
                continue
            key, named_folder, _node = found
            names.setdefault(key, []).append(relative[len(named_folder) :])
    return names


def _bucket_lines(data: bytes, root: bytes, layout: _Layout) -> dict[bytes, bytearray]:
    """FINE: each original line, with its newline, in the bucket of the tree line standing for it."""
    buckets: dict[bytes, bytearray] = {}
    bucket_of = layout.bucket_of
    for start, end in _chunks(data):
        for line in data[start:end].split(b"\n"):
            path = line[2:] if line.startswith(b"./") else line
            key = _OUTSIDE
            if path.startswith(root) and path.strip():
                relative = path[len(root) :]
                key = bucket_of.get(relative[: relative.rfind(b"/") + 1], _OUTSIDE)
            bucket = buckets.get(key)
            if bucket is None:
                bucket = buckets[key] = bytearray()
            bucket += line
            bucket += b"\n"
    if not data.endswith(b"\n") and buckets:
        buckets[key].pop()  # the last line had no newline
    return buckets


def _outside_omission(lines: bytearray) -> Omission:
    reason = "lines outside the tree (blank lines, folder entries), in listing order"
    return Omission(bytes(lines), reason)
