"""Path names said by their folder: what a reader of a long list of files counts and looks for.

A table's folded rows are named by their last column; when those names are paths (`lsof`'s
`NAME`, a listing of files with their sizes), a flat list repeats the same long folders on
every name and runs past any cap long before it has named every file. Said by folder, each
folder is written once with the exact number of rows under it, and every file's name
follows:

    /usr/lib/ (2): libssl.so.3, libz.so.1; …/numpy/random/ (3): mtrand.so, _pcg64.so, _sfc64.so

so "how many rows are under numpy" is a sum of counts a reader can see, and each name can
still be read and asked for. Folders are sorted, so that the folders of one tree stand
next to one another. The folder prefix whose saying once saves the most (a long one that
several folders share) is named first and written `…/` in them. An ending that every name
of a folder has after its first dot (a build tag: `.cpython-311-x86_64-linux-gnu.so`) is
said once for the folder: `…/random/ (3, each ending .cpython-311-x86_64-linux-gnu.so):
mtrand, _pcg64, _sfc64`. Names that differ in one number are said once
(`numbered.said_once`: `lib{0…149}.so`). Past `names_listed` names, a folder keeps its
count and says how many names it holds beyond those shown, so no row goes uncounted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from tokenlab.optimizers.lines import numbered

ROOT_MARK = "…/"


@dataclass(frozen=True)
class FolderLimits:
    path_share: float = 0.75  # names read as paths when this share of them is one word with a `/`
    root_min_bytes: int = 12  # a shared prefix shorter than this is written out in each folder
    root_min_folders: int = 2  # ...and so is one that fewer folders share
    ending_min_bytes: int = 8  # a folder's shared name ending this long is said once...
    ending_min_names: int = 2  # ...when this many distinct names share it
    names_listed: int = 200  # names shown in all; past them each folder gives its count only


DEFAULT_FOLDER_LIMITS = FolderLimits()
_NO_FOLDER = ""


def are_paths(names: Sequence[str], limits: FolderLimits = DEFAULT_FOLDER_LIMITS) -> bool:
    """Most names are one word holding a `/` (a command line with arguments is no path)."""
    filled = [name for name in names if name]
    paths = sum(1 for name in filled if "/" in name and not any(space in name for space in " \t"))
    return bool(filled) and paths >= limits.path_share * len(filled)


def by_folder(names: Sequence[str], limits: FolderLimits = DEFAULT_FOLDER_LIMITS) -> str:
    """``(… = /opt/app/) /usr/lib/ (2): a.so, b.so; …/x/ (1): c.so; other (1): pipe``: the
    names grouped by folder, each folder with its number of rows (see the module doc)."""
    groups: dict[str, list[str]] = {}
    for name in names:
        if name:
            folder, _, base = name.rpartition("/")
            has_folder = "/" in name and base
            key = folder + "/" if has_folder else _NO_FOLDER
            groups.setdefault(key, []).append(base if has_folder else name)
    folders = sorted(folder for folder in groups if folder != _NO_FOLDER)
    root = shared_root(folders, limits)
    said, budget = [], limits.names_listed
    for folder in [*folders, _NO_FOLDER] if _NO_FOLDER in groups else folders:
        shown = _short(folder, root) if folder != _NO_FOLDER else "other"
        bases = groups[folder]
        ending = shared_ending(bases, limits)
        if ending:
            bases = [base[: -len(ending)] for base in bases]
        listed, budget = _names(bases, budget)
        each = f", each ending {ending}" if ending else ""
        said.append(f"{shown} ({len(groups[folder])}{each}): {listed}")
    head = f"(… = {root}) " if root else ""
    return head + "; ".join(said)


def shared_root(folders: Sequence[str], limits: FolderLimits = DEFAULT_FOLDER_LIMITS) -> str:
    """The folder prefix whose writing once saves the most bytes: its length times the
    folders under it, among those at least `root_min_bytes` long shared by at least
    `root_min_folders` folders; "" when none is."""
    under: Counter[str] = Counter()
    for folder in folders:
        at = folder.find("/", 1)
        while at >= 0:
            under[folder[: at + 1]] += 1
            at = folder.find("/", at + 1)
    best, saved = "", 0
    for prefix, count in under.items():
        gain = (len(prefix) - len(ROOT_MARK)) * count
        if len(prefix) >= limits.root_min_bytes and count >= limits.root_min_folders and gain > saved:
            best, saved = prefix, gain
    return best


def shared_ending(bases: Sequence[str], limits: FolderLimits = DEFAULT_FOLDER_LIMITS) -> str:
    """The ending after the first dot that every one of a folder's names has (a build's
    tag: `.cpython-311-x86_64-linux-gnu.so`), when it is long and several names share it:
    said once for the folder; "" otherwise. Every name must have it, so that a name
    written without it is never read with it."""
    if len(set(bases)) < limits.ending_min_names:
        return ""
    endings = {base[base.find(".", 1) :] if base.find(".", 1) > 0 else "" for base in bases}
    ending = endings.pop() if len(endings) == 1 else ""
    return ending if len(ending) >= limits.ending_min_bytes else ""


def _short(folder: str, root: str) -> str:
    return ROOT_MARK + folder[len(root) :] if root and folder.startswith(root) else folder


def _names(bases: list[str], budget: int) -> tuple[str, int]:
    """A folder's names, each with its count when it names several rows (`null ×3`), those
    differing in one number said once; past `budget` names, how many more there are."""
    tally = Counter(bases)
    once = numbered.said_once([name for name, count in tally.items() if count == 1])
    counted = once + [f"{name} ×{count}" for name, count in tally.items() if count > 1]
    shown = counted[: max(budget, 0)]
    rest = len(counted) - len(shown)
    listed = ", ".join(shown) + (f"{', ' if shown else ''}… +{rest} names" if rest else "")
    return listed, budget - len(shown)
