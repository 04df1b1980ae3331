"""Codex's hook files: install and trust, uninstall back to the same bytes, and the CLI."""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tokenlab.agent import codex_config
from tokenlab.agent.claude_settings import Change
from tokenlab.agent.codex_config import install, trust_hash, uninstall
from tokenlab.cli import app
from tokenlab.errors import InputError

runner = CliRunner()
COMMAND = "/venv/bin/python -m tokenlab hook codex"
USER_HOOK = {"type": "command", "command": "notify.sh", "timeout": 5}


def test_trust_hash_follows_the_measured_recipe() -> None:
    handler = {"type": "command", "command": "python3 /tmp/record_hook.py", "timeout": 30}
    identity = (
        '{"event_name":"pre_tool_use","hooks":[{"async":false,"command":"python3 /tmp/record_hook.py",'
        '"timeout":30,"type":"command"}],"matcher":".*"}'
    )

    assert (
        trust_hash("pre_tool_use", ".*", handler) == "sha256:" + hashlib.sha256(identity.encode()).hexdigest()
    )
    assert trust_hash("pre_tool_use", None, handler) != trust_hash("pre_tool_use", ".*", handler)


def test_install_into_nothing_then_uninstall_leaves_nothing(tmp_path: Path) -> None:
    home = tmp_path / "codex-home"
    hooks_file, config = home / "hooks.json", home / "config.toml"
    installed = install(hooks_file, config, COMMAND)
    assert installed.change is Change.ADDED
    data = json.loads(hooks_file.read_text())
    assert data["hooks"]["PreToolUse"] == [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": COMMAND, "timeout": 60}]}
    ]
    assert data["hooks"]["PostToolUse"][0]["matcher"] == "mcp__.*"
    state = tomllib.loads(config.read_text())["hooks"]["state"]
    key = f"{hooks_file}:pre_tool_use:0:0"
    assert installed.trusted == (key, f"{hooks_file}:post_tool_use:0:0")
    assert state[key]["trusted_hash"] == trust_hash(
        "pre_tool_use", "Bash", data["hooks"]["PreToolUse"][0]["hooks"][0]
    )
    assert install(hooks_file, config, COMMAND).change is Change.UNCHANGED
    assert uninstall(hooks_file, config) is Change.REMOVED
    assert not home.exists()
    assert uninstall(hooks_file, config) is Change.ABSENT


HOOKS_FILES = {
    "user hooks, two-space": json.dumps(
        {"hooks": {"PreToolUse": [{"matcher": ".*", "hooks": [USER_HOOK]}]}}, indent=2
    )
    + "\n",
    "empty hooks object, tabs": json.dumps({"hooks": {}, "other": "é"}, indent="\t", ensure_ascii=False),
    "no hooks key, compact": json.dumps({"x": 1}),
    "post only": json.dumps({"hooks": {"PostToolUse": [{"hooks": [USER_HOOK]}]}}, indent=4) + "\n",
}
CONFIGS = {
    "no final newline": 'model = "o3"\n[profiles.fast]\nmodel = "o4-mini"',
    "with trust already": '[hooks.state."/x/hooks.json:pre_tool_use:0:0"]\ntrusted_hash = "sha256:00"\n',
    "empty": "",
    "crlf": 'model = "o3"\r\n',
}


@pytest.mark.parametrize("hooks_text", HOOKS_FILES.values(), ids=HOOKS_FILES.keys())
@pytest.mark.parametrize("config_text", CONFIGS.values(), ids=CONFIGS.keys())
def test_install_then_uninstall_is_byte_identical(hooks_text: str, config_text: str, tmp_path: Path) -> None:
    hooks_file, config = tmp_path / "hooks.json", tmp_path / "config.toml"
    hooks_file.write_bytes(hooks_text.encode())
    config.write_bytes(config_text.encode())
    install(hooks_file, config, COMMAND)
    assert config.read_bytes().startswith(config_text.encode())
    data = json.loads(hooks_file.read_text())
    groups = data["hooks"]["PreToolUse"]
    trusted = tomllib.loads(config.read_text())["hooks"]["state"]
    assert f"{hooks_file}:pre_tool_use:{len(groups) - 1}:0" in trusted
    install(hooks_file, config, COMMAND.replace("/venv", "/other-venv"))  # updated in place
    assert uninstall(hooks_file, config) is Change.REMOVED
    assert hooks_file.read_bytes() == hooks_text.encode()
    assert config.read_bytes() == config_text.encode()


def test_a_project_install_and_a_user_install_are_undone_separately(tmp_path: Path) -> None:
    config = tmp_path / "codex-home" / "config.toml"
    user, project = tmp_path / "codex-home" / "hooks.json", tmp_path / "repo" / ".codex" / "hooks.json"
    (tmp_path / "repo").mkdir()
    install(user, config, COMMAND)
    install(project, config, COMMAND)
    assert uninstall(project, config) is Change.REMOVED
    assert not (tmp_path / "repo" / ".codex").exists() and (tmp_path / "repo").exists()
    assert f"{user}:pre_tool_use:0:0" in tomllib.loads(config.read_text())["hooks"]["state"]
    uninstall(user, config)
    assert not (tmp_path / "codex-home").exists()


def test_uninstall_keeps_what_the_user_added_since(tmp_path: Path) -> None:
    hooks_file, config = tmp_path / "h" / "hooks.json", tmp_path / "h" / "config.toml"
    install(hooks_file, config, COMMAND)
    data = json.loads(hooks_file.read_text())
    data["hooks"]["PreToolUse"][0]["hooks"].append(USER_HOOK)
    hooks_file.write_text(json.dumps(data, indent=2) + "\n")
    config.write_text(config.read_text() + 'model = "o3"\n')
    uninstall(hooks_file, config)
    assert json.loads(hooks_file.read_text()) == {
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [USER_HOOK]}]}
    }
    assert config.read_text() == 'model = "o3"\n'


@pytest.mark.parametrize(
    ("hooks_text", "config_text"),
    [
        ("{not json", ""),
        ('{"hooks": []}', ""),
        ("{}", "model = "),  # config.toml that does not parse: nothing is written
        ("{}", '[hooks.state."HOOKS:pre_tool_use:0:0"]\ntrusted_hash = "sha256:0"\n'),
    ],
)
def test_install_refuses_what_it_cannot_edit_exactly(
    hooks_text: str, config_text: str, tmp_path: Path
) -> None:
    hooks_file, config = tmp_path / "hooks.json", tmp_path / "config.toml"
    hooks_file.write_text(hooks_text)
    config.write_text(config_text.replace("HOOKS", str(hooks_file)))
    before = (hooks_file.read_bytes(), config.read_bytes())
    with pytest.raises(InputError):
        install(hooks_file, config, COMMAND)
    assert (hooks_file.read_bytes(), config.read_bytes()) == before


def test_is_ours_recognises_both_command_forms() -> None:
    assert codex_config.is_ours({"command": "/usr/local/bin/tokens hook codex"})
    assert codex_config.is_ours({"command": "'/my venv/bin/python' -m tokenlab hook codex"})
    assert not codex_config.is_ours({"command": "tokens hook claude-code"})
    assert not codex_config.is_ours({"command": "notify.sh hook codex"})


def test_cli_install_and_uninstall(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "ch"))
    done = runner.invoke(app, ["hook", "install", "codex", "--user"])
    assert done.exit_code == 0, done.output
    assert "Trusted in" in done.output and "pre_tool_use:0:0" in done.output
    assert (tmp_path / "ch" / "hooks.json").exists()
    done = runner.invoke(app, ["hook", "install", "codex", "--project"])
    assert done.exit_code == 0 and (tmp_path / ".codex" / "hooks.json").exists()
    assert "only for a trusted project" in done.stderr
    config = tmp_path / "ch" / "config.toml"
    config.write_text(config.read_text() + f'\n[projects.{json.dumps(str(tmp_path))}]\ntrust_level = "trusted"\n')
    done = runner.invoke(app, ["hook", "install", "codex", "--project"])
    assert done.exit_code == 0 and "trusted project" not in done.stderr
    assert runner.invoke(app, ["hook", "install", "codex", "--allow-read-only"]).exit_code == 2
    assert runner.invoke(app, ["hook", "install", "codex", "--user", "--project"]).exit_code == 2
    assert runner.invoke(app, ["hook", "uninstall", "codex", "--project"]).exit_code == 0
    done = runner.invoke(app, ["hook", "uninstall", "codex", "--user"])
    assert done.exit_code == 0 and "removed from" in done.output
    assert not (tmp_path / "ch" / "hooks.json").exists() and not (tmp_path / ".codex").exists()
    assert "tokenlab" not in config.read_text() and 'trust_level = "trusted"' in config.read_text()


@pytest.mark.parametrize(
    ("config", "trusted"),
    [
        ('[projects."PROJECT"]\ntrust_level = "trusted"\n', True),
        ('[projects."PROJECT"]\ntrust_level = "untrusted"\n', False),
        ('[projects."PROJECT/sub"]\ntrust_level = "trusted"\n', False),
        ("projects = 1\n", False),
        ("not toml [", False),
        ("", False),
    ],
)
def test_project_trusted_reads_codexs_own_project_entry(config: str, trusted: bool, tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(config.replace("PROJECT", str(tmp_path)))
    assert codex_config.project_trusted(path, tmp_path) is trusted
