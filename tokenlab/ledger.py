"""The savings ledger: one row per `analyze`, `run`, hook replacement and tool result `tokens
proxy` compressed (the first time it did: the same result resent later is read from the
proxy's mapping), in `ledger.sqlite3` in the store root. A proxy row names the tool as its
source, the API as its event, and the model.

A row holds when, what kind of call (`analyze`, `run`, or `hook`: a tool output the Claude
Code PostToolUse hook replaced), its source or command line (any credential in it masked),
the content type, raw and visible tokens, how many refs the run wrote, for `run` the exit
status and duration, which agent's hook made the call and for which event (a `run` that a
PreToolUse rewrite started names it too), and for `hook` the host tokens: what the host would have shown the
model without tokenlab (for Claude Code, the output up to its cap, above it a 2 KB preview). It never holds the content: the store
does, behind refs, and the ledger only counts.

Many `tokens` processes append at once (an agent runs tools in parallel), so the database
is in WAL mode with a busy timeout, and each row is one `BEGIN IMMEDIATE … COMMIT`
transaction: writers queue on SQLite's lock instead of failing, and readers (`tokens
gain`) never block them. WAL with `synchronous=NORMAL` makes a commit an append to the
log, without an fsync: a power cut may lose the last rows, never corrupt the file, which
is the right trade for statistics that must not slow every call. The schema is versioned
by `PRAGMA user_version`; a newer ledger than this code knows is left alone.

Recording must never fail an analysis: `record` returns why it could not write, once per
process, and the command line prints that as a warning. `tallies.py` sums the rows for
`tokens gain` and `tokens discover`.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, closing, contextmanager
from enum import Enum
from typing import TYPE_CHECKING, NamedTuple

from tokenlab.mapped import PASS_BYTES, RawInput, let_go

if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, TypeVar

    from tokenlab.packet import ContextPacket

    T = TypeVar("T")
    # A store's folder: a `Path`, or the absolute path a `tokens run` client was given.
    StoreRoot = Path | str

LEDGER_NAME = "ledger.sqlite3"
SCHEMA_VERSION = 4
BUSY_TIMEOUT_MS = 30_000
_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    id INTEGER PRIMARY KEY,
    time REAL NOT NULL,
    kind TEXT NOT NULL,
    source TEXT NOT NULL,
    content_type TEXT NOT NULL,
    raw_bytes INTEGER NOT NULL,
    raw_tokens INTEGER NOT NULL,
    visible_tokens INTEGER NOT NULL,
    refs INTEGER NOT NULL,
    exit_status INTEGER,
    duration REAL,
    host_tokens INTEGER,
    host TEXT,
    event TEXT,
    fingerprint TEXT,
    rerun INTEGER,
    model TEXT
);
CREATE INDEX IF NOT EXISTS records_time ON records (time);
"""
# Each step takes a ledger from the version before it to its own (index + 2).
_MIGRATIONS = (
    "ALTER TABLE records ADD COLUMN host_tokens INTEGER",
    "ALTER TABLE records ADD COLUMN host TEXT; ALTER TABLE records ADD COLUMN event TEXT;"
    " ALTER TABLE records ADD COLUMN fingerprint TEXT; ALTER TABLE records ADD COLUMN rerun INTEGER",
    "ALTER TABLE records ADD COLUMN model TEXT",
)


class Kind(str, Enum):
    ANALYZE = "analyze"
    RUN = "run"
    HOOK = "hook"
    PROXY = "proxy"  # a tool result `tokens proxy` replaced in a model request
    REF = "ref"  # a ref opened (`tokens show-ref`, `expand_ref`): a sign the visible text was not enough


# A call repeated within this many seconds is counted as a re-fetch; repeated with the same
# output, it is shown unmodified (`record_call`).
RERUN_WINDOW = 300.0


# Records are named tuples, not frozen dataclasses: a `tokens run` whose command printed
# nothing imports this module and little else (`agent/run_here.py`), and `dataclasses`
# (with `inspect` under it) was a fifth of such a call's time.
class Record(NamedTuple):
    time: float
    kind: Kind
    source: str
    content_type: str
    raw_bytes: int
    raw_tokens: int
    visible_tokens: int
    refs: int
    exit_status: int | None = None
    duration: float | None = None
    host_tokens: int | None = None
    host: str | None = None  # the agent whose hook made the call (`claude-code`, `codex`, `gemini`)
    event: str | None = None  # that hook's event (`PreToolUse`, `PostToolUse`, `AfterTool`)
    fingerprint: str | None = None  # the call's identity: the same command or tool input, in the same folder
    rerun: bool = False  # the same call was recorded shortly before (`RERUN_WINDOW`)
    model: str | None = None  # for a proxy row, the model the request was for

    @property
    def saved_tokens(self) -> int:
        return self.raw_tokens - self.visible_tokens


class LedgerError(Exception):
    """The ledger cannot be read or written (a newer schema, a broken file)."""


_warned = False


def ledger_path(store_root: Path) -> Path:
    return store_root / LEDGER_NAME


def record(store_root: StoreRoot, entry: Record) -> str | None:
    """Append `entry`; never raises. Why it failed, the first time in this process, else None."""
    return _retried(store_root, lambda db: _insert(db, entry))[1]


def record_call(store_root: StoreRoot, entry: Record, shown_on_repeat: int) -> tuple[Repeat, str | None]:
    """Append `entry`, a call with a `fingerprint`, as `record` does, and say how it repeats
    the last call recorded with its identity within `RERUN_WINDOW`: a re-run is marked as
    one, and a re-run that printed the same counts `shown_on_repeat` visible tokens (it is
    shown as the host would show it). Found and written in one transaction, so two repeats
    racing each other still see each other. A ledger that cannot be used repeats nothing."""
    assert entry.fingerprint is not None

    def append(db: sqlite3.Connection) -> Repeat:
        call = entry.fingerprint.partition(".")[0] if entry.fingerprint else ""
        last = db.execute(
            "SELECT fingerprint FROM records WHERE time >= ? AND fingerprint >= ? AND fingerprint < ?"
            " ORDER BY time DESC, id DESC LIMIT 1",
            (entry.time - RERUN_WINDOW, call + ".", call + "/"),
        ).fetchone()
        repeat = Repeat(last is not None, last is not None and last[0] == entry.fingerprint)
        shown = shown_on_repeat if repeat.same_output else entry.visible_tokens
        _insert(db, entry._replace(rerun=repeat.rerun, visible_tokens=shown))
        return repeat

    repeat, problem = _retried(store_root, append)
    return repeat or Repeat(False, False), problem


def _retried(store_root: StoreRoot, write: Callable[[sqlite3.Connection], T]) -> tuple[T | None, str | None]:
    """`write` in one `BEGIN IMMEDIATE` transaction: its result, and why it failed the first
    time in this process (else None); never raises.

    SQLite answers "database is locked" at once, without its busy handler, in a few cases
    (switching a new file to WAL while another connection opens it, recovering the WAL
    index): a busy ledger is tried again for up to the busy timeout in all.
    """
    global _warned
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    pause = 0.005
    while True:
        try:
            with _connection(store_root, create=True) as db:
                db.execute("BEGIN IMMEDIATE")
                result = write(db)
                db.execute("COMMIT")
            return result, None
        except sqlite3.OperationalError as error:
            if _busy(error) and time.monotonic() < deadline:
                time.sleep(pause)
                pause = min(pause * 2, 0.2)
                continue
            failure: Exception = error
        except (OSError, sqlite3.Error, LedgerError) as error:
            failure = error
        if _warned:
            return None, None
        _warned = True
        from pathlib import Path  # only here: a silent `tokens run` gives its root as a `str`

        return None, f"savings ledger {ledger_path(Path(store_root))} not updated: {failure}"


def _busy(error: sqlite3.OperationalError) -> bool:
    message = str(error)
    return "locked" in message or "busy" in message


def _insert(db: sqlite3.Connection, entry: Record) -> None:
    db.execute(
        "INSERT INTO records (time, kind, source, content_type, raw_bytes, raw_tokens,"
        " visible_tokens, refs, exit_status, duration, host_tokens, host, event, fingerprint, rerun, model)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            entry.time,
            entry.kind.value,
            masked(entry.source),
            entry.content_type,
            entry.raw_bytes,
            entry.raw_tokens,
            entry.visible_tokens,
            entry.refs,
            entry.exit_status,
            entry.duration,
            entry.host_tokens,
            entry.host,
            entry.event,
            entry.fingerprint,
            int(entry.rerun),
            entry.model,
        ),
    )


def packet_record(
    packet: ContextPacket,
    kind: Kind,
    *,
    source: str | None = None,
    exit_status: int | None = None,
    duration: float | None = None,
) -> Record:
    """The ledger row of one analysed packet: the same counts as its `--json`."""
    return Record(
        time=time.time(),
        kind=kind,
        source=packet.source if source is None else source,
        content_type=packet.content_type.value if packet.content_type else "",
        raw_bytes=len(packet.raw),
        raw_tokens=packet.raw_measure.tokens if packet.raw_measure else 0,
        visible_tokens=packet.visible_measure.tokens if packet.visible_measure else 0,
        refs=len(packet.unique_refs),
        exit_status=exit_status,
        duration=duration,
    )


def records(store_root: Path, since: float | None = None) -> list[Record]:
    """Every row written at or after `since` (a Unix time), oldest first."""
    if not ledger_path(store_root).is_file():
        return []
    query = (
        "SELECT time, kind, source, content_type, raw_bytes, raw_tokens, visible_tokens, refs,"
        " exit_status, duration, host_tokens, host, event, fingerprint, rerun, model"
        " FROM records WHERE time >= ? ORDER BY time, id"
    )
    try:
        with _connection(store_root, create=False) as db:
            rows = db.execute(query, (since if since is not None else float("-inf"),)).fetchall()
    except sqlite3.Error as error:
        raise LedgerError(f"cannot read the savings ledger {ledger_path(store_root)}: {error}") from None
    return [_record_of(row) for row in rows]


def _record_of(row: tuple[Any, ...]) -> Record:
    """A row of `records`' query (the columns in `Record`'s order) as a `Record`."""
    when, kind, source, content_type, raw_bytes, raw_tokens, visible, refs, *call = row
    exit_status, duration, host_tokens, host, event, fingerprint, rerun, model = call
    return Record(
        when, Kind(kind), source, content_type, raw_bytes, raw_tokens, visible, refs,
        exit_status, duration, host_tokens, host, event, fingerprint, bool(rerun), model,
    )  # fmt: skip


def masked(source: str) -> str:
    """`source` with any credential replaced by `[secret:<kind>]` (a command line may hold one)."""
    from tokenlab.redact import redact

    return "".join(piece if isinstance(piece, str) else f"[{piece.reason}]" for piece in redact(source))


@contextmanager
def kept_open(store_root: Path) -> Iterator[None]:
    """Keep an idle connection to the ledger open while a long-lived process (the warm
    worker) serves the store; never fails (without a usable ledger nothing is kept).

    Each call writes its row on a connection of its own. When that is the ledger's only
    one, SQLite creates the write-ahead log at its first write and checkpoints and deletes
    it at its close, with fsyncs: about 18 ms of every `tokens run` on this machine,
    against 0.5 ms while another connection keeps the log open (SQLite then checkpoints
    as the log grows). An idle connection holds no lock: writers and readers go on as before.
    """
    with ExitStack() as stack:
        try:
            stack.enter_context(_connection(store_root, create=True))  # reads the schema: opens the log
        except (OSError, sqlite3.Error, LedgerError):
            pass
        yield


@contextmanager
def _connection(store_root: StoreRoot, *, create: bool) -> Iterator[sqlite3.Connection]:
    path = os.path.join(store_root, LEDGER_NAME)
    if create and not os.path.exists(path):
        os.makedirs(store_root, mode=0o700, exist_ok=True)
        # Owner-only, like the store: command lines can say more than their output.
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    # isolation_level=None: transactions are the explicit BEGIN/COMMIT above.
    with closing(sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)) as db:
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.execute("PRAGMA synchronous = NORMAL")  # per connection: in WAL, no fsync per commit
        _ensure_schema(db, create)
        yield db


def _ensure_schema(db: sqlite3.Connection, create: bool) -> None:
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise LedgerError(f"schema version {version} is newer than this tokenlab knows ({SCHEMA_VERSION})")
    if version > 0:
        _migrate(db)
        return
    if not create:
        raise LedgerError("the ledger has no schema yet")
    if db.execute("PRAGMA journal_mode = WAL").fetchone()[0] != "wal":
        raise LedgerError("cannot switch the ledger to WAL mode")
    db.execute("BEGIN IMMEDIATE")  # one process creates the schema; the others wait, then see it
    try:
        if db.execute("PRAGMA user_version").fetchone()[0] == 0:
            for statement in filter(str.strip, _SCHEMA.split(";")):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _migrate(db: sqlite3.Connection) -> None:
    """Bring an older ledger up to `SCHEMA_VERSION`; one process does, the others wait."""
    db.execute("BEGIN IMMEDIATE")
    try:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        for step in _MIGRATIONS[max(version - 1, 0) :]:
            for statement in step.split("; "):
                db.execute(statement)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def note_analysis(store_root: Path, packet: ContextPacket) -> bytes:
    """Record an `analyze` run; the warning line to print on stderr if that failed, else b""."""
    problem = record(store_root, packet_record(packet, Kind.ANALYZE))
    return f"tokens: warning: {problem}\n".encode() if problem else b""


def call_fingerprint(*parts: str) -> str:
    """The identity of a call (a command line and its folder, a tool and its input)."""
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def fingerprint(call: str, outputs: Iterable[RawInput]) -> str:
    """`call`'s fingerprint with a digest of what it printed: `<call>.<output>`.

    A large output is a mapping of its spool: it is read a pass at a time, its pages given
    back as they are hashed (hashed whole, a gigabyte's pages all stayed resident)."""
    digest = hashlib.sha256()
    for output in outputs:
        digest.update(len(output).to_bytes(8, "big"))
        with memoryview(output) as view:
            for start in range(0, len(output), PASS_BYTES):
                digest.update(view[start : start + PASS_BYTES])
                let_go(output, start, start + PASS_BYTES)
    return f"{call}.{digest.hexdigest()[:16]}"


class Repeat(NamedTuple):
    """How a call repeats the last one recorded with its identity within `RERUN_WINDOW`."""

    rerun: bool  # the same call: counted as a re-fetch
    same_output: bool  # and it printed the same: shown unmodified this time


def note_ref_open(store_root: Path, ref_id: str, host: str | None) -> None:
    """Record that a ref was opened; never raises (a drill-down must not fail on the ledger)."""
    record(store_root, Record(time.time(), Kind.REF, ref_id, "", 0, 0, 0, 0, host=host))
