"""The folder store: the embedded default, one file per ref under a local folder.

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

`orjson` (which imports uuid, platform, datetime and json when loaded) and `tempfile` are
imported where a ref is read or written: a call that stores nothing (`tokens run -- true`)
does not load them.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from tokenlab.errors import RefNotFoundError, StoreCorruptionError, TokenlabError
from tokenlab.store.base import (
    ID_PREFIX,
    MIN_ID_DIGITS,
    RefInfo,
    RefRecord,
    Store,
    StoreStats,
    VerifyReport,
    mismatch,
    parse_ref_id,
)

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from typing import Any

LAYOUT = "v1"
TEMP_PREFIX = ".tmp-"
DAY_SECONDS = 86400
_VERIFY_BLOCK = 4 << 20  # few reads: each gives up the GIL and waits to take it back
_HEX_NAME_RE = re.compile(r"[0-9a-f]{6,64}")


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _header(hex_id: str, line: bytes) -> tuple[dict[str, Any], str]:
    """A ref file's parsed header line and the sha256 it names, or corruption naming the ref."""
    ref_id = ID_PREFIX + hex_id
    import orjson

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


def _decode(hex_id: str, blob: bytes) -> RefRecord:
    """Parse and verify one ref file; any inconsistency is corruption naming the ref."""
    ref_id = ID_PREFIX + hex_id
    newline = blob.find(b"\n") + 1
    meta, sha = _header(hex_id, blob[:newline] if newline else blob)
    data = blob[newline:]
    if len(data) != meta.get("bytes") or hashlib.sha256(data).hexdigest() != sha:
        raise mismatch(hex_id)
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


class FolderStore(Store):
    """Refs as files under `root`; `root` is also the folder for local state."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.refs_dir = root / LAYOUT / "refs"

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

    def put_stream_and_reload(
        self,
        blocks: Callable[[], Iterable[bytes | memoryview]],
        *,
        source: str,
        content_type: str,
        reason: str,
    ) -> tuple[str, str | None]:
        """`put_and_reload` block by block: the bytes are hashed in one pass over `blocks()`
        and written in another, and the file is checked by hashing it again (it must hold
        as many bytes as were given, under a header naming their sha256)."""
        digest, size = hashlib.sha256(), 0
        for block in blocks():
            digest.update(block)
            size += len(block)
        sha = digest.hexdigest()
        ref_id = self._claim_first(sha, size, blocks, source=source, content_type=content_type, reason=reason)
        try:
            path = self.ref_path(ref_id)
            _stream_check(path, self.root, None)
            if _header_sha(path) != sha:
                raise mismatch(path.name)
        except TokenlabError as error:
            return ref_id, str(error)
        return ref_id, None

    def _put(self, data: bytes, *, source: str, content_type: str, reason: str) -> tuple[str, str]:
        sha = hashlib.sha256(data).hexdigest()
        meta = {"source": source, "content_type": content_type, "reason": reason}
        return self._claim_first(sha, len(data), lambda: (data,), **meta), sha

    def _claim_first(
        self,
        sha: str,
        size: int,
        blocks: Callable[[], Iterable[bytes | memoryview]],
        *,
        source: str,
        content_type: str,
        reason: str,
    ) -> str:
        """The ref id of the bytes `blocks()` yields (sha256 `sha`), written if new: the
        shortest id prefix that names no other bytes."""
        import orjson

        header = orjson.dumps(
            {
                "sha256": sha,
                "source": source,
                "type": content_type,
                "reason": reason,
                "bytes": size,
                "created": time.time(),
            }
        )
        for digits in range(MIN_ID_DIGITS, len(sha) + 1):
            if self._claim(sha[:digits], sha, header, blocks()):
                return ID_PREFIX + sha[:digits]
        raise StoreCorruptionError(f"every id prefix of {sha} names other bytes; store is corrupt")

    def _claim(
        self,
        hex_id: str,
        sha: str,
        header: bytes,
        blocks: Iterable[bytes | memoryview],
        *,
        verify: bool = False,
    ) -> bool:
        """True if `hex_id` now names `sha` (newly or already); False if it names other bytes.
        With `verify`, the blocks must hash to `sha` before the ref is linked into place."""
        path = self.refs_dir / hex_id[:2] / hex_id
        if not path.exists():
            import tempfile

            folder = self._private_folder(path.parent)
            fd, temp = tempfile.mkstemp(dir=folder, prefix=TEMP_PREFIX)  # created 0600
            try:
                digest = hashlib.sha256() if verify else None
                with os.fdopen(fd, "wb") as handle:
                    handle.write(header + b"\n")
                    for block in blocks:
                        if digest is not None:
                            digest.update(block)
                        handle.write(block)
                    handle.flush()
                    os.fsync(handle.fileno())
                if digest is not None and digest.hexdigest() != sha:
                    raise mismatch(hex_id)
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
            raise RefNotFoundError(f"no ref {ID_PREFIX}{path.name} in store {self.name}") from None
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

    def init(self) -> str:
        self._private_folder(self.refs_dir)
        return f"folder store {self.name}: layout {LAYOUT}"

    def stats(self) -> StoreStats:
        count = total = 0
        oldest: float | None = None
        newest: float | None = None
        for entry in self.ref_files():
            if not _HEX_NAME_RE.fullmatch(entry.name):
                continue
            info = entry.stat()
            count += 1
            total += info.st_size
            oldest = info.st_mtime if oldest is None else min(oldest, info.st_mtime)
            newest = info.st_mtime if newest is None else max(newest, info.st_mtime)
        return StoreStats(count, total, oldest, newest)

    def verify(self) -> VerifyReport:
        """Re-hash every ref, streaming. Temp files of interrupted writes are listed, never refs."""
        report = VerifyReport()
        for entry in self.ref_files():
            if entry.name.startswith(TEMP_PREFIX):
                report.incomplete_writes.append(entry.path)
            elif not _HEX_NAME_RE.fullmatch(entry.name) or not entry.is_file():
                report.orphaned.append(entry.path)
            else:
                report.checked += 1
                try:
                    self.check(ID_PREFIX + entry.name)
                except StoreCorruptionError as error:
                    report.corrupt.append(str(error))
        return report

    def gc(self, older_than_days: float, dry_run: bool) -> list[str]:
        """Remove refs (and abandoned temp files) not written or read for `older_than_days`."""
        cutoff = time.time() - older_than_days * DAY_SECONDS
        removed = []
        for entry in self.ref_files():
            if entry.is_file() and entry.stat().st_mtime < cutoff:
                removed.append(entry.path)
                if not dry_run:
                    os.unlink(entry.path)
        return removed

    def refs(self, ids: list[str] | None = None) -> Iterator[RefInfo]:
        if ids is not None:
            paths: Iterable[Path] = (self.ref_path(ref_id) for ref_id in ids)
        else:
            paths = (Path(entry.path) for entry in self.ref_files() if _HEX_NAME_RE.fullmatch(entry.name))
        for path in paths:
            try:
                with open(path, "rb") as handle:
                    meta, sha = _header(path.name, handle.readline())
                mtime = path.stat().st_mtime
            except FileNotFoundError:
                continue
            yield _info(path.name, meta, sha, mtime)

    def read_blocks(self, ref_id: str) -> tuple[RefInfo, Iterator[bytes]]:
        path = self.ref_path(ref_id)
        try:
            with open(path, "rb") as handle:
                meta, sha = _header(path.name, handle.readline())
                info = _info(path.name, meta, sha, os.fstat(handle.fileno()).st_mtime)
        except FileNotFoundError:
            raise RefNotFoundError(f"no ref {ID_PREFIX}{path.name} in store {self.name}") from None

        def blocks() -> Iterator[bytes]:
            with open(path, "rb") as handle:
                handle.readline()
                while block := handle.read(_VERIFY_BLOCK):
                    yield block

        return info, blocks()

    def put_blocks(self, info: RefInfo, blocks: Iterator[bytes]) -> bool:
        import orjson

        hex_id = parse_ref_id(info.id)
        if not info.sha256.startswith(hex_id):
            raise StoreCorruptionError(f"ref {info.id}: names other bytes ({info.sha256})")
        path = self.refs_dir / hex_id[:2] / hex_id
        existed = path.exists()
        header = orjson.dumps(
            {
                "sha256": info.sha256,
                "source": info.source,
                "type": info.content_type,
                "reason": info.reason,
                "bytes": info.length,
                "created": info.created,
            }
        )
        if not self._claim(hex_id, info.sha256, header, blocks, verify=True):
            raise StoreCorruptionError(f"ref {info.id} already names other bytes in store {self.name}")
        return not existed


def _info(hex_id: str, meta: dict[str, Any], sha: str, last_use: float) -> RefInfo:
    return RefInfo(
        id=ID_PREFIX + hex_id,
        sha256=sha,
        source=str(meta.get("source", "")),
        content_type=str(meta.get("type", "")),
        reason=str(meta.get("reason", "")),
        length=int(meta.get("bytes", 0)),
        created=float(meta.get("created", 0.0)),
        last_use=last_use,
    )


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
        raise mismatch(path.name)
    return expected is None or (same and done == len(expected))


def _header_sha(path: Path) -> str | None:
    import orjson

    try:
        with open(path, "rb") as handle:
            meta: Any = orjson.loads(handle.readline())
        return str(meta["sha256"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
