"""The folders of a file listing, held flat: one row of parallel arrays per folder.

A listing of a gigabyte names about a million folders. As one object per folder (a path,
a dict of children, a `Counter` of extensions) they took about 600 bytes each, more than
half the analysis's peak. Here a folder is an id: its parent, subtree and direct file
counts are machine ints in `array`s, its name is kept in one `bytearray` of all names,
and it is found by (parent, name) in an open-addressing table that is an array too.
Extensions are counted as (folder, extension, files) rows, one per folder and slice of
the listing, and summed only for the few folders a view shows (`count_extensions`). `Folder` is a view of one id with the names the views read.

Folder paths are split into at most `MAX_DEPTH` + 1 names below `base`: deeper levels stay
joined in the last name, so a hostile megabyte of slashes does not become a million folders.
"""

from __future__ import annotations

import re
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

MAX_DEPTH = 64
_PARENT_MIX = 1_000_003  # spreads a name's hash over the folders of that name
_NO_PARENT = -1


def after_kept_names(path: bytes, start: int) -> int:
    """Where the `MAX_DEPTH` names of `path` after `start` end (after their last "/"): the
    rest of a deeper path is one name."""
    cut = start
    for _level in range(MAX_DEPTH):
        cut = path.index(b"/", cut) + 1
    return cut


class FolderTable:
    """Every folder named by a listing under `base` (node 0), with its file counts."""

    def __init__(self, base: bytes = b"") -> None:
        self.base = base  # node 0's path from the listing's top: b"" or ending in "/"
        # Names, one after another: node n's is _names[_ends[n - 1]:_ends[n]].
        self._names = bytearray()
        self._ends = array("q", [0])
        # An open-addressing table of node ids by (parent, name), in arrays: a dict of keys
        # held a bytes and an int object per folder, 110 bytes, and freed them into
        # fragments the rest of the analysis could not use.
        self._hashes = array("q", [0])
        self._slots = array("i", [_NO_PARENT]) * 1024
        self.parent = array("i", [_NO_PARENT])
        self.direct = array("q", [0])  # files directly in the folder
        self.files = array("q")  # files in its subtree (`total`)
        self.capped = False  # some path was deeper than MAX_DEPTH + 1 names
        self._ext_ids: dict[bytes, int] = {}
        self.ext_names: list[bytes] = []
        # One row per (folder, extension) and slice: the folder, the extension, its files.
        self._rows = (array("i"), array("i"), array("q"))
        self._children: tuple[array[int], array[int]] | None = None
        self._counted: dict[int, tuple[Counter[bytes], Counter[bytes]]] = {}  # node -> (direct, subtree)

    def __len__(self) -> int:
        return len(self.parent)

    def name(self, node: int) -> bytes:
        return bytes(self._names[self._ends[node - 1] : self._ends[node]]) if node else b""

    def child(self, parent: int, name: bytes, create: bool) -> int:
        """The node named `name` in `parent` (created if `create`), else -1."""
        hashed = hash(name) ^ (parent * _PARENT_MIX)
        slots, mask = self._slots, len(self._slots) - 1
        at = hashed & mask
        while (node := slots[at]) >= 0:
            if self._hashes[node] == hashed and self.parent[node] == parent and self.name(node) == name:
                return node
            at = (at + 1) & mask
        if not create:
            return _NO_PARENT
        node = len(self.parent)
        slots[at] = node
        self._hashes.append(hashed)
        self._names += name
        self._ends.append(len(self._names))
        self.parent.append(parent)
        self.direct.append(0)
        if 2 * len(self.parent) > len(slots):
            self._grow()
        return node

    def _grow(self) -> None:
        """Twice the slots, every node placed again (kept at most half full)."""
        slots = self._slots = array("i", [_NO_PARENT]) * (2 * len(self._slots))
        mask = len(slots) - 1
        for node in range(1, len(self.parent)):
            at = self._hashes[node] & mask
            while slots[at] >= 0:
                at = (at + 1) & mask
            slots[at] = node

    def folder_id(self, folder: bytes, known: dict[bytes, int], create: bool = True) -> int:
        """The node of a folder path from the listing's top (b"" or ending in "/") under
        `base`, created if `create`, else -1 when the listing names no such folder.
        `known` remembers paths already looked up (one slice's worth)."""
        node = known.get(folder)
        if node is not None:
            return node
        if len(folder) <= len(self.base) or not folder.startswith(self.base):
            return 0 if folder == self.base else _NO_PARENT
        head = folder[:-1]
        deep = len(head) - len(self.base) > MAX_DEPTH  # else too short for that many "/"
        if deep and head.count(b"/", len(self.base)) > MAX_DEPTH:  # more names than kept: the last holds the rest
            self.capped = True
            cut = after_kept_names(head, len(self.base))
        else:
            cut = head.rfind(b"/") + 1
        parent = self.folder_id(folder[:cut], known, create)
        node = _NO_PARENT if parent < 0 else self.child(parent, head[cut:], create)
        known[folder] = node
        return node

    def ext_id(self, ext: bytes) -> int:
        found = self._ext_ids.get(ext)
        if found is None:
            found = self._ext_ids[ext] = len(self.ext_names)
            self.ext_names.append(ext)
        return found

    def add(self, node: int, ext: bytes, count: int) -> None:
        """`count` files (negative: taken out again) with extension `ext` directly in `node`."""
        folders, exts, counts = self._rows
        folders.append(node)
        exts.append(self.ext_id(ext))
        counts.append(count)
        self.direct[node] += count

    def move_direct_files(self, node: int, into: int) -> None:
        """Count the files directly in `node` as directly in `into`."""
        folders = self._rows[0]
        for at, owner in enumerate(folders):
            if owner == node:
                folders[at] = into
        self.direct[into] += self.direct[node]
        self.direct[node] = 0

    def total(self) -> None:
        """Sum the subtree counts, children before parents (a child's id is above its parent's)."""
        self.files = array("q", self.direct)
        files, parent = self.files, self.parent
        for node in range(len(files) - 1, 0, -1):
            files[parent[node]] += files[node]

    def children(self, node: int) -> Iterator[int]:
        """The folders right below `node` that hold files (a folder whose only lines were
        folder entries holds none, and is no folder of the tree)."""
        if self._children is None:
            self._children = self._child_index()
        starts, order = self._children
        files = self.files
        return (child for child in order[starts[node] : starts[node + 1]] if files[child] > 0)

    def all_children(self, node: int) -> Iterator[int]:
        """The folders right below `node`, those that hold no file too."""
        if self._children is None:
            self._children = self._child_index()
        starts, order = self._children
        return iter(order[starts[node] : starts[node + 1]])

    def _child_index(self) -> tuple[array[int], array[int]]:
        """Each node's children, contiguous: `order[starts[n]:starts[n + 1]]`."""
        starts = array("i", bytes(4 * (len(self) + 1)))
        for parent in self.parent[1:]:
            starts[parent + 1] += 1
        for node in range(len(self)):
            starts[node + 1] += starts[node]
        order = array("i", bytes(4 * len(self)))
        filled = array("i", starts[:-1])
        for node in range(1, len(self)):
            parent = self.parent[node]
            order[filled[parent]] = node
            filled[parent] += 1
        return starts, order

    def path(self, node: int, top: int = 0) -> bytes:
        """The folder's path below `top` (one of its ancestors), ending in "/"."""
        names = []
        while node != top and node > 0:
            names.append(self.name(node))
            node = self.parent[node]
        return b"".join(name + b"/" for name in reversed(names))

    def depth(self, node: int) -> int:
        depth = 0
        while node > 0:
            node, depth = self.parent[node], depth + 1
        return depth

    def extensions(self) -> Counter[bytes]:
        """Files by extension in the whole listing."""
        total: Counter[bytes] = Counter()
        for ext, count in zip(self._rows[1], self._rows[2]):
            total[self.ext_names[ext]] += count
        return +total

    def count_extensions(self, nodes: Iterable[int]) -> None:
        """Count, in one pass over the rows, the extensions directly in and below each of
        `nodes`, for `direct_extensions` and `subtree_extensions`."""
        wanted = set(nodes) - self._counted.keys()
        if not wanted:
            return
        owner = array("i", [_NO_PARENT]) * len(self)  # node -> its nearest wanted ancestor-or-self
        for node in range(len(self)):
            owner[node] = node if node in wanted else owner[self.parent[node]] if node else _NO_PARENT
        direct: dict[int, Counter[bytes]] = {node: Counter() for node in wanted}
        below: dict[int, Counter[bytes]] = {node: Counter() for node in wanted}
        for node, ext, count in zip(*self._rows):
            at = owner[node]
            if at >= 0:
                below[at][self.ext_names[ext]] += count
                if at == node:
                    direct[at][self.ext_names[ext]] += count
        for node in sorted(wanted, reverse=True):  # a wanted folder's counts go to wanted ancestors
            above = owner[self.parent[node]] if node else _NO_PARENT
            if above >= 0:
                below[above].update(below[node])
        for node in wanted:
            self._counted[node] = (+direct[node], +below[node])

    def direct_extensions(self, node: int) -> Counter[bytes]:
        self.count_extensions((node,))
        return self._counted[node][0]

    def subtree_extensions(self, node: int) -> Counter[bytes]:
        self.count_extensions((node,))
        return self._counted[node][1]


@dataclass(frozen=True)
class Folder:
    """One folder of a listing's tree, below its root folder `top`: a view of a table row."""

    table: FolderTable
    node: int
    top: int

    @property
    def path(self) -> bytes:
        """Relative to the root, ending in "/" (b"" for the root)."""
        return self.table.path(self.node, self.top)

    @property
    def depth(self) -> int:
        return self.table.depth(self.node) - self.table.depth(self.top)

    @property
    def files(self) -> int:
        """Files in its whole subtree."""
        return self.table.files[self.node]

    @property
    def direct_files(self) -> int:
        return self.table.direct[self.node]

    @property
    def direct(self) -> Counter[bytes]:
        """Extension -> files directly here."""
        return self.table.direct_extensions(self.node)

    def extensions(self) -> Counter[bytes]:
        return self.table.subtree_extensions(self.node)

    @property
    def children(self) -> dict[bytes, Folder]:
        """Name -> subfolder, for the subfolders that hold files."""
        table = self.table
        return {table.name(child): Folder(table, child, self.top) for child in table.children(self.node)}

    def subtree(self) -> Iterator[Folder]:
        """This folder and every folder below it (iteratively: paths can be very deep)."""
        stack = [self.node]
        while stack:
            node = stack.pop()
            yield Folder(self.table, node, self.top)
            stack.extend(self.table.children(node))

    def folders_below(self) -> int:
        """Folders below the root of a listing's tree (this folder): every folder that
        holds files is below it, or above it."""
        files = self.table.files
        if files[self.node] <= 0:
            return 0
        return len(files) - files.count(0) - self.table.depth(self.node) - 1

    def own_files(self, set_aside: re.Pattern[bytes]) -> int:
        """Files below this folder that are in no folder `set_aside` finds in their path
        (the search goes name by name, from here down: the pattern matches whole names)."""
        table = self.table
        state = bytearray(len(table))  # 0: not below here, 1: below, 2: below and set aside
        state[self.node] = 1
        own = table.direct[self.node]
        for node in range(self.node + 1, len(table)):
            above = state[table.parent[node]]
            if above == 1:
                if set_aside.search(table.name(node) + b"/") is None:
                    own += table.direct[node]
                else:
                    above = 2
            state[node] = above
        return own

    def collapsed(self) -> Folder:
        """Follow a chain of folders that each hold only one subfolder (src/main/java/…)."""
        folder = self
        while not folder.direct_files:
            only = list(self.table.children(folder.node))
            if len(only) != 1:
                break
            folder = Folder(self.table, only[0], self.top)
        return folder
