"""Files with no name, for output and input spooled to disk: nothing is left behind,
however the process ends. Imports only `os`: the warm `tokens run` loads it."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing on every call

if TYPE_CHECKING:
    from typing import IO


def unnamed_file(folder: str | os.PathLike[str] | None, buffering: int = -1) -> IO[bytes]:
    """A file in `folder` with no name (O_TMPFILE), or an unlinked temp file where the
    system or the folder has no such files (or none is given)."""
    if folder is not None:
        try:
            return os.fdopen(os.open(folder, os.O_TMPFILE | os.O_RDWR, 0o600), "w+b", buffering=buffering)
        except (AttributeError, OSError):
            pass
    import tempfile

    return tempfile.TemporaryFile(dir=folder, buffering=buffering)
