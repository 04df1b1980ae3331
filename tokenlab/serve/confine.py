"""Confinement of client-named paths to a served root, shared by `tokens serve` and `tokens mcp`.

Both servers answer agents that name files; both must refuse, before anything is read, a
path with a `..` segment, an absolute path elsewhere, a symlink that leads out, or any of
these hidden behind percent-encoding. One implementation serves both so the two can
never disagree. Standard library only: `tokens mcp` imports it without FastAPI.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from tokenlab.errors import InputError
from tokenlab.reads.pointers import WORKTREE


class ForbiddenPathError(InputError):
    """A path outside the served root (HTTP 403)."""


class NotFoundError(InputError):
    """A path under the root that does not exist (HTTP 404)."""


def _decoded_forms(raw: str) -> list[str]:
    """The path as given and as percent-decoded (repeatedly), so encoded tricks are seen."""
    forms = [raw]
    for _ in range(4):
        decoded = unquote(forms[-1])
        if decoded == forms[-1]:
            break
        forms.append(decoded)
    return forms


def confine(root: Path, raw: str) -> Path:
    """The resolved file `raw` names under `root`; ForbiddenPathError for anything else."""
    if not raw.strip():
        raise InputError("the path is empty")
    for form in _decoded_forms(raw):
        if "\0" in form:
            raise ForbiddenPathError("NUL bytes are not allowed in paths")
        if ".." in PurePosixPath(form.replace("\\", "/")).parts:
            raise ForbiddenPathError(f"'..' is not allowed in paths: {raw!r}")
    candidate = Path(raw) if os.path.isabs(raw) else root / raw
    for form in _decoded_forms(raw)[1:]:
        if os.path.isabs(form) and not Path(os.path.normpath(form)).is_relative_to(root):
            raise ForbiddenPathError(f"{raw!r} decodes to a path outside the served root")
    if not Path(os.path.normpath(candidate)).is_relative_to(root):
        raise ForbiddenPathError(f"{raw!r} is outside the served root")
    resolved = candidate.resolve()
    if not resolved.is_relative_to(root):
        raise ForbiddenPathError(f"{raw!r} leads outside the served root (through a symlink)")
    if not resolved.exists():
        raise NotFoundError(f"no such file under the served root: {raw}")
    return resolved


def confine_pointer(root: Path, path: str, rev: str, base: Path | None) -> None:
    """A pointer's file must lie under the root: on disk for `worktree`, by name for commits."""
    target = Path(path) if base is None else base / path
    if rev == WORKTREE:
        if target.exists():
            confine(root, str(target))
        elif not Path(os.path.normpath(target)).is_relative_to(root):
            raise ForbiddenPathError(f"{path!r} is outside the served root")
    elif not Path(os.path.normpath(target)).is_relative_to(root):
        raise ForbiddenPathError(f"{path!r} is outside the served root")
