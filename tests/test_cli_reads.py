"""The read, deref, changes, search and serve commands: stdout, stderr and exit codes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from tests.conftest import run_git
from tokenlab.cli.reads import register

CODE = (
    b"import os\r\n\r\n\r\nclass Store:\r\n    def load(self, key):\r\n        return key\r\n"
    b"\r\n\r\ndef main():\r\n    pass"
)


@pytest.fixture
def app() -> typer.Typer:
    application = typer.Typer()

    @application.callback()
    def main() -> None:
        """A throwaway app carrying only the read commands."""

    register(application)
    return application


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("TOKENLAB_NODE", "testnode")
    root = tmp_path / "proj"
    root.mkdir()
    run_git(root, "init", "-q")
    (root / "store.py").write_bytes(CODE)
    run_git(root, "add", ".")
    run_git(root, "commit", "-qm", "first")
    monkeypatch.chdir(root)
    return root


def invoke(app: typer.Typer, *args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_read_prints_content_on_stdout_and_one_header_line_on_stderr(app: typer.Typer, repo: Path) -> None:
    result = invoke(app, "read", "store.py", "--view", "full", "--budget", "100000")
    assert result.exit_code == 0
    assert result.stdout_bytes == CODE
    assert len(result.stderr.splitlines()) == 1
    assert "store.py: full" in result.stderr and "nas://testnode/proj/store.py@" in result.stderr


def test_read_lines_are_exact_bytes(app: typer.Typer, repo: Path) -> None:
    result = invoke(app, "read", "store.py", "--lines", "4-6")
    assert result.exit_code == 0 and result.stdout_bytes == CODE.split(b"\r\n\r\n\r\n")[1] + b"\r\n"


def test_read_json_is_the_response_object(app: typer.Typer, repo: Path) -> None:
    result = invoke(app, "read", "store.py", "--view", "outline", "--json")
    payload = json.loads(result.stdout)
    assert payload["view"] == "outline" and payload["requested_view"] == "outline"
    assert [symbol["name"] for symbol in payload["outline"]] == ["Store", "main"]
    assert payload["outline"][0]["children"][0]["name"] == "load"
    assert result.stderr == ""


def test_read_degrades_and_says_so(app: typer.Typer, repo: Path) -> None:
    result = invoke(app, "read", "store.py", "--view", "full", "--budget", "12", "--json")
    payload = json.loads(result.stdout)
    assert payload["view"] != "full" and payload["degraded_from"] == "full"
    assert payload["tokens"] <= 25 or payload["truncated"]


def test_read_section(app: typer.Typer, repo: Path) -> None:
    result = invoke(app, "read", "store.py", "--section", "Store.load")
    assert result.stdout_bytes == b"    def load(self, key):\r\n        return key\r\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("read", "missing.py"), "no such file"),
        (("read", "store.py", "--lines", "x-y"), "--lines expects"),
        (("read", "store.py", "--section", "Nope"), "no section 'Nope'"),
        (("read", "store.py", "--view", "summary"), "needs a summarizer"),
        (("deref", "store.py@deadbeef#L1-L2"), "unknown commit"),
        (("deref", "gone.py@HEAD#L1-L2"), "does not exist at commit"),
        (("deref", "not-a-pointer"), "not a pointer"),
        (("changes", "store.py", "--since", "nope"), "unknown commit"),
        (("search", "("), "bad regular expression"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    app: typer.Typer, repo: Path, args: tuple[str, ...], message: str
) -> None:
    if args[0] == "search":
        args = (*args, "--regex")
    result = invoke(app, *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_deref_prints_the_commit_lines_and_verifies(app: typer.Typer, repo: Path) -> None:
    payload = json.loads(invoke(app, "read", "store.py", "--section", "Store", "--json").stdout)
    pointer, sha = payload["evidence"][0]["pointer"], payload["evidence"][0]["sha256"]
    (repo / "store.py").write_bytes(b"rewritten\n")
    result = invoke(app, "deref", pointer, "--verify", sha)
    assert result.exit_code == 0
    assert hashlib.sha256(result.stdout_bytes).hexdigest() == sha
    assert b"class Store" in result.stdout_bytes and "verified" in result.stderr


def test_deref_exits_1_on_a_hash_mismatch(app: typer.Typer, repo: Path) -> None:
    result = invoke(app, "deref", "store.py@HEAD#L1-L1", "--verify", "0" * 64)
    assert result.exit_code == 1 and "sha256 mismatch" in result.stderr and result.stdout == ""


def test_deref_json(app: typer.Typer, repo: Path) -> None:
    payload = json.loads(invoke(app, "deref", "store.py@HEAD#L4-L4", "--json").stdout)
    assert payload["content"] == "class Store:\r\n" and payload["commit"] == run_git(
        repo, "rev-parse", "HEAD"
    )


def test_changes_plain_and_json(app: typer.Typer, repo: Path) -> None:
    (repo / "store.py").write_bytes(CODE.replace(b"return key", b"return key * 2"))
    plain = invoke(app, "changes", "store.py", "--since", "HEAD")
    assert plain.exit_code == 0 and "+        return key * 2" in plain.stdout and "changes" in plain.stderr
    payload = json.loads(invoke(app, "changes", "store.py", "--since", "HEAD", "--json").stdout)
    assert payload["view"] == "diff" and payload["to"] == "worktree" and payload["evidence"]


def test_search_plain_and_json(app: typer.Typer, repo: Path) -> None:
    plain = invoke(app, "search", "load", "--budget", "500")
    assert plain.exit_code == 0 and "(Store.load)" in plain.stdout and "matches shown" in plain.stderr
    payload = json.loads(invoke(app, "search", "load", "store.py", "--json").stdout)
    assert payload["matches_total"] == 1 and payload["matches_left_out"] == 0
    assert payload["snippets"][0]["symbol"] == "Store.load"


def test_serve_binds_loopback_by_default(
    app: typer.Typer, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: calls.append(options))
    monkeypatch.setenv("TOKENLAB_TOKEN", "sekret")
    result = invoke(app, "serve", "--root", str(repo))
    assert result.exit_code == 0
    assert calls == [{"host": "127.0.0.1", "port": 8765, "log_level": "warning"}]


def test_serve_refuses_a_missing_root(app: typer.Typer, repo: Path) -> None:
    result = invoke(app, "serve", "--root", "nowhere")
    assert result.exit_code == 2 and "not a folder" in result.stderr


def test_serve_warns_when_exposed_without_a_token(
    app: typer.Typer, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda app, **options: None)
    monkeypatch.delenv("TOKENLAB_TOKEN", raising=False)
    result = invoke(app, "serve", "--host", "0.0.0.0")
    assert result.exit_code == 0 and "without --token" in result.stderr


def test_help_lists_every_command(app: typer.Typer) -> None:
    result = invoke(app, "--help")
    for name in ("read", "deref", "changes", "search", "serve"):
        assert name in result.stdout
