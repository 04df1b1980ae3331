"""The savings ledger: one row per analyze and run, concurrent writers, never the content."""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import sqlite3
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tokenlab import ledger
from tokenlab.cli import app
from tokenlab.ledger import Kind, Record

runner = CliRunner()
SECRET_CONTENT = b"CONTENT-THAT-MUST-NOT-BE-IN-THE-LEDGER"


@pytest.fixture(autouse=True)
def fresh_warning_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ledger, "_warned", False)


def row(source: str = "make test", *, at: float = 1000.0, raw: int = 100, shown: int = 10) -> Record:
    return Record(at, Kind.RUN, source, "log", raw * 4, raw, shown, 2, exit_status=0, duration=0.5)


def test_record_and_read_back(tmp_path: Path) -> None:
    assert ledger.record(tmp_path, row()) is None
    assert ledger.record(tmp_path, row("git status", at=2000.0)) is None
    found = ledger.records(tmp_path)
    assert [r.source for r in found] == ["make test", "git status"]
    assert found[0] == row()
    assert [r.source for r in ledger.records(tmp_path, since=1500.0)] == ["git status"]


def test_schema_is_versioned_wal_and_owner_only(tmp_path: Path) -> None:
    ledger.record(tmp_path, row())
    path = ledger.ledger_path(tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == ledger.SCHEMA_VERSION
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


V1_SCHEMA = """
CREATE TABLE records (id INTEGER PRIMARY KEY, time REAL NOT NULL, kind TEXT NOT NULL,
    source TEXT NOT NULL, content_type TEXT NOT NULL, raw_bytes INTEGER NOT NULL,
    raw_tokens INTEGER NOT NULL, visible_tokens INTEGER NOT NULL, refs INTEGER NOT NULL,
    exit_status INTEGER, duration REAL);
INSERT INTO records VALUES (1, 1000.0, 'run', 'make test', 'log', 400, 100, 10, 2, 0, 0.5);
PRAGMA user_version = 1;
"""


def test_a_version_1_ledger_gains_host_tokens_and_the_hook_and_keeps_its_rows(tmp_path: Path) -> None:
    tmp_path.mkdir(exist_ok=True)
    with sqlite3.connect(ledger.ledger_path(tmp_path)) as db:
        db.executescript(V1_SCHEMA)
    assert ledger.records(tmp_path) == [row()]
    hook_row = Record(
        2000.0, Kind.HOOK, "sh build.sh", "log", 4000, 1000, 50, 2, host_tokens=600, host="codex", event="PostToolUse"
    )
    assert ledger.record(tmp_path, hook_row) is None
    assert ledger.records(tmp_path) == [row(), hook_row]
    with sqlite3.connect(ledger.ledger_path(tmp_path)) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == ledger.SCHEMA_VERSION


def test_a_version_2_ledger_gains_the_hook_columns(tmp_path: Path) -> None:
    tmp_path.mkdir(exist_ok=True)
    with sqlite3.connect(ledger.ledger_path(tmp_path)) as db:
        db.executescript(V1_SCHEMA.replace("PRAGMA user_version = 1;", ""))
        db.execute("ALTER TABLE records ADD COLUMN host_tokens INTEGER")
        db.execute("PRAGMA user_version = 2")
    assert ledger.records(tmp_path) == [row()]
    hook_row = Record(2000.0, Kind.HOOK, "cat a.log", "log", 4000, 1000, 50, 1, host="gemini", event="AfterTool")
    assert ledger.record(tmp_path, hook_row) is None
    assert ledger.records(tmp_path)[-1] == hook_row


def test_a_newer_ledger_is_left_alone_and_reported_once(tmp_path: Path) -> None:
    ledger.record(tmp_path, row())
    with sqlite3.connect(ledger.ledger_path(tmp_path)) as db:
        db.execute(f"PRAGMA user_version = {ledger.SCHEMA_VERSION + 1}")
    first = ledger.record(tmp_path, row())
    assert first is not None and "newer" in first
    assert ledger.record(tmp_path, row()) is None  # warned once per process
    with pytest.raises(ledger.LedgerError):
        ledger.records(tmp_path)


def test_credentials_in_a_command_line_are_masked(tmp_path: Path) -> None:
    ledger.record(tmp_path, row("curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456' https://x"))
    (found,) = ledger.records(tmp_path)
    assert "abcdefghijklmnop" not in found.source
    assert "[secret:bearer-token]" in found.source


def test_analyze_appends_a_row_matching_its_json_and_never_the_content(
    tmp_path: Path, isolated_store: Path
) -> None:
    log = tmp_path / "app.log"
    log.write_bytes(b"INFO request served\n" * 300 + SECRET_CONTENT + b"\n")
    result = runner.invoke(app, ["analyze", str(log), "--json"])
    assert result.exit_code == 0
    payload = json.loads(result.stdout)
    (found,) = ledger.records(isolated_store)
    assert (found.kind, found.source, found.content_type) == (Kind.ANALYZE, str(log), payload["type"])
    assert (found.raw_tokens, found.visible_tokens) == (
        payload["raw"]["tokens"],
        payload["visible"]["tokens"],
    )
    assert found.refs == len(payload["refs"]) and found.exit_status is None
    for name in os.listdir(isolated_store):
        if name.startswith(ledger.LEDGER_NAME):
            assert SECRET_CONTENT not in (isolated_store / name).read_bytes()


def test_a_broken_ledger_never_fails_the_analysis(tmp_path: Path, isolated_store: Path) -> None:
    isolated_store.mkdir()
    ledger.ledger_path(isolated_store).mkdir()  # a folder where the database should be
    log = tmp_path / "app.log"
    log.write_bytes(b"INFO request served\n" * 50)
    result = runner.invoke(app, ["analyze", str(log)])
    assert result.exit_code == 0
    assert "INFO request served" in result.stdout
    assert result.stderr.count("tokens: warning: savings ledger") == 1


def test_concurrent_threads_lose_nothing(tmp_path: Path) -> None:
    def write(worker: int) -> None:
        for i in range(25):
            assert ledger.record(tmp_path, row(f"thread {worker} {i}")) is None

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(ledger.records(tmp_path)) == 200


def test_concurrent_processes_lose_nothing(tmp_path: Path) -> None:
    script = (
        "import sys\nfrom pathlib import Path\nfrom tokenlab import ledger\n"
        "for i in range(40):\n"
        "    problem = ledger.record(Path(sys.argv[1]), ledger.Record(float(i), ledger.Kind.RUN,"
        " f'p{sys.argv[2]} {i}', 'log', 1, 1, 1, 0))\n"
        "    assert problem is None, problem\n"
    )
    workers = [
        subprocess.Popen([sys.executable, "-c", script, str(tmp_path), str(n)], stderr=subprocess.PIPE)
        for n in range(10)
    ]  # all start on a ledger that does not exist yet: they race to create it too
    for worker in workers:
        _, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
    sources = {r.source for r in ledger.records(tmp_path)}
    assert sources == {f"p{n} {i}" for n in range(10) for i in range(40)}


def test_a_call_is_recorded_with_how_it_repeats_the_last_one_like_it(tmp_path: Path) -> None:
    def call(at: float, output: bytes) -> Record:
        found = ledger.fingerprint(ledger.call_fingerprint("/p", "make", "test"), [output])
        return Record(at, Kind.RUN, "make test", "log", 400, 100, 10, 1, fingerprint=found)

    first = ledger.record_call(tmp_path, call(1000.0, b"out"), shown_on_repeat=100)
    again = ledger.record_call(tmp_path, call(1010.0, b"out"), shown_on_repeat=100)
    changed = ledger.record_call(tmp_path, call(1020.0, b"other"), shown_on_repeat=100)
    late = ledger.record_call(tmp_path, call(1020.0 + ledger.RERUN_WINDOW + 1, b"other"), shown_on_repeat=100)
    assert [first[0], again[0], changed[0], late[0]] == [
        ledger.Repeat(False, False), ledger.Repeat(True, True), ledger.Repeat(True, False), ledger.Repeat(False, False)
    ]
    rows = ledger.records(tmp_path)
    assert [r.rerun for r in rows] == [False, True, True, False]
    assert [r.visible_tokens for r in rows] == [10, 100, 10, 10]  # the repeat shown as the host shows it


def test_a_ledger_kept_open_keeps_its_log_between_calls(tmp_path: Path) -> None:
    """Each call's own connection is then not the last one: closing it neither checkpoints
    nor deletes the write-ahead log (fsyncs on every call otherwise)."""
    log = ledger.ledger_path(tmp_path).with_name(ledger.LEDGER_NAME + "-wal")
    assert ledger.record(tmp_path, row()) is None
    assert not log.exists()  # the last connection closed: the log was checkpointed away
    with ledger.kept_open(tmp_path):
        assert ledger.record(tmp_path, row("git status", at=2000.0)) is None
        assert log.exists()
        assert [r.source for r in ledger.records(tmp_path)] == ["make test", "git status"]
    assert not log.exists()
    assert len(ledger.records(tmp_path)) == 2


def test_a_ledger_that_cannot_be_opened_is_kept_open_without_failing(tmp_path: Path) -> None:
    (tmp_path / ledger.LEDGER_NAME).mkdir()  # a folder where the database should be
    with ledger.kept_open(tmp_path):
        assert ledger.record(tmp_path, row()) is not None  # the call reports it, as without


def test_an_output_mapped_from_its_spool_is_fingerprinted_as_its_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ledger, "PASS_BYTES", 7)  # read a pass at a time, the last pass short
    output = b"".join(b"line %d\n" % n for n in range(100))
    path = tmp_path / "spool"
    path.write_bytes(output)
    with open(path, "rb") as file:
        mapped_output = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    call = ledger.call_fingerprint("/p", "cat", "spool")
    whole = hashlib.sha256(len(output).to_bytes(8, "big") + output + (0).to_bytes(8, "big")).hexdigest()
    assert ledger.fingerprint(call, [mapped_output, b""]) == f"{call}.{whole[:16]}"
    assert ledger.fingerprint(call, [output, b""]) == f"{call}.{whole[:16]}"
    mapped_output.close()  # no view of it is left
