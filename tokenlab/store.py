"""Content-addressed store for everything the visible text leaves out.

Layout (version 1, under the store root):

    v1/refs/<hex[:2]>/<hex>     one file per ref `ctx_<hex>`: a JSON header line
                                {sha256, source, type, reason, bytes, created}, then the
                                exact stored bytes

A ref id is `ctx_` + the first 6 hex digits of the sha256 of the stored bytes. When those
6 digits already name *different* bytes, the id takes one more digit, and so on: the same
bytes always get the same id in a given store, and a marker stays short. Changing this
scheme changes every id, so it is versioned by the `v1/` folder.

A ref is one file, written to a temp file in its folder, flushed and fsynced, then
hard-linked into place without replacement (racing writers agree on one id) and fsynced
into its folder: a killed writer leaves a complete ref or none, at worst an unlinked
`.tmp-*` file that no read ever accepts. Reads re-hash the bytes and fail loudly on any
mismatch. Files are 0600 and folders 0700: the store holds what was kept out of context.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from tokenlab.errors import InputError, RefNotFoundError, StoreCorruptionError, TokenlabError

LAYOUT = "v1"
ID_PREFIX = "ctx_"
MIN_ID_DIGITS = 6
DEFAULT_LOCATION = Path("var") / "context"
TEMP_PREFIX = ".tmp-"
_VERIFY_BLOCK = 4 << 20  # few reads: each gives up the GIL and waits to take it back
_ID_RE = re.compile(r"(?:#ref:)?ctx_([0-9a-f]{6,64})")
_HEX_NAME_RE = re.compile(r"[0-9a-f]{6,64}")


@dataclass(frozen=True)
class RefRecord:
    id: str
    sha256: str
    source: str
    content_type: str
    reason: str
    length: int
    created: float
    data: bytes

    @property
    def marker(self) -> str:
        return f"#ref:{self.id}"


def parse_ref_id(text: str) -> str:
    """Accept `ctx_…` or `#ref:ctx_…`; return the hex part."""
    match = _ID_RE.fullmatch(text.strip())
    if not match:
        raise InputError(f"not a ref id: {text.strip()!r} (expected ctx_<hex> or #ref:ctx_<hex>)")
    return match.group(1)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _header(hex_id: str, line: bytes) -> tuple[dict[str, Any], str]:
    """A ref file's parsed header line and the sha256 it names, or corruption naming the ref."""
    ref_id = ID_PREFIX + hex_id
    try:
        meta = orjson.loads(line) if line.endswith(b"\n") else None
        sha = meta["sha256"] if isinstance(meta, dict) else None
    except (ValueError, KeyError):
        sha = None
    if not isinstance(sha, str) or not isinstance(meta, dict):
        raise StoreCorruptionError(f"ref {ref_id}: header is corrupt or truncated")
    if not sha.startswith(hex_id):
        raise StoreCorruptionError(f"ref {ref_id}: header names other bytes ({sha})")
    return meta, sha


def _mismatch(hex_id: str) -> StoreCorruptionError:
    return StoreCorruptionError(
        f"ref {ID_PREFIX}{hex_id}: stored bytes do not match their sha256 (corrupt or truncated)"
    )


def _decode(hex_id: str, blob: bytes) -> RefRecord:
    """Parse and verify one ref file; any inconsistency is corruption naming the ref."""
    ref_id = ID_PREFIX + hex_id
    newline = blob.find(b"\n") + 1
    meta, sha = _header(hex_id, blob[:newline] if newline else blob)
    data = blob[newline:]
    if len(data) != meta.get("bytes") or hashlib.sha256(data).hexdigest() != sha:
        raise _mismatch(hex_id)
    return RefRecord(
        id=ref_id,
        sha256=sha,
        source=str(meta.get("source", "")),
        content_type=str(meta.get("type", "")),
        reason=str(meta.get("reason", "")),
        length=len(data),
        created=float(meta.get("created", 0.0)),
        data=data,
    )


class Store:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.refs_dir = root / LAYOUT / "refs"

    @classmethod
    def resolve(cls, explicit: Path | None = None) -> Store:
        """--store DIR, else $TOKENLAB_STORE, else ./var/context."""
        if explicit is not None:
            return cls(explicit)
        env = os.environ.get("TOKENLAB_STORE")
        return cls(Path(env) if env else DEFAULT_LOCATION)

    def ref_path(self, ref_id: str) -> Path:
        hex_id = parse_ref_id(ref_id)
        return self.refs_dir / hex_id[:2] / hex_id

    def _private_folder(self, folder: Path) -> Path:
        """Create `folder` owner-only (0700) level by level where missing.

        Each new folder's parent is fsynced: a ref written into a new shard is durable only
        once the folder's own entry is.
        """
        missing = []
        level = folder
        while not level.is_dir():
            missing.append(level)
            level = level.parent
        for path in reversed(missing):
            path.mkdir(mode=0o700, exist_ok=True)
            _fsync_dir(path.parent)
        return folder

    def put(self, data: bytes, *, source: str, content_type: str, reason: str) -> str:
        """Store `data` (idempotent) and return its ref id, e.g. `ctx_31154f`."""
        return self._put(data, source=source, content_type=content_type, reason=reason)[0]

    def put_and_reload(
        self, data: bytes, *, source: str, content_type: str, reason: str
    ) -> tuple[str, str | None]:
        """`put`, then reload the ref and compare it with `data` byte for byte, streaming.

        Returns the ref id and why it does not reload as exactly `data` (None if it does).
        The sha256 that named the ref stands in for hashing the file again: bytes equal to
        `data` under a header naming that sha are intact.
        """
        ref_id, sha = self._put(data, source=source, content_type=content_type, reason=reason)
        try:
            _stream_check(self.ref_path(ref_id), self.root, data, sha)
        except TokenlabError as error:
            return ref_id, str(error)
        return ref_id, None

    def _put(self, data: bytes, *, source: str, content_type: str, reason: str) -> tuple[str, str]:
        sha = hashlib.sha256(data).hexdigest()
        header = orjson.dumps(
            {
                "sha256": sha,
                "source": source,
                "type": content_type,
                "reason": reason,
                "bytes": len(data),
                "created": time.time(),
            }
        )
        for digits in range(MIN_ID_DIGITS, len(sha) + 1):
            if self._claim(sha[:digits], sha, header, data):
                return ID_PREFIX + sha[:digits], sha
        raise StoreCorruptionError(f"every id prefix of {sha} names other bytes; store is corrupt")

    def _claim(self, hex_id: str, sha: str, header: bytes, data: bytes) -> bool:
        """True if `hex_id` now names `sha` (newly or already); False if it names other bytes."""
        path = self.refs_dir / hex_id[:2] / hex_id
        if not path.exists():
            folder = self._private_folder(path.parent)
            fd, temp = tempfile.mkstemp(dir=folder, prefix=TEMP_PREFIX)  # created 0600
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(header + b"\n")
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.link(temp, path)  # never replaces: the first complete writer wins
                _fsync_dir(folder)
                return True
            except FileExistsError:
                pass
            finally:
                os.unlink(temp)
        existing = _header_sha(path)
        if existing == sha:
            os.utime(path)  # written again: counts as recent use for `store gc`
            _fsync_dir(path.parent)  # another writer's link may not be durable yet
        return existing == sha

    def load(self, ref_id: str) -> RefRecord:
        """Reload a ref's exact bytes, verifying them against their hash."""
        path = self.ref_path(ref_id)
        try:
            blob = path.read_bytes()
        except FileNotFoundError:
            raise RefNotFoundError(f"no ref {ID_PREFIX}{path.name} in store {self.root}") from None
        record = _decode(path.name, blob)
        os.utime(path)  # read: counts as recent use for `store gc`
        return record

    def holds(self, ref_id: str, data: bytes) -> bool:
        """Whether the ref reloads as exactly `data`, streaming: no second copy in memory.

        The file is verified as `load` verifies it (header, length, sha256) and compared
        byte for byte; a missing or corrupt ref raises as `load` does.
        """
        return _stream_check(self.ref_path(ref_id), self.root, data)

    def check(self, ref_id: str) -> None:
        """Verify a ref as `load` does, streaming, without reading it into memory."""
        _stream_check(self.ref_path(ref_id), self.root, None)

    def ref_files(self) -> Iterator[os.DirEntry[str]]:
        """Every file under the refs folder, shard by shard, without listing it all at once."""
        if not self.refs_dir.is_dir():
            return
        with os.scandir(self.refs_dir) as shards:
            for shard in shards:
                if not shard.is_dir():
                    yield shard
                    continue
                with os.scandir(shard.path) as entries:
                    yield from entries


def _stream_check(path: Path, root: Path, expected: bytes | None, sha_of_expected: str = "") -> bool:
    """Verify the ref file at `path` block by block; True if it holds exactly `expected`.

    Given `sha_of_expected`, the file must hold exactly `expected` under a header naming
    that sha, and is not hashed again; anything else is corruption.
    """
    digest = None if sha_of_expected else hashlib.sha256()
    same, done = True, 0
    if not path.is_file():
        raise RefNotFoundError(f"no ref {ID_PREFIX}{path.name} in store {root}")
    with open(path, "rb") as handle:
        meta, sha = _header(path.name, handle.readline())
        while block := handle.read(_VERIFY_BLOCK):
            if digest:
                digest.update(block)
            if expected is not None:
                same = same and expected.startswith(block, done)  # compares in place, no copy
            done += len(block)
    if digest is None:
        intact = sha == sha_of_expected and same and done == len(expected or b"")
    else:
        intact = digest.hexdigest() == sha
    if done != meta.get("bytes") or not intact:
        raise _mismatch(path.name)
    return expected is None or (same and done == len(expected))


def _header_sha(path: Path) -> str | None:
    try:
        with open(path, "rb") as handle:
            meta: Any = orjson.loads(handle.readline())
        return str(meta["sha256"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
