"""Which store a `--store` value names.

    --store DIR                      the folder store in DIR
    --store postgresql://user@host:port/db?sslmode=require
                                     the PostgreSQL store (libpq's URL; `postgres://` too)
    --store postgresql://            the PostgreSQL store that the PG* variables name

Without `--store`, `$TOKENLAB_STORE` (either form), else the folder `./var/context`.
A PostgreSQL store keeps its local state (run spool, savings ledger, caches) in
`$TOKENLAB_STATE`, else `./var/context`. Only this module knows the backends by name.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from tokenlab.errors import InputError
from tokenlab.store.base import DEFAULT_LOCATION, Store
from tokenlab.store.folder import FolderStore

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def store_value(explicit: str | Path | None) -> str:
    """The `--store` value in force: the option, else $TOKENLAB_STORE, else the default folder."""
    if explicit is not None and str(explicit):
        return str(explicit)
    return os.environ.get("TOKENLAB_STORE") or str(DEFAULT_LOCATION)


def state_folder() -> Path:
    """The local folder of a store that is not a folder."""
    env = os.environ.get("TOKENLAB_STATE")
    return Path(env) if env else DEFAULT_LOCATION


def open_store(explicit: str | Path | None = None, *, pooled: bool = False) -> Store:
    """The store `explicit` (or the environment) names; `pooled` for long-running servers."""
    value = store_value(explicit)
    if value.startswith(POSTGRES_SCHEMES):
        from tokenlab.store.postgres import PostgresStore

        return PostgresStore(value, state_folder(), pooled=pooled)
    if value.startswith(("postgresql:/", "postgres:/")):  # a URL that went through a Path
        raise InputError("a PostgreSQL store URL starts with postgresql://")
    return FolderStore(Path(value))


def shared_store(explicit: str | Path | None = None) -> Store:
    """The store for a long-running server, opened once per `--store` value in force: one
    connection pool per process (a folder store holds nothing open)."""
    return _shared(store_value(explicit))


@functools.cache
def _shared(value: str) -> Store:
    return open_store(value, pooled=True)
