"""Gemini CLI's settings: our AfterTool entry added and removed byte for byte, and trusted_hooks.json."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tokenlab.agent.gemini_settings import (
    DEFAULT_TOOLS,
    Change,
    command_line_policies,
    distrust,
    hook_command,
    hook_key,
    install,
    is_ours,
    read_file_refusable,
    tool_matcher,
    trust,
    uninstall,
)
from tokenlab.cli import app

runner = CliRunner()
COMMAND = hook_command("/opt/venv/bin/tokens")


def test_the_command_names_the_executable_by_its_absolute_path_quoted() -> None:
    assert hook_command("/my tools/tokens") == "'/my tools/tokens' hook gemini || exit 1"
    argv = shlex.split(hook_command())
    assert Path(argv[0]).is_absolute() and argv[-5:] == ["hook", "gemini", "||", "exit", "1"]
    assert is_ours({"command": hook_command()})
    assert is_ours({"command": "/x/python -m tokenlab hook gemini"})
    assert not is_ours({"command": "/x/tokens hook claude-code"}) and not is_ours({"command": "echo 'x"})


def test_install_merges_and_uninstall_restores_the_bytes(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    theirs = {"matcher": "read_file", "hooks": [{"type": "command", "command": "audit.sh"}]}
    original = json.dumps({"model": {"name": "gemini-2.5-pro"}, "hooks": {"AfterTool": [theirs]}}, indent=4)
    path.write_text(original)
    assert install(path, COMMAND) is Change.ADDED
    data = json.loads(path.read_text())
    ours = data["hooks"]["AfterTool"][1]
    assert ours["matcher"] == "^(run_shell_command|read_file|grep_search|glob|mcp_.*)$"
    assert ours["hooks"] == [{"name": "tokenlab", "type": "command", "command": COMMAND, "timeout": 30000}]
    assert "BeforeTool" not in data["hooks"]  # no rewrite: it would widen what Gemini's policy allows
    assert data["hooks"]["AfterTool"][0] == theirs and path.read_text().startswith('{\n    "model"')
    assert install(path, COMMAND) is Change.UNCHANGED
    assert install(path, hook_command("/new/tokens")) is Change.UPDATED
    assert len(json.loads(path.read_text())["hooks"]["AfterTool"]) == 2
    assert uninstall(path) is Change.REMOVED
    assert path.read_text() == original
    assert uninstall(path) is Change.ABSENT


def test_install_into_a_missing_file_and_uninstall_leaves_an_empty_object(tmp_path: Path) -> None:
    path = tmp_path / ".gemini" / "settings.json"
    assert install(path, COMMAND, ("run_shell_command",)) is Change.ADDED
    assert json.loads(path.read_text())["hooks"]["AfterTool"][0]["matcher"] == "^(run_shell_command)$"
    assert uninstall(path) is Change.REMOVED
    assert json.loads(path.read_text()) == {}


def test_the_matcher_is_anchored() -> None:
    import re

    matcher = re.compile(tool_matcher(DEFAULT_TOOLS))
    assert matcher.search("glob") and matcher.search("mcp_fixture_service_log")
    assert not matcher.search("glob_extra") and not matcher.search("write_file")


def test_trust_adds_our_key_and_distrust_gives_back_the_file(tmp_path: Path) -> None:
    path, project = tmp_path / "trusted_hooks.json", tmp_path / "project"
    assert distrust(path, project) is Change.ABSENT
    assert trust(path, project, COMMAND) is Change.ADDED
    assert json.loads(path.read_text()) == {str(project): [hook_key(COMMAND)]}
    assert distrust(path, project) is Change.REMOVED
    assert not path.exists()  # Gemini creates it when it first sees a project hook

    original = json.dumps({str(project): ["audit:audit.sh"], "/other": ["x:y"]}, indent=2)  # Gemini's style
    path.write_text(original)
    assert trust(path, project, COMMAND) is Change.ADDED
    assert trust(path, project, COMMAND) is Change.UNCHANGED
    assert distrust(path, project) is Change.REMOVED
    assert path.read_text() == original


def test_cli_install_and_uninstall_for_the_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)
    result = runner.invoke(app, ["hook", "install", "gemini"])
    assert result.exit_code == 0, result.output
    settings, trusted = tmp_path / ".gemini" / "settings.json", home / ".gemini" / "trusted_hooks.json"
    command = json.loads(settings.read_text())["hooks"]["AfterTool"][0]["hooks"][0]["command"]
    assert json.loads(trusted.read_text()) == {str(tmp_path): [hook_key(command)]}
    result = runner.invoke(app, ["hook", "uninstall", "gemini"])
    assert result.exit_code == 0 and json.loads(settings.read_text()) == {} and not trusted.exists()


def test_cli_install_for_the_user_and_options_that_do_not_apply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    result = runner.invoke(app, ["hook", "install", "gemini", "--user", "--tools", "run_shell_command,glob"])
    assert result.exit_code == 0, result.output
    data = json.loads((tmp_path / "home" / ".gemini" / "settings.json").read_text())
    assert data["hooks"]["AfterTool"][0]["matcher"] == "^(run_shell_command|glob)$"
    assert not (tmp_path / "home" / ".gemini" / "trusted_hooks.json").exists()
    for args in (["--allow-read-only"], ["--exclude", "rm *"], ["--tools", ""]):
        result = runner.invoke(app, ["hook", "install", "gemini", "--user", *args])
        assert result.exit_code == 2 and "Traceback" not in result.output


@pytest.mark.parametrize(
    "policy",
    [
        '[[rule]]\ntoolName = "read_file"\nargsPattern = "secret"\ndecision = "deny"\npriority = 10\n',
        '[[rule]]\ntoolName = ["glob", "read_*"]\ndecision = "ask_user"\npriority = 10\n',
        '[[rule]]\ndecision = "deny"\npriority = 10\n',
        "not toml [",
    ],
)
def test_a_policy_that_may_refuse_read_file_is_seen(tmp_path: Path, policy: str) -> None:
    env = {"HOME": str(tmp_path)}
    policies = tmp_path / ".gemini" / "policies"
    policies.mkdir(parents=True)
    (policies / "allow.toml").write_text(
        '[[rule]]\ntoolName = "read_file"\ndecision = "allow"\npriority = 10\n'
        '[[rule]]\nmcpName = "x"\ntoolName = "*"\ndecision = "deny"\npriority = 10\n'
        '[[rule]]\ntoolName = "run_shell_command"\ndecision = "deny"\npriority = 10\n'
    )
    assert not read_file_refusable(env, tmp_path / "project")
    (policies / "user.toml").write_text(policy)
    assert read_file_refusable(env, tmp_path / "project")


def test_settings_that_leave_read_file_out_are_seen(tmp_path: Path) -> None:
    env, project = {"HOME": str(tmp_path)}, tmp_path / "project"
    (project / ".gemini").mkdir(parents=True)
    (tmp_path / ".gemini").mkdir()
    for settings in ({"tools": {"exclude": ["read_file"]}}, {"tools": {"core": ["glob"]}}):
        (project / ".gemini" / "settings.json").write_text(json.dumps(settings))
        assert read_file_refusable(env, project)
    (project / ".gemini" / "settings.json").write_text(json.dumps({"tools": {"core": ["read_file"]}}))
    assert not read_file_refusable(env, project)
    extra = tmp_path / "team.toml"
    extra.write_text('[[rule]]\ntoolName = "read_file"\ndecision = "deny"\npriority = 10\n')
    (tmp_path / ".gemini" / "settings.json").write_text(json.dumps({"policyPaths": [str(extra)]}))
    assert read_file_refusable(env, project)


def test_policies_given_on_geminis_command_line_are_read(tmp_path: Path) -> None:
    env, project = {"HOME": str(tmp_path)}, tmp_path / "project"
    (tmp_path / "run").mkdir()
    rule = '[[rule]]\ntoolName = "{}"\ndecision = "deny"\npriority = 9\n'
    (tmp_path / "run" / "deny.toml").write_text(rule.format("read_file"))
    (tmp_path / "ok.toml").write_text(rule.format("glob"))
    shell = (["sh", "-c", "tokens hook gemini || exit 1"], tmp_path)
    argv = ["node", "gemini.js", "-p", "go", "--policy", "deny.toml", "--admin-policy=/a.toml,/b"]
    gemini = (argv, tmp_path / "run")
    expected = [tmp_path / "run" / "deny.toml", Path("/a.toml"), Path("/b")]
    assert command_line_policies([shell, gemini]) == expected
    assert command_line_policies([(["gemini", "--policy"], tmp_path), (["node", "policy"], tmp_path)]) == []

    assert not read_file_refusable(env, project, [tmp_path / "ok.toml"])
    assert read_file_refusable(env, project, [tmp_path / "ok.toml", tmp_path / "run"])  # a folder: its *.toml
    assert read_file_refusable(env, project, [tmp_path / "missing.toml"])
