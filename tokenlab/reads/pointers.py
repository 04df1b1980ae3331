"""Evidence pointers: naming exact lines of a file at a commit, and reading them back.

A pointer is `nas://<node>/<tree>/<path>@<rev>#L<a>-L<b>`: the machine (node), the
repository folder name (tree), the path relative to the repository root, the revision and
a 1-based inclusive line range. The short form `<path>@<rev>#L<a>-L<b>` is accepted
everywhere. Each pointer travels with the sha256 of the exact bytes of its lines.

`<rev>` is the full commit hash when the bytes read are exactly the blob at HEAD (the
file is tracked and unmodified), so `deref` can read them back from git no matter how the
working tree moves on. Otherwise it is `worktree`: the lines are read from the working
tree at deref time and only the sha256 says whether they are still the ones that were
read. A file outside any repository has an empty tree and an absolute path
(`nas://node//etc/hosts@worktree#L1-L3`).

Git is reached through `git` subprocesses only; every user-supplied revision goes after
`--end-of-options`, and paths are literal pathspecs.
"""

from __future__ import annotations

import hashlib
import os
import re
import socket
import subprocess
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import accumulate
from pathlib import Path, PurePosixPath

from tokenlab.errors import InputError, TokenlabError

WORKTREE = "worktree"
MAX_READ_BYTES = 32 * 1024 * 1024  # a whole file is held, decoded and outlined in memory
SCHEME = "nas://"
_RANGE_RE = re.compile(r"#L(\d+)(?:-L(\d+))?\Z")
_REV_RE = re.compile(r"[0-9A-Za-z._/~^-]+\Z")
_NODE_RE = re.compile(r"[^/@#\s]+\Z")
_FULL_HASH_RE = re.compile(r"(?:[0-9a-f]{40}|[0-9a-f]{64})\Z")
_GIT_TIMEOUT_SECONDS = 60


class PointerTargetError(InputError):
    """The commit, path or line range a pointer names does not exist (exit 2)."""


class VerificationError(TokenlabError):
    """Dereferenced bytes do not match the expected sha256 (exit 1)."""

    exit_code = 1


class GitError(TokenlabError):
    """git is missing or failed unexpectedly (exit 1)."""

    exit_code = 1


@dataclass(frozen=True)
class Pointer:
    path: str
    rev: str
    start: int | None = None
    end: int | None = None
    node: str | None = None
    tree: str | None = None

    @property
    def fragment(self) -> str:
        return "" if self.start is None else f"#L{self.start}-L{self.end}"

    @property
    def short(self) -> str:
        return f"{self.path}@{self.rev}{self.fragment}"

    @property
    def uri(self) -> str:
        if self.node is None or self.tree is None:
            return self.short
        separator = "" if self.path.startswith("/") else "/"
        return f"{SCHEME}{self.node}/{self.tree}{separator}{self.path}@{self.rev}{self.fragment}"

    def __str__(self) -> str:
        return self.uri


@dataclass(frozen=True)
class Evidence:
    pointer: str
    sha256: str

    def as_dict(self) -> dict[str, str]:
        return {"pointer": self.pointer, "sha256": self.sha256}


def default_node() -> str:
    """$TOKENLAB_NODE, else the host name."""
    return validate_node(os.environ.get("TOKENLAB_NODE") or socket.gethostname() or "localhost")


def validate_node(node: str) -> str:
    if not _NODE_RE.match(node):
        raise InputError(f"node name {node!r} may not contain '/', '@', '#' or spaces")
    return node


def parse_pointer(text: str) -> Pointer:
    """Parse the long (`nas://…`) or short (`path@rev#L1-L2`) form; InputError if neither."""
    raw = text.strip()
    start = end = None
    match = _RANGE_RE.search(raw)
    if match:
        start = int(match.group(1))
        end = int(match.group(2) or match.group(1))
        raw = raw[: match.start()]
        if start < 1 or end < start:
            raise InputError(f"bad line range in pointer {text!r}: lines are 1-based, start <= end")
    location, at, rev = raw.rpartition("@")
    if not at or not location or not _REV_RE.match(rev) or rev.startswith("-"):
        raise InputError(
            f"not a pointer: {text!r} (expected nas://node/tree/path@commit#L1-L2 or path@commit#L1-L2)"
        )
    node = tree = None
    path = location
    if location.startswith(SCHEME):
        node, _, rest = location[len(SCHEME) :].partition("/")
        tree, slash, path = rest.partition("/")
        if not node or not slash or not path:
            raise InputError(f"not a pointer: {text!r} (expected nas://node/tree/path@commit…)")
        if not tree:
            path = "/" + path.lstrip("/")
    _check_path(path, text)
    return Pointer(path=path, rev=rev, start=start, end=end, node=node, tree=tree)


def _check_path(path: str, text: str) -> None:
    parts = PurePosixPath(path).parts
    if ".." in parts or "\0" in path:
        raise InputError(f"pointer path may not contain '..' or NUL: {text!r}")


# --- lines and hashes -------------------------------------------------------------------


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def line_count(data: bytes) -> int:
    """Lines as an editor numbers them: a final line without newline still counts."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def line_offsets(data: bytes) -> list[int]:
    """Byte offset where each line starts, plus len(data) at the end."""
    offsets = [0, *accumulate(len(line) + 1 for line in data.split(b"\n")[:-1])]
    if offsets[-1] != len(data):
        offsets.append(len(data))
    return offsets


def line_slice(data: bytes, start: int, end: int, *, offsets: list[int] | None = None) -> bytes:
    """Exact bytes of lines start..end (1-based, inclusive, newlines included)."""
    offsets = offsets if offsets is not None else line_offsets(data)
    total = len(offsets) - 1
    if start < 1 or end < start or end > total:
        raise PointerTargetError(f"lines L{start}-L{end} are outside the file ({total} lines)")
    return data[offsets[start - 1] : offsets[end]]


# --- git ----------------------------------------------------------------------------------


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    """Run git in `repo`; never prompts, never touches the index lock, literal pathspecs."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    command = ["git", "-C", str(repo), "--literal-pathspecs", "-c", "core.quotepath=off", *args]
    try:
        result = subprocess.run(
            command, capture_output=True, env=env, timeout=_GIT_TIMEOUT_SECONDS, check=False
        )
    except FileNotFoundError as error:
        raise GitError("git is not installed or not on PATH") from error
    except subprocess.TimeoutExpired as error:
        raise GitError(f"git {args[0]} took longer than {_GIT_TIMEOUT_SECONDS}s") from error
    if check and result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed: {message[-1] if message else result.returncode}")
    return result


def repo_root(directory: Path) -> Path | None:
    """The top folder of the git work tree holding `directory`, or None."""
    if not directory.is_dir():
        return None
    result = git(directory, "rev-parse", "--show-toplevel", check=False)
    if result.returncode != 0:
        return None
    return Path(os.fsdecode(result.stdout.rstrip(b"\n"))).resolve()


def head_commit(root: Path) -> str | None:
    result = git(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False)
    if result.returncode != 0:
        return None
    return result.stdout.decode().strip() or None


def resolve_commit(root: Path, rev: str) -> str:
    """The full hash of commit `rev`; PointerTargetError when there is no such commit."""
    if rev.startswith("-") or not _REV_RE.match(rev):
        raise InputError(f"not a revision: {rev!r}")
    if _FULL_HASH_RE.match(rev):
        return _resolve_full_hash(root, rev)
    return _resolve(root, rev)


@lru_cache(maxsize=256)
def _resolve_full_hash(root: Path, rev: str) -> str:
    """A full hash names the same commit forever, so the answer can be remembered."""
    return _resolve(root, rev)


def _resolve(root: Path, rev: str) -> str:
    result = git(
        root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}", check=False
    )
    if result.returncode != 0:
        raise PointerTargetError(f"unknown commit {rev!r} in repository {root.name}")
    return result.stdout.decode().strip()


def tree_entry(root: Path, commit: str, relpath: str) -> tuple[str, str] | None:
    """(object type, object id) of `relpath` at `commit`, or None when it is absent."""
    result = git(root, "ls-tree", "-z", "--end-of-options", commit, "--", relpath, check=False)
    if result.returncode != 0 or not result.stdout:
        return None
    meta, _, name = result.stdout.rstrip(b"\0").partition(b"\t")
    if os.fsdecode(name) != relpath:
        return None
    _, kind, oid = meta.decode().split()
    return kind, oid


def blob_id(data: bytes, oid_length: int) -> str:
    """The id git gives a blob of these bytes (sha1 or sha256 repositories)."""
    header = b"blob %d\0" % len(data)
    digest = hashlib.sha256 if oid_length == 64 else hashlib.sha1
    return digest(header + data).hexdigest()


def read_at_commit(root: Path, commit: str, relpath: str) -> bytes:
    """Exact bytes of `relpath` at `commit` (`git show <commit>:<path>`, no text filters)."""
    if _FULL_HASH_RE.match(commit):
        return _read_at_full_hash(root, commit, relpath)
    return _read_at(root, commit, relpath)


@lru_cache(maxsize=8)
def _read_at_full_hash(root: Path, commit: str, relpath: str) -> bytes:
    """Blobs at a full commit hash never change; derefs of one file's lines share one read."""
    return _read_at(root, commit, relpath)


def _read_at(root: Path, commit: str, relpath: str) -> bytes:
    entry = tree_entry(root, commit, relpath)
    if entry is None:
        raise PointerTargetError(f"{relpath} does not exist at commit {commit[:12]} in {root.name}")
    if entry[0] != "blob":
        raise PointerTargetError(f"{relpath} is a {entry[0]}, not a file, at commit {commit[:12]}")
    return git(root, "show", "--no-textconv", "--end-of-options", f"{commit}:{relpath}").stdout


# --- where a file lives, and at which revision it was read ---------------------------------


@dataclass(frozen=True)
class Location:
    """A file as a pointer names it: repository root and name (if any) and its path there."""

    file: Path
    repo: Path | None
    relpath: str

    @property
    def tree(self) -> str:
        return self.repo.name if self.repo else ""


def locate(path: Path) -> Location:
    """Resolve symlinks, then find the repository holding the file."""
    file = path.resolve()
    repo = repo_root(file.parent)
    if repo is not None and file.is_relative_to(repo):
        return Location(file, repo, file.relative_to(repo).as_posix())
    return Location(file, None, file.as_posix())


def revision_for(location: Location, data: bytes) -> str:
    """The HEAD commit when `data` is exactly the file's blob there, else `worktree`."""
    if location.repo is None:
        return WORKTREE
    head = head_commit(location.repo)
    if head is None:
        return WORKTREE
    entry = tree_entry(location.repo, head, location.relpath)
    if entry is None or entry[0] != "blob" or blob_id(data, len(entry[1])) != entry[1]:
        return WORKTREE
    return head


@dataclass(frozen=True)
class SourceFile:
    """The bytes of a file as read, and how to point at any of its lines."""

    location: Location
    data: bytes
    revision: str
    node: str

    @property
    def line_count(self) -> int:
        return len(self.offsets) - 1

    @cached_property
    def offsets(self) -> list[int]:
        return line_offsets(self.data)

    @property
    def display_path(self) -> str:
        return self.location.relpath

    def pointer(self, start: int | None = None, end: int | None = None) -> Pointer:
        if start is None and self.line_count:
            start, end = 1, self.line_count
        return Pointer(
            path=self.location.relpath,
            rev=self.revision,
            start=start,
            end=end,
            node=self.node,
            tree=self.location.tree,
        )

    def evidence(self, start: int | None = None, end: int | None = None) -> Evidence:
        pointer = self.pointer(start, end)
        if pointer.start is None or pointer.end is None:
            return Evidence(pointer.uri, sha256_hex(self.data))
        lines = line_slice(self.data, pointer.start, pointer.end, offsets=self.offsets)
        return Evidence(pointer.uri, sha256_hex(lines))


def open_source(path: Path, node: str | None = None) -> SourceFile:
    """Read a file and work out the revision its pointers will name."""
    if not path.exists():
        raise InputError(f"no such file: {path}")
    if path.is_dir():
        raise InputError(f"{path} is a folder, not a file")
    if not path.is_file():
        raise InputError(f"{path} is not a regular file (a device, pipe or socket)")
    size = path.stat().st_size
    if size > MAX_READ_BYTES:
        raise InputError(
            f"{path} is {size:,} bytes; budgeted reads take files up to {MAX_READ_BYTES:,} bytes"
        )
    try:
        data = path.read_bytes()
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror}") from error
    location = locate(path)
    return SourceFile(location, data, revision_for(location, data), node or default_node())


# --- deref --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Dereferenced:
    pointer: Pointer
    commit: str
    data: bytes

    @property
    def sha256(self) -> str:
        return sha256_hex(self.data)

    def verify(self, expected: str) -> None:
        if self.sha256 != expected.strip().lower():
            where = "the working tree" if self.commit == WORKTREE else f"commit {self.commit[:12]}"
            raise VerificationError(
                f"sha256 mismatch for {self.pointer.short}: expected {expected.strip()}, "
                f"{where} has {self.sha256}"
            )

    def as_dict(self) -> dict[str, object]:
        return {
            "pointer": self.pointer.uri,
            "commit": self.commit,
            "path": self.pointer.path,
            "start_line": self.pointer.start,
            "end_line": self.pointer.end,
            "sha256": self.sha256,
            "content": self.data.decode("utf-8", "replace"),
        }


def base_folder(pointer: Pointer, repo: Path | None) -> Path | None:
    """The folder a pointer's path is relative to (None for an absolute path)."""
    if pointer.path.startswith("/"):
        return None
    start = (repo or Path.cwd()).resolve()
    root = repo_root(start) or start
    if pointer.tree is not None and pointer.tree != root.name:
        raise PointerTargetError(
            f"the pointer names tree {pointer.tree!r} but the repository here is {root.name!r}; "
            "run from inside that repository or pass --repo"
        )
    return root


def deref(pointer: Pointer, *, repo: Path | None = None, node: str | None = None) -> Dereferenced:
    """Read a pointer's exact bytes: from git for a commit, from disk for `worktree`."""
    base = base_folder(pointer, repo)
    target = Path(pointer.path) if base is None else base / pointer.path
    if pointer.rev == WORKTREE:
        local = node or default_node()
        if pointer.node is not None and pointer.node != local:
            raise PointerTargetError(
                f"working-tree pointer from node {pointer.node!r}; this is {local!r} "
                "(set TOKENLAB_NODE or --node if that is this machine)"
            )
        if not target.is_file():
            raise PointerTargetError(f"no such file in the working tree: {pointer.path}")
        data = target.read_bytes()
        commit = WORKTREE
    else:
        root = base if base is not None else repo_root(target.parent)
        if root is None:
            raise PointerTargetError(f"{pointer.path} is not inside a git repository")
        relpath = pointer.path if base is not None else _relative_to_repo(target, root)
        commit = resolve_commit(root, pointer.rev)
        data = read_at_commit(root, commit, relpath)
    if pointer.start is not None and pointer.end is not None:
        data = line_slice(data, pointer.start, pointer.end)
    return Dereferenced(pointer, commit, data)


def _relative_to_repo(target: Path, root: Path) -> str:
    absolute = Path(os.path.abspath(target))
    if not absolute.is_relative_to(root):
        absolute = absolute.parent.resolve() / absolute.name
    if not absolute.is_relative_to(root):
        raise PointerTargetError(f"{target} is not inside repository {root}")
    return absolute.relative_to(root).as_posix()
