"""The PostgreSQL store: one ref store shared by a fleet of agents, CI runners and reviewers.

Schema (version 1, created and migrated by `postgres_schema.py`; `tokens store init`
runs it ahead of time):

    tokenlab_schema(version)                 one row: the layout version
    tokenlab_refs(id PRIMARY KEY, sha256, source, content_type, reason, bytes, chunks,
                  created, last_use)         one row per ref `ctx_<id>`
    tokenlab_chunks(ref_id, seq, data)       the bytes, in chunks of CHUNK_BYTES, stored
                                             uncompressed (STORAGE EXTERNAL)

Ids follow the folder store's scheme (see `base.py`). Claiming an id is an
`INSERT … ON CONFLICT (id) DO NOTHING` of its row, in the same transaction as every chunk:
a writer racing on the same id waits for the first one's commit (or rollback) and then
sees its row, so racing writers of the same bytes agree on one id and colliding prefixes
move on to one more digit, as the folder store's hard links do. A ref is visible only
once its transaction commits with all its chunks; a writer killed or cut off midway
leaves nothing readable. Reads are one statement (one snapshot) streamed chunk by chunk
in binary, and re-hashed.

`last_use` is `store gc`'s clock, as file times are for the folder store: set on every
write and at most hourly on reads. `gc` deletes with `last_use` re-checked on the row,
so a writer that has just re-used a ref either keeps it or writes it again.

A short-lived command holds one connection (operations take turns under a lock: the
pipeline stores from I/O threads); servers pass `pooled=True` for a `psycopg_pool`
pool. Passwords come from the URL, `PGPASSWORD` or `~/.pgpass` (libpq reads them) and
are scrubbed from every message; `name` is the URL without its password.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg import conninfo

from tokenlab.errors import (
    InputError,
    RefNotFoundError,
    StoreCorruptionError,
    StoreFailedError,
    StoreUnavailableError,
)
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
from tokenlab.store.postgres_schema import ensure_schema

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

# psycopg logs what it ignores while cleaning up a lost connection; the error that matters
# reaches the caller, and library code never prints.
logging.getLogger("psycopg").addHandler(logging.NullHandler())

CHUNK_BYTES = 4 << 20  # well under PostgreSQL's 1 GB value limit; one allocation each
PAGE = 1000  # refs per page when walking the store
TOUCH_SECONDS = 3600  # a read counts as use for `store gc`, written at most this often
DAY_SECONDS = 86400
_META = "sha256, source, content_type, reason, bytes, created, extract(epoch FROM last_use)::float8"


class _Taken(Exception):
    """Another writer committed this id first: look again at what it names."""


class PostgresStore(Store):
    """Refs in a PostgreSQL database; `root` is the local folder for local state."""

    def __init__(self, url: str, state: Path, *, pooled: bool = False) -> None:
        super().__init__(state)
        self._url = url
        try:
            self._params = conninfo.conninfo_to_dict(url)
        except psycopg.ProgrammingError as error:
            raise InputError(f"bad PostgreSQL store URL: {self._scrub(error)}") from None
        self._lock = threading.RLock()
        self._conn: psycopg.Connection[Any] | None = None
        self._pool: ConnectionPool | None = None
        self._pooled = pooled
        self._connected = False  # once connected, losing the server is a failure (exit 1)

    @property
    def name(self) -> str:
        def get(key: str, env: str) -> str:
            return str(self._params.get(key) or os.environ.get(env, ""))

        user, host, port = get("user", "PGUSER"), get("host", "PGHOST"), get("port", "PGPORT")
        database = get("dbname", "PGDATABASE")
        where = (f"{user}@" if user else "") + host + (f":{port}" if port else "")
        return f"postgresql://{where}/{database}"

    @property
    def spec(self) -> str:
        return self._url

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            if self._pool is not None:
                self._pool.close()
                self._pool = None

    # Connections and errors.
    def _scrub(self, error: object) -> str:
        """`error` as one line, without any password it might quote."""
        text = " ".join(str(error).split())
        for secret in (getattr(self, "_params", {}).get("password"), os.environ.get("PGPASSWORD")):
            if secret:
                text = text.replace(secret, "***")
        return text

    def _connect(self) -> psycopg.Connection[Any]:
        extra: dict[str, Any] = {}
        if "connect_timeout" not in self._params and "PGCONNECT_TIMEOUT" not in os.environ:
            extra["connect_timeout"] = 10
        try:
            conn = psycopg.connect(self._url, autocommit=True, **extra)
        except psycopg.Error as error:
            if self._connected:
                raise StoreFailedError(
                    f"PostgreSQL store {self.name} failed: lost and cannot reconnect: {self._scrub(error)}"
                    " (nothing of an unfinished write is kept)"
                ) from None
            raise StoreUnavailableError(
                f"cannot connect to PostgreSQL store {self.name}: {self._scrub(error)}"
            ) from None
        self._connected = True
        with self._failures("preparing the schema"):
            ensure_schema(conn)
        return conn

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        if self._pooled:
            with self._lock:
                if self._pool is None:
                    self._pool = self._open_pool()
            try:
                conn = self._pool.getconn()
            except psycopg.OperationalError as error:  # none within the pool's timeout
                raise StoreFailedError(f"PostgreSQL store {self.name}: {self._scrub(error)}") from None
            try:
                yield conn
            finally:
                self._pool.putconn(conn)  # a broken one is discarded and replaced
            return
        with self._lock:
            if self._conn is None or self._conn.closed or self._conn.broken:
                self._conn = self._connect()
            yield self._conn

    def _open_pool(self) -> ConnectionPool:
        from psycopg_pool import ConnectionPool

        self._connect().close()  # fails now, in one line, rather than on every request
        return ConnectionPool(
            self._url, min_size=1, max_size=8, kwargs={"autocommit": True}, open=True, timeout=30
        )

    @contextmanager
    def _failures(self, what: str) -> Iterator[None]:
        try:
            yield
        except psycopg.OperationalError as error:
            raise StoreFailedError(
                f"PostgreSQL store {self.name} failed while {what}: {self._scrub(error)}"
                " (nothing of an unfinished write is kept)"
            ) from None
        except psycopg.Error as error:
            raise StoreFailedError(f"PostgreSQL store {self.name}: {what}: {self._scrub(error)}") from None

    def init(self) -> str:
        with self._connection() as conn, self._failures("reading the schema version"):
            row = conn.execute("SELECT max(version) FROM tokenlab_schema").fetchone()
        return f"PostgreSQL store {self.name}: schema version {row[0] if row else '?'}"

    # Writing.
    def put(self, data: bytes, *, source: str, content_type: str, reason: str) -> str:
        return self._put(data, source=source, content_type=content_type, reason=reason)[0]

    def put_and_reload(
        self, data: bytes, *, source: str, content_type: str, reason: str
    ) -> tuple[str, str | None]:
        """`put`, then read the ref back and compare it with `data` chunk by chunk; the
        sha256 that named it stands in for hashing it again."""
        ref_id, sha = self._put(data, source=source, content_type=content_type, reason=reason)
        try:
            self._compare(parse_ref_id(ref_id), data, sha)
        except (StoreCorruptionError, RefNotFoundError) as error:
            return ref_id, str(error)
        return ref_id, None

    def _put(self, data: bytes, *, source: str, content_type: str, reason: str) -> tuple[str, str]:
        sha = hashlib.sha256(data).hexdigest()
        view = memoryview(data)
        row = (sha, source, content_type, reason, len(data), time.time())
        with self._connection() as conn, self._failures(f"writing a ref of {len(data)} bytes"):
            for digits in range(MIN_ID_DIGITS, len(sha) + 1):
                chunks = (view[at : at + CHUNK_BYTES] for at in range(0, len(data), CHUNK_BYTES))
                if _claim(conn, sha[:digits], row, chunks, verify=False):
                    return ID_PREFIX + sha[:digits], sha
        raise StoreCorruptionError(f"every id prefix of {sha} names other bytes; store is corrupt")

    def put_blocks(self, info: RefInfo, blocks: Iterator[bytes]) -> bool:
        hex_id = parse_ref_id(info.id)
        if not info.sha256.startswith(hex_id):
            raise StoreCorruptionError(f"ref {info.id}: names other bytes ({info.sha256})")
        row = (info.sha256, info.source, info.content_type, info.reason, info.length, info.created)
        with self._connection() as conn, self._failures(f"copying ref {info.id}"):
            existed = _held_sha(conn, hex_id)
            if existed is None and _claim(conn, hex_id, row, _rechunk(blocks), verify=True):
                return True
            if (existed or _held_sha(conn, hex_id)) != info.sha256:
                raise StoreCorruptionError(f"ref {info.id} already names other bytes in store {self.name}")
            return False

    # Reading.
    def load(self, ref_id: str) -> RefRecord:
        hex_id = parse_ref_id(ref_id)
        with self._connection() as conn, self._failures(f"reading ref {ID_PREFIX}{hex_id}"):
            meta, blocks = _read(conn, hex_id, self.name)
            digest, parts = hashlib.sha256(), []
            for block in blocks:
                digest.update(block)
                parts.append(block)
            data = b"".join(parts)
            if len(data) != meta.length or digest.hexdigest() != meta.sha256:
                raise mismatch(hex_id)
            if time.time() - meta.last_use > TOUCH_SECONDS:  # the server re-checks with its clock
                _touch(conn, hex_id)
        return RefRecord(
            meta.id, meta.sha256, meta.source, meta.content_type, meta.reason, len(data), meta.created, data
        )

    def holds(self, ref_id: str, data: bytes) -> bool:
        return self._compare(parse_ref_id(ref_id), data, "")

    def check(self, ref_id: str) -> None:
        self._compare(parse_ref_id(ref_id), None, "")

    def _compare(self, hex_id: str, expected: bytes | None, sha_of_expected: str) -> bool:
        """Verify the ref block by block; True if it holds exactly `expected`. Given
        `sha_of_expected`, it must hold exactly `expected` under that sha, not hashed again."""
        with self._connection() as conn, self._failures(f"reading ref {ID_PREFIX}{hex_id}"):
            meta, blocks = _read(conn, hex_id, self.name)
            digest = None if sha_of_expected else hashlib.sha256()
            same, done = True, 0
            for block in blocks:
                if digest is not None:
                    digest.update(block)
                if expected is not None:
                    same = same and expected.startswith(block, done)
                done += len(block)
        if digest is None:
            intact = meta.sha256 == sha_of_expected and same and done == len(expected or b"")
        else:
            intact = digest.hexdigest() == meta.sha256
        if done != meta.length or not intact:
            raise mismatch(hex_id)
        return expected is None or (same and done == len(expected))

    def read_blocks(self, ref_id: str) -> tuple[RefInfo, Iterator[bytes]]:
        hex_id = parse_ref_id(ref_id)
        with self._connection() as conn, self._failures(f"reading ref {ID_PREFIX}{hex_id}"):
            meta = _meta(conn, hex_id, self.name)

        def blocks() -> Iterator[bytes]:
            with self._connection() as conn, self._failures(f"reading ref {ID_PREFIX}{hex_id}"):
                query = "SELECT data FROM tokenlab_chunks WHERE ref_id = %s ORDER BY seq"
                for (block,) in conn.cursor(binary=True).stream(query, (hex_id,)):
                    yield bytes(block)

        return meta, blocks()

    # Maintenance.
    def refs(self, ids: list[str] | None = None) -> Iterator[RefInfo]:
        if ids is not None:
            for ref_id in ids:
                hex_id = parse_ref_id(ref_id)
                with self._connection() as conn, self._failures("listing refs"):
                    try:
                        found: RefInfo | None = _meta(conn, hex_id, self.name)
                    except RefNotFoundError:
                        found = None
                if found is not None:
                    yield found
            return
        after = ""
        while True:
            with self._connection() as conn, self._failures("listing refs"):
                rows = conn.execute(
                    f"SELECT id, {_META} FROM tokenlab_refs WHERE id > %s ORDER BY id LIMIT %s",
                    (after, PAGE),
                ).fetchall()
            for row in rows:
                yield _info(row[0], row[1:])
            if len(rows) < PAGE:
                return
            after = rows[-1][0]

    def stats(self) -> StoreStats:
        with self._connection() as conn, self._failures("counting refs"):
            row = conn.execute(
                "SELECT count(*), coalesce(sum(bytes), 0), extract(epoch FROM min(last_use))::float8,"
                " extract(epoch FROM max(last_use))::float8 FROM tokenlab_refs"
            ).fetchone()
        assert row is not None
        return StoreStats(int(row[0]), int(row[1]), row[2], row[3])

    def verify(self) -> VerifyReport:
        report = VerifyReport()
        for info in self.refs():
            report.checked += 1
            try:
                self.check(info.id)
            except StoreCorruptionError as error:
                report.corrupt.append(str(error))
            except RefNotFoundError:
                report.checked -= 1  # removed by gc since it was listed
        return report

    def gc(self, older_than_days: float, dry_run: bool) -> list[str]:
        cutoff = time.time() - older_than_days * DAY_SECONDS
        if dry_run:
            return [info.id for info in self.refs() if info.last_use < cutoff]
        removed: list[str] = []
        while True:
            with self._connection() as conn, self._failures("removing refs"):
                rows = conn.execute(
                    "DELETE FROM tokenlab_refs WHERE id IN (SELECT id FROM tokenlab_refs"
                    " WHERE last_use < to_timestamp(%s) LIMIT %s) AND last_use < to_timestamp(%s)"
                    " RETURNING id",
                    (cutoff, PAGE, cutoff),
                ).fetchall()
            removed += sorted(ID_PREFIX + row[0] for row in rows)
            if not rows:
                return removed


def _held_sha(conn: psycopg.Connection[Any], hex_id: str) -> str | None:
    row = conn.execute("SELECT sha256 FROM tokenlab_refs WHERE id = %s", (hex_id,)).fetchone()
    return str(row[0]) if row else None


def _claim(
    conn: psycopg.Connection[Any],
    hex_id: str,
    row: tuple[str, str, str, str, int, float],
    chunks: Iterable[bytes | memoryview],
    *,
    verify: bool,
) -> bool:
    """True if `hex_id` now names `row`'s sha256 (newly or already); False if other bytes."""
    sha = row[0]
    while True:
        held = _held_sha(conn, hex_id)
        if held is not None and held != sha:
            return False
        if held is not None:
            touched = conn.execute(
                "UPDATE tokenlab_refs SET last_use = now() WHERE id = %s AND sha256 = %s", (hex_id, sha)
            )
            if touched.rowcount:
                return True
            continue  # removed by gc in between: write it again
        try:
            _insert(conn, hex_id, row, chunks, verify=verify)
            return True
        except _Taken:
            continue  # a racing writer committed it first: see what it names


def _insert(
    conn: psycopg.Connection[Any],
    hex_id: str,
    row: tuple[str, str, str, str, int, float],
    chunks: Iterable[bytes | memoryview],
    *,
    verify: bool,
) -> None:
    """The ref's row and every chunk in one transaction: visible complete or not at all."""
    sha, length = row[0], row[4]
    with conn.transaction():
        claimed = conn.execute(
            "INSERT INTO tokenlab_refs (id, sha256, source, content_type, reason, bytes, chunks, created)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING RETURNING id",
            (hex_id, *row[:5], -(-length // CHUNK_BYTES), row[5]),
        ).fetchone()
        if claimed is None:
            raise _Taken
        digest, done = hashlib.sha256(), 0
        copying = "COPY tokenlab_chunks (ref_id, seq, data) FROM STDIN (FORMAT BINARY)"
        with conn.cursor() as cur, cur.copy(copying) as copy:
            copy.set_types(["text", "int4", "bytea"])
            for seq, chunk in enumerate(chunks):
                if verify:
                    digest.update(chunk)
                done += len(chunk)
                copy.write_row((hex_id, seq, chunk))
        if verify and (done != length or digest.hexdigest() != sha):
            raise mismatch(hex_id)


def _rechunk(blocks: Iterator[bytes]) -> Iterator[bytes]:
    """Blocks of any size as chunks of CHUNK_BYTES (the last one shorter)."""
    pending = bytearray()
    for block in blocks:
        pending += block
        while len(pending) >= CHUNK_BYTES:
            yield bytes(pending[:CHUNK_BYTES])
            del pending[:CHUNK_BYTES]
    if pending:
        yield bytes(pending)


def _info(hex_id: str, row: Any) -> RefInfo:
    sha, source, content_type, reason, length, created, last_use = row
    return RefInfo(ID_PREFIX + hex_id, sha, source, content_type, reason, int(length), created, last_use)


def _meta(conn: psycopg.Connection[Any], hex_id: str, name: str) -> RefInfo:
    row = conn.execute(f"SELECT {_META} FROM tokenlab_refs WHERE id = %s", (hex_id,)).fetchone()
    if row is None:
        raise RefNotFoundError(f"no ref {ID_PREFIX}{hex_id} in store {name}")
    return _info(hex_id, row)


def _read(conn: psycopg.Connection[Any], hex_id: str, name: str) -> tuple[RefInfo, Iterator[bytes]]:
    """A ref's metadata and its chunks, from one statement (one snapshot), streamed."""
    rows = conn.cursor(binary=True).stream(
        f"SELECT {_META}, c.data FROM tokenlab_refs r LEFT JOIN tokenlab_chunks c ON c.ref_id = r.id"
        " WHERE r.id = %s ORDER BY c.seq",
        (hex_id,),
    )
    first = next(rows, None)
    if first is None:
        raise RefNotFoundError(f"no ref {ID_PREFIX}{hex_id} in store {name}")
    info = _info(hex_id, first[:7])

    def blocks() -> Iterator[bytes]:
        if first[7] is not None:
            yield first[7]
        for row in rows:
            yield row[7]

    return info, blocks()


def _touch(conn: psycopg.Connection[Any], hex_id: str) -> None:
    """A read counts as use for `store gc`, written at most hourly; a read-only role skips it."""
    try:
        conn.execute(
            "UPDATE tokenlab_refs SET last_use = now() WHERE id = %s"
            " AND last_use < now() - make_interval(secs => %s)",
            (hex_id, TOUCH_SECONDS),
        )
    except (psycopg.errors.ReadOnlySqlTransaction, psycopg.errors.InsufficientPrivilege):
        pass
