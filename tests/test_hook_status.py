"""`tokens hook status`: what is installed where, and when each hook last ran."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tokenlab import ledger
from tokenlab.cli import app
from tokenlab.ledger import Kind, Record

runner = CliRunner()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    return folder


def status() -> dict[str, dict[str, object]]:
    result = runner.invoke(app, ["hook", "status", "--json"])
    assert result.exit_code == 0, result.output
    return {host["host"]: host for host in json.loads(result.stdout)["hosts"]}


def test_nothing_installed_and_nothing_run(home: Path) -> None:
    claude = status()["claude-code"]
    assert claude["installed"] == [] and claude["last_runs"] == {}
    text = runner.invoke(app, ["hook", "status"]).stdout
    assert "not installed" in text and "no run recorded" in text


def test_installed_hooks_and_their_last_runs(home: Path, isolated_store: Path) -> None:
    assert runner.invoke(app, ["hook", "install", "claude-code", "--user"]).exit_code == 0
    ledger.record(isolated_store, Record(1000.0, Kind.HOOK, "sh build.sh", "log", 9, 9, 1, 1, host="claude-code", event="PostToolUse"))
    ledger.record(isolated_store, Record(2000.0, Kind.HOOK, "cat a.log", "log", 9, 9, 1, 1, host="claude-code", event="PostToolUse"))
    ledger.record(isolated_store, Record(1500.0, Kind.RUN, "make", "log", 9, 9, 1, 1, host="claude-code"))
    ledger.record(isolated_store, Record(time.time(), Kind.RUN, "make", "log", 9, 9, 1, 1, host="codex"))
    claude = status()["claude-code"]
    (place,) = claude["installed"]
    assert place["path"] == str(home / ".claude" / "settings.json")
    assert [hook["event"] for hook in place["hooks"]] == ["PreToolUse", "PostToolUse"]
    assert claude["last_runs"] == {"PostToolUse": 2000.0, "run": 1500.0}
    assert runner.invoke(app, ["hook", "uninstall", "claude-code", "--user"]).exit_code == 0
    assert status()["claude-code"]["installed"] == []
    assert status()["codex"]["last_runs"] == {"run": pytest.approx(time.time(), abs=60)}


def test_codex_hooks_are_listed_where_install_put_them(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    assert runner.invoke(app, ["hook", "install", "codex", "--user"]).exit_code == 0
    (place,) = status()["codex"]["installed"]
    assert place["path"] == str(home / ".codex" / "hooks.json")
    assert {hook["event"] for hook in place["hooks"]} == {"PreToolUse", "PostToolUse"}
    assert runner.invoke(app, ["hook", "uninstall", "codex", "--user"]).exit_code == 0
    assert status()["codex"]["installed"] == []


def test_gemini_hooks_are_listed_where_install_put_them(home: Path) -> None:
    assert runner.invoke(app, ["hook", "install", "gemini", "--user"]).exit_code == 0
    (place,) = status()["gemini"]["installed"]
    assert place["path"] == str(home / ".gemini" / "settings.json")
    assert [hook["event"] for hook in place["hooks"]] == ["AfterTool"]
    assert runner.invoke(app, ["hook", "uninstall", "gemini", "--user"]).exit_code == 0
    assert status()["gemini"]["installed"] == []
