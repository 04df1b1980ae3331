"""Content-addressed store for everything the visible text leaves out.

Layout (version 1, under the store root):

    v1/objects/<sha[:2]>/<sha256>      the exact bytes, nothing else
    v1/refs/<hex[:2]>/<hex>            JSON metadata of ref `ctx_<hex>`: sha256, source,
                                       type, reason, bytes, created

A ref id is `ctx_` + the first 6 hex digits of the sha256 of the stored bytes. When those
6 digits already name *different* bytes, the id takes one more digit, and so on: the same
bytes always get the same id in a given store, and a marker stays short. Changing this
scheme changes every id, so it is versioned by the `v1/` folder.

Writes are atomic and durable: a temp file in the destination folder, flushed and fsynced,
then renamed (objects) or hard-linked without replacement (refs, so racing writers agree
on one id). Reads re-hash the bytes and fail loudly on any mismatch.
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

import orjson

from tokenlab.errors import InputError, RefNotFoundError, StoreCorruptionError

LAYOUT = "v1"
ID_PREFIX = "ctx_"
MIN_ID_DIGITS = 6
DEFAULT_LOCATION = Path("var") / "context"
_ID_RE = re.compile(r"(?:#ref:)?ctx_([0-9a-f]{6,64})")


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


class Store:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.base = root / LAYOUT

    @classmethod
    def resolve(cls, explicit: Path | None = None) -> Store:
        """--store DIR, else $TOKENLAB_STORE, else ./var/context."""
        if explicit is not None:
            return cls(explicit)
        env = os.environ.get("TOKENLAB_STORE")
        return cls(Path(env) if env else DEFAULT_LOCATION)

    def _object_path(self, sha: str) -> Path:
        return self.base / "objects" / sha[:2] / sha

    def _ref_path(self, hex_id: str) -> Path:
        return self.base / "refs" / hex_id[:2] / hex_id

    def _folder(self, path: Path) -> Path:
        """The folder of `path`, created owner-only (0700) level by level where missing."""
        missing = []
        folder = path.parent
        while not folder.is_dir():
            missing.append(folder)
            folder = folder.parent
        for level in reversed(missing):
            # Owner-only: the store holds everything that was kept out of the context.
            level.mkdir(mode=0o700, exist_ok=True)
        return path.parent

    def _write_temp(self, folder: Path, chunks: Iterator[bytes] | tuple[bytes, ...]) -> str:
        fd, temp = tempfile.mkstemp(dir=folder, prefix=".tmp-")  # mkstemp creates 0600
        try:
            with os.fdopen(fd, "wb") as handle:
                for chunk in chunks:
                    handle.write(chunk)
                handle.flush()
                os.fsync(handle.fileno())
        except BaseException:
            os.unlink(temp)
            raise
        return temp

    def put(self, data: bytes, *, source: str, content_type: str, reason: str) -> str:
        """Store `data` (idempotent) and return its ref id, e.g. `ctx_31154f`."""
        sha = hashlib.sha256(data).hexdigest()
        self._put_object(sha, data)
        meta = orjson.dumps(
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
            hex_id = sha[:digits]
            if self._claim_ref(hex_id, sha, meta):
                return ID_PREFIX + hex_id
        raise StoreCorruptionError(f"every id prefix of {sha} names other bytes; store is corrupt")

    def _put_object(self, sha: str, data: bytes) -> None:
        path = self._object_path(sha)
        if path.exists() and path.stat().st_size == len(data):
            return
        folder = self._folder(path)
        temp = self._write_temp(folder, (data,))
        os.replace(temp, path)
        _fsync_dir(folder)

    def _claim_ref(self, hex_id: str, sha: str, meta: bytes) -> bool:
        """True if `hex_id` now names `sha` (newly or already); False if it names other bytes."""
        path = self._ref_path(hex_id)
        if not path.exists():
            folder = self._folder(path)
            temp = self._write_temp(folder, (meta,))
            try:
                os.link(temp, path)  # fails if another writer claimed the id first
                _fsync_dir(folder)
                return True
            except FileExistsError:
                pass
            finally:
                os.unlink(temp)
        return self._read_meta(hex_id)["sha256"] == sha

    def _read_meta(self, hex_id: str) -> dict[str, object]:
        path = self._ref_path(hex_id)
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raise RefNotFoundError(f"no ref ctx_{hex_id} in store {self.root}") from None
        try:
            meta = orjson.loads(raw)
            if not isinstance(meta, dict) or not isinstance(meta.get("sha256"), str):
                raise ValueError("missing sha256")
        except ValueError:
            raise StoreCorruptionError(f"ref ctx_{hex_id}: metadata is corrupt ({path})") from None
        return meta

    def load(self, ref_id: str) -> RefRecord:
        """Reload a ref's exact bytes, verifying them against their hash."""
        hex_id = parse_ref_id(ref_id)
        meta = self._read_meta(hex_id)
        sha = str(meta["sha256"])
        if not sha.startswith(hex_id):
            raise StoreCorruptionError(f"ref ctx_{hex_id}: metadata names other bytes ({sha})")
        try:
            data = self._object_path(sha).read_bytes()
        except FileNotFoundError:
            raise StoreCorruptionError(f"ref ctx_{hex_id}: stored bytes are missing") from None
        if hashlib.sha256(data).hexdigest() != sha:
            raise StoreCorruptionError(
                f"ref ctx_{hex_id}: stored bytes do not match their sha256 (corrupt or truncated)"
            )
        return RefRecord(
            id=ID_PREFIX + hex_id,
            sha256=sha,
            source=str(meta.get("source", "")),
            content_type=str(meta.get("type", "")),
            reason=str(meta.get("reason", "")),
            length=len(data),
            created=float(meta.get("created", 0.0)),  # type: ignore[arg-type]
            data=data,
        )
