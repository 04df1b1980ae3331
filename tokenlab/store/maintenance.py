"""`tokens store stats | verify | gc | copy | init`, over any backend; each streams."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from tokenlab.errors import RefNotFoundError, StoreCorruptionError
from tokenlab.store.base import RefInfo, Store, StoreStats, VerifyReport, mismatch, parse_ref_id

__all__ = ["CopyReport", "StoreStats", "VerifyReport", "copy", "gc", "init", "stats", "verify"]


def stats(store: Store) -> StoreStats:
    return store.stats()


def verify(store: Store) -> VerifyReport:
    """Re-hash every ref, streaming. Leftovers of interrupted writes are listed, never refs."""
    return store.verify()


def gc(store: Store, older_than_days: float, dry_run: bool) -> list[str]:
    """Remove refs not written or read for `older_than_days` (folder: also abandoned temp files)."""
    return store.gc(older_than_days, dry_run)


def init(store: Store) -> str:
    """Create the store (folder, or schema) if missing; a line saying what is there."""
    return store.init()


@dataclass
class CopyReport:
    copied: list[str] = field(default_factory=list)
    present: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.missing and not self.failed


def copy(source: Store, target: Store, ids: list[str] | None = None) -> CopyReport:
    """Copy refs (all, or `ids`) from `source` to `target` under the same ids, streaming.

    Each ref's bytes are hashed on the way and must match its sha256 before the target
    makes it visible; refs the target already holds are skipped; an id that names other
    bytes in the target, or a corrupt source ref, is reported and the rest go on.
    """
    report = CopyReport()
    wanted = [f"ctx_{parse_ref_id(ref_id)}" for ref_id in ids] if ids is not None else None
    found: set[str] = set()
    for info in source.refs(wanted):
        found.add(info.id)
        try:
            _, blocks = source.read_blocks(info.id)
            written = target.put_blocks(info, _hashed(info, blocks))
        except (StoreCorruptionError, RefNotFoundError) as error:
            report.failed.append(str(error))
            continue
        (report.copied if written else report.present).append(info.id)
    report.missing = [ref_id for ref_id in wanted or [] if ref_id not in found]
    return report


def _hashed(info: RefInfo, blocks: Iterator[bytes]) -> Iterator[bytes]:
    """The source's blocks, failing on the last one if they do not hash to `info.sha256`."""
    digest, done = hashlib.sha256(), 0
    for block in blocks:
        digest.update(block)
        done += len(block)
        yield block
    if done != info.length or digest.hexdigest() != info.sha256:
        raise mismatch(parse_ref_id(info.id))
