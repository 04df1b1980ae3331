"""The warm worker answers Claude Code's PreToolUse hook exactly as the hook's own process
does, with that process's environment; it leaves other calls, and other processes, to the
hook; and a hook that finds no worker loads no more than it did."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tokenlab.agent import client, wire, worker
from tokenlab.agent.launcher import python_argv
from tests.warm_worker import NOT_FOR_A_WARM_RUN


def _hook_call(command: str, cwd: Path, event: str = "PreToolUse") -> bytes:
    return json.dumps({
        "session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": str(cwd), "permission_mode": "default",
        "hook_event_name": event, "tool_name": "Bash", "tool_input": {"command": command},
    }).encode()  # fmt: skip


def _hook_in_process(args: list[str], data: bytes) -> bytes:
    from tokenlab.agent import claude_hook

    printed = io.StringIO()
    assert claude_hook.run(args, io.BytesIO(data), printed) == 0
    return printed.getvalue().encode()


@pytest.fixture
def hook_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project that allows `git status`, a home whose user settings allow `ls`, and no
    managed settings."""
    from tokenlab.agent import claude_permissions

    project, home = tmp_path / "project", tmp_path / "home"
    for folder, rule in ((project / ".claude", "Bash(git status)"), (home / ".claude", "Bash(ls:*)")):
        folder.mkdir(parents=True)
        (folder / "settings.json").write_text(json.dumps({"permissions": {"allow": [rule]}}))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.setattr(claude_permissions, "MANAGED_DIRS", (str(tmp_path / "managed"),))
    return project


HOOK_CASES = {
    "project-rule": (["git status"], []),
    "user-rule": (["ls -la"], []),
    "no-rule": (["rm -rf build"], []),
    "chain": (["git status && ls"], ["--exclude", "docker *"]),
    "read-only": (["git log -3"], ["--allow-read-only"]),
}


@pytest.mark.parametrize("case", HOOK_CASES.values(), ids=HOOK_CASES.keys())
def test_the_worker_answers_a_pre_tool_use_call_as_the_hook_does(
    serving: worker.Worker, hook_project: Path, monkeypatch: pytest.MonkeyPatch, case: tuple[list[str], list[str]]
) -> None:
    monkeypatch.setenv("TOKENLAB_STORE", serving.root)
    (command,), args = case
    data = _hook_call(command, hook_project)
    assert client.claude_hook(args, data) == _hook_in_process(args, data)
    for malformed in (b"{not json", b"[]", b""):
        assert client.claude_hook(args, malformed) == _hook_in_process(args, malformed) == b""


def test_the_worker_reads_settings_with_the_hook_process_environment(
    serving: worker.Worker, hook_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HOME and CLAUDE_CONFIG_DIR are the hook process's, not the worker's."""
    data = _hook_call("ls", hook_project)
    home = os.environ["HOME"]
    expected = _hook_in_process([], data)
    assert b"updatedInput" in expected  # the user's rule allows it
    header = {"op": "claude-hook", "store": serving.root, "args": [], "executable": sys.executable,
              "cwd": os.getcwd(), "env": {"HOME": home}}  # fmt: skip
    monkeypatch.setenv("HOME", str(tmp_path))  # the worker's own: no settings there
    assert _hook_in_process([], data) == b""
    assert serving.answer(header, data) == (wire.ANSWERED, 0, expected, b"")
    configured = {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": os.path.join(home, ".claude")}
    assert serving.answer({**header, "env": configured}, data) == (wire.ANSWERED, 0, expected, b"")


def test_the_worker_leaves_other_hook_calls_to_the_hook_process(
    serving: worker.Worker, hook_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A PostToolUse call, or a hook run by another Python or in another folder (its rewrite
    names its own Python; a relative path is another file), is answered in-process."""
    monkeypatch.setenv("TOKENLAB_STORE", serving.root)
    assert client.claude_hook([], _hook_call("ls", hook_project, "PostToolUse")) is None  # not even sent
    escaped = _hook_call("ls", hook_project, "PostToolUse").replace(b"PostToolUse", b"\\u0050ostToolUse")
    assert json.loads(escaped)["hook_event_name"] == "PostToolUse"
    assert client.claude_hook([], escaped) is None  # sent, and left to the hook
    data = _hook_call("git status", hook_project)
    header = {"op": "claude-hook", "store": serving.root, "args": [], "executable": sys.executable,
              "cwd": os.getcwd(), "env": {"HOME": os.environ["HOME"]}}  # fmt: skip
    assert serving.answer(header, data)[0] == wire.ANSWERED
    for other in ({"executable": "/usr/bin/python3"}, {"cwd": "/"}):
        assert serving.answer({**header, **other}, data) == (wire.FALLBACK, 0, b"", b"")


def test_a_hook_without_a_worker_answers_in_process_and_starts_none(
    short_store: str, hook_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[str] = []
    monkeypatch.setattr(client, "start_worker", started.append)
    monkeypatch.setenv("TOKENLAB_STORE", short_store)
    assert client.claude_hook([], _hook_call("git status", hook_project)) is None
    assert started == []


def test_a_hook_the_worker_answers_imports_neither_json_nor_re(serving: worker.Worker, hook_project: Path) -> None:
    """As installed (`<python> -S …/__main__.py hook claude-code`): the same answer as in-process,
    and none of the modules a warm run does without, nor `json` and `re`."""
    argv = [*python_argv()[:2], "-X", "importtime", *python_argv()[2:], "hook", "claude-code"]
    data = _hook_call("git status", hook_project)
    env = {**os.environ, "TOKENLAB_STORE": serving.root}
    served = subprocess.run(argv, input=data, capture_output=True, env={**env, "TOKENLAB_WORKER": "1"}, check=True)
    here = subprocess.run(argv, input=data, capture_output=True, env={**env, "TOKENLAB_WORKER": "0"}, check=True)
    assert b"updatedInput" in served.stdout and served.stdout == here.stdout
    lines = served.stderr.decode().splitlines()
    imported = {line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")}
    assert "tokenlab.agent.client" in imported
    assert imported & (NOT_FOR_A_WARM_RUN | {"tokenlab.agent.hooks"}) == set()


def test_a_hook_that_finds_no_worker_loads_no_socket(short_store: str, hook_project: Path) -> None:
    argv = [*python_argv()[:2], "-X", "importtime", *python_argv()[2:], "hook", "claude-code"]
    env = {**os.environ, "TOKENLAB_STORE": short_store, "TOKENLAB_WORKER": "1"}
    done = subprocess.run(argv, input=_hook_call("git status", hook_project), capture_output=True, env=env, check=True)
    assert b"updatedInput" in done.stdout
    imported = {line.rsplit("|", 1)[1].strip() for line in done.stderr.decode().splitlines() if "|" in line}
    assert "tokenlab.agent.client" in imported and not {"_socket", "tokenlab.agent.wire"} & imported
