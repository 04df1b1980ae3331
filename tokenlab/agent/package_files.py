"""Whether a package's files are still the ones a long-lived process started with: how the
warm worker knows that it may answer a client (see `worker.py`).

The worker runs the code it loaded at start; a client runs the files as they are now. A
client at the same folder and version gets the same code unless a file changed since, as in
an editable install being worked on. Checking that on every request is the worker's job, so
that a short-lived client pays nothing for it: it sends only its version and folder.

The check costs a `stat` per folder and per file, no listing and no checksum: a folder's
modification time changes whenever an entry is added, removed or renamed in it (an editor
saving by rename included), and a file's size or modification time when it is written. A
folder that changed is listed again and its files compared, so a compiled-files folder
created beside the modules (Python writes them on import) does not count as a change.
Compiled files themselves are never looked at: they follow from the sources.
"""

from __future__ import annotations

import os

COMPILED_FOLDER = "__pycache__"

FileState = tuple[int, int]  # size, modification time in nanoseconds


def scan(folder: str) -> tuple[dict[str, int], dict[str, FileState]]:
    """Every folder under `folder` (itself included; compiled folders aside) with its
    modification time, and every file in them with its size and modification time."""
    folders: dict[str, int] = {}
    files: dict[str, FileState] = {}
    pending = [folder]
    while pending:
        path = pending.pop()
        try:
            folders[path] = os.stat(path).st_mtime_ns
            with os.scandir(path) as listing:
                for entry in listing:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name != COMPILED_FOLDER:
                            pending.append(entry.path)
                    elif entry.is_file():
                        info = entry.stat()
                        files[entry.path] = (info.st_size, info.st_mtime_ns)
        except OSError:  # removed while listed: as good as changed
            folders[path] = -1
    return folders, files


class PackageFiles:
    """The files under a folder as they were when this was made; `unchanged()` says whether
    they still are."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self._folders, self._files = scan(folder)

    def unchanged(self) -> bool:
        """Whether no file under the folder was added, removed or written since."""
        for path, modified in self._folders.items():
            if _modified(path) != modified:
                return self._listed_again()
        for path, state in self._files.items():
            try:
                info = os.stat(path)
            except OSError:
                return False
            if (info.st_size, info.st_mtime_ns) != state:
                return False
        return True

    def _listed_again(self) -> bool:
        """After a folder changed: whether its files did (a new compiled folder is no change;
        the folders' new times are kept so that the next check is quick again)."""
        folders, files = scan(self.folder)
        if files != self._files:
            return False
        self._folders = folders
        return True


def _modified(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1
