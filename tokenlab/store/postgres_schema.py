"""The PostgreSQL store's schema: created on first use, migrated when tokenlab moves on.

`tokenlab_schema` holds one row, the layout version. A process checks it with one query
on its first connection; when it is missing or old, the change runs in one transaction
under an advisory lock, so racing first users create it once. A store newer than this
tokenlab is refused rather than guessed at.
"""

from __future__ import annotations

from typing import Any

import psycopg

from tokenlab.errors import InputError

SCHEMA_VERSION = 1
_LOCK_KEY = 0x746F6B656E6C6162  # pg_advisory_xact_lock key for migrations: "tokenlab"
_SCHEMA = (
    "CREATE TABLE tokenlab_schema (version integer NOT NULL)",
    """CREATE TABLE tokenlab_refs (
        id text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{6,64}$'),
        sha256 text NOT NULL CHECK (starts_with(sha256, id)),
        source text NOT NULL,
        content_type text NOT NULL,
        reason text NOT NULL,
        bytes bigint NOT NULL,
        chunks integer NOT NULL,
        created double precision NOT NULL,
        last_use timestamptz NOT NULL DEFAULT now())""",
    "CREATE INDEX tokenlab_refs_last_use ON tokenlab_refs (last_use)",
    """CREATE TABLE tokenlab_chunks (
        ref_id text NOT NULL REFERENCES tokenlab_refs (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (ref_id, seq))""",
    "ALTER TABLE tokenlab_chunks ALTER COLUMN data SET STORAGE EXTERNAL",
    "INSERT INTO tokenlab_schema (version) VALUES (1)",
)


def ensure_schema(conn: psycopg.Connection[Any]) -> None:
    """Create or migrate the schema; one query when it is current."""
    try:
        row = conn.execute("SELECT max(version) FROM tokenlab_schema").fetchone()
        version = row[0] if row else None
    except psycopg.errors.UndefinedTable:
        version = None
    if version == SCHEMA_VERSION:
        return
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
        exists = conn.execute("SELECT to_regclass('tokenlab_schema') IS NOT NULL").fetchone()
        if exists and exists[0]:
            row = conn.execute("SELECT max(version) FROM tokenlab_schema").fetchone()
            version = row[0] if row else None
            if version is not None and version > SCHEMA_VERSION:
                raise InputError(
                    f"the store's schema is version {version}; this tokenlab knows up to {SCHEMA_VERSION}"
                )
            return  # another process created it meanwhile (version 1 is the only one so far)
        for statement in _SCHEMA:
            conn.execute(statement.encode())
