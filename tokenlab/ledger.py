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
process, and the command line prints that as a warning.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, closing, contextmanager
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tokenlab.mapped import PASS_BYTES, RawInput, let_go

if TYPE_CHECKING:
    from tokenlab.packet import ContextPacket

LEDGER_NAME = "ledger.sqlite3"
T = TypeVar("T")
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


@dataclass(frozen=True)
class Record:
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


def record(store_root: Path, entry: Record) -> str | None:
    """Append `entry`; never raises. Why it failed, the first time in this process, else None."""
    return _retried(store_root, lambda db: _insert(db, entry))[1]


def record_call(store_root: Path, entry: Record, shown_on_repeat: int) -> tuple[Repeat, str | None]:
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
        _insert(db, replace(entry, rerun=repeat.rerun, visible_tokens=shown))
        return repeat

    repeat, problem = _retried(store_root, append)
    return repeat or Repeat(False, False), problem


def _retried(store_root: Path, write: Callable[[sqlite3.Connection], T]) -> tuple[T | None, str | None]:
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
        return None, f"savings ledger {ledger_path(store_root)} not updated: {failure}"


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
def _connection(store_root: Path, *, create: bool) -> Iterator[sqlite3.Connection]:
    path = ledger_path(store_root)
    if create and not path.exists():
        store_root.mkdir(mode=0o700, parents=True, exist_ok=True)
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


class GroupBy(str, Enum):
    COMMAND = "command"
    TYPE = "type"
    DAY = "day"
    MODEL = "model"  # proxy rows by the model their request was for
    TOOL = "tool"  # proxy and hook rows by tool name


@dataclass(frozen=True)
class Tally:
    """Runs and tokens of one group: a command, a content type, a day, a tool."""

    key: str
    runs: int
    raw_tokens: int
    visible_tokens: int

    @property
    def saved_tokens(self) -> int:
        return self.raw_tokens - self.visible_tokens

    @property
    def saved_pct(self) -> float:
        return 100.0 * self.saved_tokens / self.raw_tokens if self.raw_tokens else 0.0

    def as_dict(self) -> dict[str, object]:
        return {
            "key": self.key,
            "runs": self.runs,
            "raw_tokens": self.raw_tokens,
            "visible_tokens": self.visible_tokens,
            "saved_tokens": self.saved_tokens,
            "saved_pct": round(self.saved_pct, 2),
        }


def tally(rows: Iterable[tuple[str, int, int]], *, order_by_key: bool = False) -> list[Tally]:
    """(key, raw tokens, visible tokens) rows summed per key; most tokens saved first."""
    sums: dict[str, list[int]] = {}
    for key, raw, shown in rows:
        total = sums.setdefault(key, [0, 0, 0])
        total[0] += 1
        total[1] += raw
        total[2] += shown
    found = [Tally(key, *total) for key, total in sums.items()]
    if order_by_key:
        return sorted(found, key=lambda row: row.key)
    return sorted(found, key=lambda row: (-row.saved_tokens, row.key))


@dataclass(frozen=True)
class HostTally:
    """Outputs a hook replaced: raw tokens, tokens shown, and what the host would have shown."""

    runs: int
    raw_tokens: int
    visible_tokens: int
    host_tokens: int

    @property
    def saved_vs_host(self) -> int:
        return self.host_tokens - self.visible_tokens

    def as_dict(self) -> dict[str, object]:
        return {
            "runs": self.runs,
            "raw_tokens": self.raw_tokens,
            "visible_tokens": self.visible_tokens,
            "host_tokens": self.host_tokens,
            "saved_vs_host_tokens": self.saved_vs_host,
        }


def against_host(found: Iterable[Record]) -> HostTally:
    """The rows that know what the host would have shown (hook replacements), summed."""
    rows = [r for r in found if r.host_tokens is not None]
    return HostTally(
        len(rows),
        sum(r.raw_tokens for r in rows),
        sum(r.visible_tokens for r in rows),
        sum(r.host_tokens or 0 for r in rows),
    )


def total(rows: Iterable[Tally], key: str = "total") -> Tally:
    rows = list(rows)
    return Tally(
        key, sum(r.runs for r in rows), sum(r.raw_tokens for r in rows), sum(r.visible_tokens for r in rows)
    )


def group(found: Iterable[Record], by: GroupBy) -> list[Tally]:
    """Ledger rows summed per command (its first words), content type or local day."""
    return tally(
        ((_group_key(r, by), r.raw_tokens, r.visible_tokens) for r in found), order_by_key=by is GroupBy.DAY
    )


def _group_key(entry: Record, by: GroupBy) -> str:
    if by is GroupBy.TYPE:
        return entry.content_type or "-"
    if by is GroupBy.DAY:
        return time.strftime("%Y-%m-%d", time.localtime(entry.time))
    if by is GroupBy.MODEL:
        return entry.model or "-"
    if by is GroupBy.TOOL and entry.kind in (Kind.PROXY, Kind.HOOK):
        return entry.source.partition(" ")[0] if entry.kind is Kind.HOOK else entry.source
    if by is GroupBy.TOOL:
        return entry.kind.value
    if entry.kind is Kind.PROXY:
        return "proxy " + entry.source
    if entry.kind is Kind.ANALYZE:
        return "analyze " + ("-" if entry.source == "<stdin>" else "FILE")
    tool = entry.source.partition(" ")[0]
    if entry.kind is Kind.HOOK and (tool in HOOK_TOOLS or tool.startswith("mcp__")):
        return "Read FILE" if tool == "Read" else tool  # a Bash row's source is its command line
    return command_key(entry.source)


# Claude Code tools whose hook rows are named `<tool> …` (a Bash row by its command line).
HOOK_TOOLS = frozenset({"Read", "Grep", "Glob", "WebFetch"})
# Tools whose second word names what was done (`git status`, `cargo test`, `npm run`).
SUBCOMMAND_TOOLS = frozenset(
    {
        "git", "cargo", "go", "npm", "pnpm", "yarn", "bun", "uv", "pip", "pip3", "poetry", "docker",
        "podman", "kubectl", "helm", "make", "gh", "terraform", "dotnet", "mvn", "gradle", "gradlew",
        "bazel", "nx", "turbo", "deno", "rustup", "brew", "apt", "apt-get", "conda",
    }
)  # fmt: skip
# Words that run the next word as the command (`sudo make`, `time pytest`).
_WRAPPERS = frozenset({"sudo", "env", "time", "nice", "nohup", "command", "exec", "builtin", "xargs"})
# Words that run a module or package named next (`python -m pytest`, `npx eslint`).
_RUNNERS = frozenset({"-m", "run", "exec", "dlx", "x"})
_PACKAGE_RUNNERS = frozenset({"npx", "bunx", "pipx", "uvx"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash"})
_SEPARATORS = frozenset({"&&", "||", ";", "|", "&", "(", ")"})


def command_key(command: str) -> str:
    """The first word(s) of a command line, for grouping: `make test`, `git status`, `pytest`.

    Environment assignments, wrappers (`sudo`, `time`) and a leading `cd DIR &&` are
    skipped; a program is named by its file name; a tool with subcommands keeps the
    subcommand, `python -m X`, `npx X`, `uv run X` keep X, and `sh -c LINE` is LINE's key.
    """
    words = _first_command(command)
    while words and ("=" in words[0] and not words[0].startswith("=") or words[0] in _WRAPPERS):
        words = words[1:]
    if not words:
        return command.strip().split(" ", 1)[0] or "-"
    program = words[0].rsplit("/", 1)[-1]
    key, rest = [program], words[1:]
    if program in _SHELLS and len(rest) >= 2 and rest[0] == "-c":
        return command_key(rest[1])
    if rest and (program in SUBCOMMAND_TOOLS and not rest[0].startswith("-") or rest[0] == "-m"):
        key.append(rest.pop(0))
    if (key[-1] in _RUNNERS or program in _PACKAGE_RUNNERS) and rest and not rest[0].startswith("-"):
        key.append(rest[0].rsplit("/", 1)[-1])
    return " ".join(key)


def _first_command(command: str) -> list[str]:
    """The words of the first simple command, past any `cd DIR &&` prefixes."""
    import shlex

    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:  # unbalanced quotes: the plain words will do
        words = command.split()
    commands: list[list[str]] = [[]]
    for word in words:
        if word in _SEPARATORS:
            commands.append([])
        else:
            commands[-1].append(word)
    commands = [c for c in commands if c]
    while len(commands) > 1 and commands[0][0] in ("cd", "pushd"):
        commands = commands[1:]
    return commands[0] if commands else []


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


@dataclass(frozen=True)
class Repeat:
    """How a call repeats the last one recorded with its identity within `RERUN_WINDOW`."""

    rerun: bool  # the same call: counted as a re-fetch
    same_output: bool  # and it printed the same: shown unmodified this time


def note_ref_open(store_root: Path, ref_id: str, host: str | None) -> None:
    """Record that a ref was opened; never raises (a drill-down must not fail on the ledger)."""
    record(store_root, Record(time.time(), Kind.REF, ref_id, "", 0, 0, 0, 0, host=host))


@dataclass(frozen=True)
class Refetch:
    """How often outputs were fetched again: the same call repeated, or a ref opened."""

    outputs: int  # `run` and hook rows
    reruns: int
    ref_opens: int

    @property
    def rate(self) -> float:
        return (self.reruns + self.ref_opens) / self.outputs if self.outputs else 0.0

    def as_dict(self) -> dict[str, object]:
        return {
            "outputs": self.outputs,
            "reruns": self.reruns,
            "ref_opens": self.ref_opens,
            "refetch_rate": round(self.rate, 4),
        }


def refetch(found: Iterable[Record]) -> Refetch:
    rows = list(found)
    outputs = [r for r in rows if r.kind in (Kind.RUN, Kind.HOOK)]
    return Refetch(len(outputs), sum(r.rerun for r in outputs), sum(r.kind is Kind.REF for r in rows))
