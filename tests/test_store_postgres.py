"""Every command that takes a store, on a PostgreSQL store; connection errors; passwords.

Commands run as real `tokens` processes (the plain `analyze` and `run` fast paths too), so
exit codes and one-line errors are what a user sees.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.pg_cluster import PASSWORD, PASSWORD_ROLE, Cluster
from tokenlab.store import open_store
from tokenlab.store.resolve import _shared

LOG = (
    b"".join(b"INFO request %d served in 3ms\n" % i for i in range(600)) + b"ERROR PaymentService line 421\n"
)


def tokens(
    *args: str, stdin: bytes = b"", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "tokenlab", *args],
        input=stdin,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=120,
        check=False,
    )


def one_line_error(done: subprocess.CompletedProcess[bytes]) -> str:
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tokens: "), done.stderr
    assert done.stdout == b""
    return lines[0]


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The local state folder of the PostgreSQL store in these tests."""
    folder = tmp_path / "state"
    monkeypatch.setenv("TOKENLAB_STATE", str(folder))
    return folder


@pytest.fixture
def shared_pools(pg_url: str) -> Iterator[None]:
    """Servers keep one pool per store for the process: close it after the test."""
    yield
    _shared(pg_url).close()
    _shared.cache_clear()


def test_analyze_show_ref_restore_run_and_store_commands(pg_url: str, state: Path, tmp_path: Path) -> None:
    log = tmp_path / "app.log"
    log.write_bytes(LOG)
    analyzed = tokens("analyze", str(log), "--store", pg_url)
    assert analyzed.returncode == 0, analyzed.stderr
    visible = analyzed.stdout
    assert b"ERROR PaymentService line 421" in visible and b"#ref:ctx_" in visible
    restored = tokens("restore", "-", "--store", pg_url, stdin=visible)
    assert (restored.returncode, restored.stdout) == (0, LOG)

    as_json = json.loads(tokens("analyze", "-", "--json", "--store", pg_url, stdin=LOG).stdout)
    ref_id = as_json["refs"][0]["id"]
    shown = tokens("show-ref", ref_id, "--raw", "--store", pg_url)
    assert shown.returncode == 0 and shown.stdout in LOG
    grep = tokens("show-ref", ref_id, "--grep", "request 7 ", "--store", pg_url)
    assert grep.returncode == 0 and b"request 7 served" in grep.stdout
    lines = json.loads(tokens("show-ref", ref_id, "--lines", "2-3", "--json", "--store", pg_url).stdout)
    assert lines["ranges"] == [[2, 3]] and lines["id"] == ref_id

    ran = tokens("run", "--store", pg_url, "--", sys.executable, "-c", "print('hello from run ' * 3)")
    assert ran.returncode == 0 and b"hello from run" in ran.stdout
    assert (state / "ledger.sqlite3").is_file()  # the ledger lives in the local state folder
    failed = tokens("run", "--json", "--store", pg_url, "--shell", "seq 1 3000; exit 3")
    assert failed.returncode == 3
    run_visible = json.loads(failed.stdout)["visible"]["text"].encode()
    assert tokens("restore", "-", "--store", pg_url, stdin=run_visible).stdout == b"".join(
        b"%d\n" % i for i in range(1, 3001)
    )

    stats = json.loads(tokens("store", "stats", "--json", "--store", pg_url).stdout)
    assert stats["refs"] >= 2 and stats["store"] == pg_url
    verified = tokens("store", "verify", "--store", pg_url)
    assert verified.returncode == 0 and b": clean" in verified.stdout
    dry = tokens("store", "gc", "--older-than", "0", "--dry-run", "--store", pg_url)
    assert dry.returncode == 0 and b"would remove" in dry.stdout
    assert b"schema version 1" in tokens("store", "init", "--store", pg_url).stdout
    gain = tokens("gain", "--json", "--store", pg_url)
    assert gain.returncode == 0 and json.loads(gain.stdout)["ledger"] == str(state / "ledger.sqlite3")


def test_store_from_the_environment_and_pg_variables(pg_cluster: Cluster, pg_url: str, state: Path) -> None:
    from_env = tokens("analyze", "-", stdin=LOG, env={"TOKENLAB_STORE": pg_url})
    assert from_env.returncode == 0, from_env.stderr
    database = pg_url.rsplit("/", 1)[1]
    pg_env = {
        "PGHOST": "127.0.0.1",
        "PGPORT": str(pg_cluster.port),
        "PGUSER": "tokenlab",
        "PGDATABASE": database,
    }
    restored = tokens("restore", "-", "--store", "postgresql://", stdin=from_env.stdout, env=pg_env)
    assert (restored.returncode, restored.stdout) == (0, LOG)


def test_connection_refused_is_one_line_exit_2(pg_cluster: Cluster, state: Path) -> None:
    url = f"postgresql://tokenlab@127.0.0.1:{pg_cluster.port + 1 if pg_cluster.port < 65535 else 1}/postgres"
    for args in (("analyze", "-"), ("store", "stats"), ("show-ref", "ctx_abcdef")):
        done = tokens(*args, "--store", url, stdin=LOG)
        assert done.returncode == 2
        assert "cannot connect to PostgreSQL store" in one_line_error(done)


def test_wrong_password_is_exit_2_and_no_password_is_ever_shown(
    pg_cluster: Cluster, pg_url: str, state: Path, tmp_path: Path
) -> None:
    database = pg_url.rsplit("/", 1)[1]
    wrong = pg_cluster.url(database, PASSWORD_ROLE, "not-" + PASSWORD)
    done = tokens("analyze", "-", "--store", wrong, stdin=LOG)
    assert done.returncode == 2
    line = one_line_error(done)
    assert "password authentication failed" in line and "not-" + PASSWORD not in line
    by_env = tokens("store", "stats", "--store", pg_cluster.url(database, PASSWORD_ROLE),
                    env={"PGPASSWORD": "wrong-" + PASSWORD})  # fmt: skip
    assert by_env.returncode == 2 and PASSWORD not in one_line_error(by_env)

    right = (
        pg_cluster.url(database, PASSWORD_ROLE, PASSWORD) + "?sslmode=disable&application_name=tokenlab-test"
    )
    outputs = [
        tokens("analyze", "-", "--store", right, stdin=LOG),
        tokens("run", "--trace", "--store", right, "--", "echo", "hi"),
        tokens("store", "stats", "--store", right),
        tokens("store", "verify", "--store", right),
        tokens("show-ref", "ctx_000000", "--store", right),
    ]
    assert outputs[0].returncode == 0 and outputs[-1].returncode == 2
    for done in outputs:
        assert PASSWORD.encode() not in done.stdout + done.stderr
    for path in state.rglob("*"):
        if path.is_file():
            assert PASSWORD.encode() not in path.read_bytes(), path


def test_store_copy_between_folder_and_postgres(pg_url: str, state: Path, tmp_path: Path) -> None:
    ci = tmp_path / "ci-store"
    analyzed = tokens("analyze", "-", "--store", str(ci), stdin=LOG)
    published = tokens("store", "copy", "--from", str(ci), "--to", pg_url)
    assert published.returncode == 0 and b"copied" in published.stdout, published.stderr
    assert tokens("restore", "-", "--store", pg_url, stdin=analyzed.stdout).stdout == LOG
    again = json.loads(tokens("store", "copy", "--from", str(ci), "--to", pg_url, "--json").stdout)
    assert again["copied"] == [] and again["present"] and again["to"] == pg_url
    back = tmp_path / "reviewer"
    some = again["present"][0]
    copied = json.loads(
        tokens("store", "copy", "--from", pg_url, "--to", str(back), "--ids", some, "--json").stdout
    )
    assert copied["copied"] == [some]
    missing = tokens("store", "copy", "--from", pg_url, "--to", str(back), "--ids", "ctx_0000ff")
    assert missing.returncode == 1 and b"missing:  ctx_0000ff" in missing.stdout


def test_serve_and_mcp_read_refs_from_postgres(
    pg_url: str, state: Path, tmp_path: Path, shared_pools: None
) -> None:
    pytest.importorskip("mcp")
    from fastapi.testclient import TestClient

    from tokenlab.serve.http import create_app
    from tokenlab.serve.mcp import Settings, Tools

    tools = Tools(Settings(tmp_path, pg_url))
    compressed = tools.compress(LOG.decode(), "app.log")
    payload = compressed.structured_content or {}
    ref_id = payload["refs"][0]["id"]
    view = tools.expand_ref(ref_id, grep="request 5 ")
    assert "request 5 served" in json.dumps(view.structured_content)
    client = TestClient(create_app(tmp_path, store_dir=pg_url))
    got = client.get(f"/v1/refs/{ref_id}")
    assert got.status_code == 200 and got.json()["id"] == ref_id
    assert client.get(f"/v1/refs/{ref_id}", params={"grep": "request 5 "}).status_code == 200
    assert client.get("/v1/refs/ctx_000000").status_code == 404
    with open_store(pg_url) as store:
        assert store.load(ref_id).data in LOG


def test_the_client_tells_database_stores_apart_as_the_store_does() -> None:
    from tokenlab.agent import client
    from tokenlab.store import resolve

    assert client.POSTGRES_SCHEMES == resolve.POSTGRES_SCHEMES
    assert client.database_store("postgresql://u@h/db") == "postgresql://u@h/db"
    assert client.database_store("var/context") is None


def test_a_store_url_in_a_command_line_is_masked_in_the_ledger() -> None:
    from tokenlab.ledger import masked

    line = masked(f"tokens analyze --store postgresql://bob:{PASSWORD}@db.example.com/app")
    assert PASSWORD not in line and "db.example.com/app" in line


def test_names_never_hold_the_password(tmp_path: Path) -> None:
    store = open_store(f"postgresql://bob:{PASSWORD}@db.example.com:6432/app?sslmode=require")
    assert store.name == "postgresql://bob@db.example.com:6432/app"
    assert PASSWORD not in store.name and store.root.name == "context"
    assert open_store(tmp_path).name == str(tmp_path)


def test_a_newer_schema_is_refused_not_guessed_at(pg_url: str, pg_cluster: Cluster, state: Path) -> None:
    assert tokens("store", "init", "--store", pg_url).returncode == 0
    pg_cluster.sql("UPDATE tokenlab_schema SET version = 99", pg_url.rsplit("/", 1)[1])
    done = tokens("store", "stats", "--store", pg_url)
    assert done.returncode == 2 and "schema is version 99" in one_line_error(done)
