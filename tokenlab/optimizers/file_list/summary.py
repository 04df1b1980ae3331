"""The summary view of a file listing: a header (paths, folders, root, extensions), the
notable files, and a depth-limited folder tree that `_Layout` plans within a line budget,
expanding the project's own folders, then the largest. FINE, each original line goes to
the bucket of the tree line standing for it, which becomes that line's ref.

A third pass over the listing collects file names only for the few folder lines that may
say them (`ts/ (6 files: m{1…6}.ts)`), so the layout is planned twice at most. The
header and count wording (`header`, `ext_summary`) are shared with
`printed`.
"""

from __future__ import annotations

import heapq
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import compress, repeat
from operator import itemgetter

from tokenlab.mapped import ends_with, let_go, line_count
from tokenlab.optimizers import Granularity, Omission, OptimizerConfig, OptimizeResult, Part, visible, whole
from tokenlab.optimizers.file_list.folders import Folder
from tokenlab.optimizers.file_list.parse import FileListConfig, Listing, chunks, set_aside_re
from tokenlab.optimizers.lines import numbered


def summary(data: bytes, listing: Listing, config: OptimizerConfig, limits: FileListConfig) -> OptimizeResult:
    """Header, notable files and the folder tree."""
    direct = listing.tree.direct_files
    wanted = direct if direct <= limits.max_top_names else min(limits.max_top_files, direct)
    top_files = _top_files(data, listing.root, listing.tree.children, wanted)
    layout = _Layout.plan(listing.tree, limits, top_files)
    names = _folder_names(data, listing.root, layout.nameable)
    if names:
        layout = _Layout.plan(listing.tree, limits, top_files, names)
    parts: list[Part] = [header(listing, limits)]
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
        original = Omission(whole(data), f"full file listing, {line_count(data):,} lines")
        parts += ["full listing: ", original, "\n"]
    return OptimizeResult(tuple(parts))


def _files(count: int) -> str:
    return f"{count:,} file" if count == 1 else f"{count:,} files"


def header(listing: Listing, limits: FileListConfig) -> str:
    root = visible(listing.root) or "./"
    folders = listing.tree.folders_below()
    exts = ext_summary(listing.extensions, limits.max_exts + 5)
    folder_word = "folder" if folders == 1 else "folders"
    return f"{_files(listing.paths)} in {folders:,} {folder_word} under {root} ({exts})\n"


def ext_summary(extensions: Counter[bytes], shown: int) -> str:
    ranked = sorted(extensions.items(), key=lambda item: (-item[1], item[0]))
    words = [f"{count:,} {visible(ext) if ext else 'no ext'}" for ext, count in ranked[:shown]]
    rest = ranked[shown:]
    if len(rest) == 1:
        ext, count = rest[0]
        words.append(f"{count:,} {visible(ext) if ext else 'no ext'}")
    elif rest:
        words.append(f"{sum(count for _ext, count in rest):,} other")
    return ", ".join(words)


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
        self, tree: Folder, limits: FileListConfig, top_files: list[bytes], names: dict[bytes, list[bytes]]
    ) -> None:
        self.limits = limits
        self.tree = tree
        self.top_files = top_files
        self.names = names  # bucket key -> the file names its line may say (see `nameable`)
        self.set_aside = set_aside_re(limits)
        self.expanded: set[bytes] = {b""}
        self.lines: list[_TreeLine] = []
        # Whose lines feed which bucket (see `bucket`): a folder's whole subtree, or only
        # the files directly in it.
        self.subtree_keys: dict[int, bytes] = {}
        self.direct_keys: dict[int, bytes] = {}
        # bucket key -> (folder, whether its whole subtree is named): lines that could say names
        self.nameable: dict[bytes, tuple[Folder, bool]] = {}

    @classmethod
    def plan(
        cls,
        tree: Folder,
        limits: FileListConfig,
        top_files: list[bytes],
        names: dict[bytes, list[bytes]] | None = None,
    ) -> _Layout:
        layout = cls(tree, limits, top_files, names or {})
        layout._expand()
        tree.table.count_extensions(folder.node for folder in layout._counted(tree))
        layout._render(tree, indent=0)
        return layout

    def _aside(self, folder: Folder) -> bool:
        return self.set_aside.search(folder.path) is not None

    def _shown_children(self, folder: Folder) -> tuple[list[Folder], list[Folder]]:
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
            cost = len(subs) + bool(more) + bool(folder.direct_files)
            if cost > budget:
                continue
            budget -= cost
            self.expanded.add(folder.path)
            for sub in subs:
                heapq.heappush(heap, (self._aside(sub), -sub.files, sub.path, level + 1, sub))

    def _counted(self, folder: Folder) -> Iterator[Folder]:
        """The folders whose extensions the tree's lines will say, for counting them at once:
        each expanded folder (its files directly there) and each folder shown unexpanded."""
        shown, rest = self._shown_children(folder)
        yield folder
        for sub in shown:
            if sub.path in self.expanded:
                yield from self._counted(sub)
            else:
                yield sub

    def _vendored(self, folder: Folder) -> bool:
        """Vendored trees (node_modules/, .git/…) are shown as one line, never expanded."""
        return (
            folder.path.rstrip(b"/").rpartition(b"/")[2].decode("utf-8", "replace") in self.limits.vendor_dirs
        )

    def _render(self, folder: Folder, indent: int) -> None:
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
        if folder.direct_files:
            self._direct_line(folder, pad)

    def _direct_line(self, folder: Folder, pad: str) -> None:
        key = _DIRECT + folder.path
        self.direct_keys[folder.node] = key
        count = folder.direct_files
        if folder == self.tree:
            text = self._top_line(count, pad)
            reason = "top-level files, in listing order"
        else:
            where = visible(folder.path)
            if count <= self.limits.max_named_files and not self._aside(folder):
                self.nameable[key] = (folder, False)
            said = self._named(key, count, ext_summary(folder.direct, self.limits.max_exts))
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

    def _register(self, folder: Folder, key: bytes) -> None:
        """Send the lines of this folder and every folder below it to `key`."""
        self.subtree_keys[folder.node] = key

    def bucket(self, node: int) -> bytes:
        """The bucket of the lines directly in a folder of the table (-1: none)."""
        table = self.tree.table
        if node < 0 or table.files[node] <= 0:  # no folder of the tree
            return _OUTSIDE
        if node in self.direct_keys:
            return self.direct_keys[node]
        while node >= 0 and node != self.tree.node:
            if node in self.subtree_keys:
                return self.subtree_keys[node]
            node = table.parent[node]
        return _OUTSIDE  # an expanded folder that holds no file directly

    def _exts(self, folder: Folder) -> str:
        return ext_summary(folder.extensions(), self.limits.max_exts)


def _top_files(data: bytes, root: bytes, folders: dict[bytes, Folder], wanted: int) -> list[bytes]:
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
    data: bytes, root: bytes, nameable: dict[bytes, tuple[Folder, bool]]
) -> dict[bytes, list[bytes]]:
    """The file names of each nameable line, relative to its folder, in listing order."""
    # folder path -> (key, the line's folder, the folder's subfolders)
    owner: dict[bytes, tuple[bytes, bytes, set[bytes]]] = {}
    for key, (folder, subtree) in nameable.items():
        for node in folder.subtree() if subtree else (folder,):
            owner[node.path] = (key, folder.path, set(node.children))
    names: dict[bytes, list[bytes]] = {}
    if not owner:
        return names
    # What a line of an owned folder reads up to its last "/", with and without "./": the
    # lines are picked by it in C, and only the few picked are read here.
    heads = {form[:-1] for folder in owner for form in (root + folder, b"./" + root + folder)}
    for start, end in chunks(data):
        lines = data[start:end].split(b"\n")
        let_go(data, start, end)
        picked = map(heads.__contains__, map(itemgetter(0), map(bytes.rpartition, lines, repeat(b"/"))))
        for line in compress(lines, picked):
            path = (line[2:] if line.startswith(b"./") else line).rstrip(b"\r")
            if not path.startswith(root):
                continue
            relative = path[len(root) :]
            cut = relative.rfind(b"/") + 1
            found = owner.get(relative[:cut])
            # `find` also prints the folders themselves, which are no files.
            if found is None or not relative[cut:] or relative[cut:] in found[2]:
                continue
            key, named_folder, _subfolders = found
            names.setdefault(key, []).append(relative[len(named_folder) :])
    return names


def _bucket_lines(data: bytes, root: bytes, layout: _Layout) -> dict[bytes, bytearray]:
    """FINE: each original line, with its newline, in the bucket of the tree line standing for it."""
    buckets: dict[bytes, bytearray] = {}
    table = layout.tree.table
    for start, end in chunks(data):
        lines = data[start:end].split(b"\n")
        let_go(data, start, end)
        known: dict[bytes, int] = {}
        keys: dict[bytes, bytes] = {}  # folder -> its bucket, in this slice
        for line in lines:
            path = line[2:] if line.startswith(b"./") else line
            key = _OUTSIDE
            if path.startswith(root) and path.strip():
                folder = path[: path.rfind(b"/") + 1]
                key = keys.get(folder) or keys.setdefault(
                    folder, layout.bucket(table.folder_id(folder, known, create=False))
                )
            bucket = buckets.get(key)
            if bucket is None:
                bucket = buckets[key] = bytearray()
            bucket += line
            bucket += b"\n"
    if not ends_with(data, b"\n") and buckets:
        buckets[key].pop()  # the last line had no newline
    return buckets


def _outside_omission(lines: bytearray) -> Omission:
    reason = "lines outside the tree (blank lines, folder entries), in listing order"
    return Omission(bytes(lines), reason)
