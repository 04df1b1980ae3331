"""The ref store: everything the visible text leaves out, content-addressed.

    base.py         the interface (`Store`) and the contract every backend keeps
    folder.py       the folder store, the embedded default
    postgres.py     the PostgreSQL store, shared by many machines
    postgres_schema.py  its tables, created and migrated by tokenlab
    resolve.py      which store a `--store` value names
    maintenance.py  `store stats | verify | gc | copy | init` over any backend

Callers take a `Store` from `open_store(value)` and never ask which backend it is.
`FolderStore(path)` is the folder store.
"""

from tokenlab.store.base import (
    DEFAULT_LOCATION,
    ID_PREFIX,
    MIN_ID_DIGITS,
    RefInfo,
    RefRecord,
    Store,
    StoreStats,
    VerifyReport,
    parse_ref_id,
)
from tokenlab.store.folder import LAYOUT, TEMP_PREFIX, FolderStore
from tokenlab.store.resolve import open_store, shared_store

__all__ = [
    "DEFAULT_LOCATION",
    "ID_PREFIX",
    "LAYOUT",
    "MIN_ID_DIGITS",
    "TEMP_PREFIX",
    "FolderStore",
    "RefInfo",
    "RefRecord",
    "Store",
    "StoreStats",
    "VerifyReport",
    "open_store",
    "parse_ref_id",
    "shared_store",
]
