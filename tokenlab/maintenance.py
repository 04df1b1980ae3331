"""Store maintenance: `tokens store stats | verify | gc`. Each streams over the shards."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from tokenlab.errors import StoreCorruptionError
from tokenlab.store import _HEX_NAME_RE, ID_PREFIX, TEMP_PREFIX, Store

DAY_SECONDS = 86400


@dataclass(frozen=True)
class StoreStats:
    refs: int
    bytes: int
    oldest_use: float | None
    newest_use: float | None


@dataclass
class VerifyReport:
    checked: int = 0
    corrupt: list[str] = field(default_factory=list)
    orphaned: list[str] = field(default_factory=list)
    incomplete_writes: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.corrupt and not self.orphaned


def stats(store: Store) -> StoreStats:
    count = total = 0
    oldest: float | None = None
    newest: float | None = None
    for entry in store.ref_files():
        if not _HEX_NAME_RE.fullmatch(entry.name):
            continue
        info = entry.stat()
        count += 1
        total += info.st_size
        oldest = info.st_mtime if oldest is None else min(oldest, info.st_mtime)
        newest = info.st_mtime if newest is None else max(newest, info.st_mtime)
    return StoreStats(count, total, oldest, newest)


def verify(store: Store) -> VerifyReport:
    """Re-hash every ref, streaming. Temp files of interrupted writes are listed, never refs."""
    report = VerifyReport()
    for entry in store.ref_files():
        if entry.name.startswith(TEMP_PREFIX):
            report.incomplete_writes.append(entry.path)
        elif not _HEX_NAME_RE.fullmatch(entry.name) or not entry.is_file():
            report.orphaned.append(entry.path)
        else:
            report.checked += 1
            try:
                store.check(ID_PREFIX + entry.name)
            except StoreCorruptionError as error:
                report.corrupt.append(str(error))
    return report


def gc(store: Store, older_than_days: float, dry_run: bool) -> list[str]:
    """Remove refs (and abandoned temp files) not written or read for `older_than_days`."""
    cutoff = time.time() - older_than_days * DAY_SECONDS
    removed = []
    for entry in store.ref_files():
        if entry.is_file() and entry.stat().st_mtime < cutoff:
            removed.append(entry.path)
            if not dry_run:
                os.unlink(entry.path)
    return removed
