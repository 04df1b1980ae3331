"""How tokenlab names itself in the commands it writes: by absolute path, and recognised in either form."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tokenlab
from tokenlab.agent.launcher import (
    module_command,
    opener,
    python_argv,
    runs_tokenlab,
    shell_quote,
    tokenlab_args,
    tokens_argv,
    tokens_command,
)

ENTRY_FILE = str(Path(tokenlab.__file__).with_name("__main__.py"))


def test_tokenlab_is_named_by_this_pythons_absolute_path_and_its_entry_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "executable", "/opt/my env/bin/python3")
    assert tokens_argv() == ["/opt/my env/bin/python3", "-S", ENTRY_FILE]
    command = tokens_command("run", "--shell", "make 'x'")
    assert shlex.split(command) == ["/opt/my env/bin/python3", "-S", ENTRY_FILE, "run", "--shell", "make 'x'"]
    assert module_command() == "'/opt/my env/bin/python3' -m tokenlab"


@settings(max_examples=500, deadline=None)
@given(st.text(st.sampled_from("aZ9_@%+=:,./- '\"$\\\n\té\udcff*;&|`!~#"), max_size=12) | st.text(max_size=8))
def test_words_are_quoted_as_shlex_quotes_them(word: str) -> None:
    assert shell_quote(word) == shlex.quote(word)


@pytest.mark.parametrize(
    ("argv", "args"),
    [
        (["tokens", "run", "--shell", "ls"], ["run", "--shell", "ls"]),
        (["/home/u/.venv/bin/tokens", "hook", "codex"], ["hook", "codex"]),
        (["/usr/bin/python3", "-m", "tokenlab", "hook", "gemini"], ["hook", "gemini"]),
        (["/usr/bin/python3", "-S", "/srv/app/tokenlab/__main__.py", "run", "--", "ls"], ["run", "--", "ls"]),
    ],
)
def test_either_form_runs_tokenlab(argv: list[str], args: list[str]) -> None:
    assert runs_tokenlab(argv)
    assert tokenlab_args(argv) == args


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["python3", "-m", "pytest"],
        ["tokens.sh", "run"],
        ["python3", "tokenlab", "run"],
        ["mytokens"],
        ["python3", "-S", "/srv/app/other/__main__.py", "run"],
        ["python3", "/srv/app/tokenlab/__main__.py", "run"],
    ],
)
def test_other_commands_do_not(argv: list[str]) -> None:
    assert not runs_tokenlab(argv)


def test_the_hint_names_tokens_only_where_the_path_finds_it(tmp_path: Path) -> None:
    with_tokens = tmp_path / "bin"
    with_tokens.mkdir()
    (with_tokens / "tokens").write_text("#!/bin/sh\n")
    (with_tokens / "tokens").chmod(0o755)
    assert opener(f"/nonexistent:{with_tokens}") == "tokens"
    without = opener(str(tmp_path))
    assert without == module_command() and shlex.split(without) == [sys.executable, "-m", "tokenlab"]


def launched(*args: str, stdin: bytes = b"", cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """`<python> -S <entry file> ARGS…` as a host runs it, with the imports it made listed on stderr."""
    argv = [*python_argv()[:2], "-X", "importtime", *python_argv()[2:], *args]
    return subprocess.run(argv, input=stdin, capture_output=True, cwd=cwd, check=False)


def imported(stderr: bytes) -> set[str]:
    lines = stderr.decode().splitlines()
    return {line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")}


def test_the_launcher_answers_a_pretooluse_rewrite_without_site(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash(git status)"]}}))
    call = {
        "hook_event_name": "PreToolUse",
        "permission_mode": "default",
        "cwd": str(tmp_path),
        "tool_name": "Bash",
        "tool_input": {"command": "git status"},
    }
    done = launched("hook", "claude-code", stdin=json.dumps(call).encode(), cwd=tmp_path)
    assert done.returncode == 0
    rewritten = json.loads(done.stdout)["hookSpecificOutput"]["updatedInput"]["command"]
    assert shlex.split(rewritten) == [*tokens_argv(), "run", "--shell", "git status"]
    assert "site" not in imported(done.stderr)
    assert "dataclasses" not in imported(done.stderr)
    # pathlib brings urllib.parse and ipaddress: the settings are read with os.path alone
    assert "pathlib" not in imported(done.stderr)


def test_a_run_that_prints_nothing_needs_no_site(tmp_path: Path) -> None:
    """It is answered and recorded without the pipeline (`run_here.silent_answer`), from
    the standard library and tokenlab alone."""
    done = launched("run", "--", "true", cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout == b""
    assert "site" not in imported(done.stderr) and "tokenlab.ledger" in imported(done.stderr)


def test_the_launcher_sets_up_site_for_a_command_that_needs_it(tmp_path: Path) -> None:
    done = launched("hook", "--help", cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert b"Usage: tokens hook" in done.stdout
    assert {"site", "typer"} <= imported(done.stderr)



def test_the_hint_does_not_name_a_tokens_that_cannot_run(tmp_path: Path) -> None:
    """As `shutil.which`: a file without the execute bit, or a folder, named `tokens` is not it."""
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "tokens").write_text("#!/bin/sh\n")
    (tmp_path / "folder" / "tokens").mkdir(parents=True)
    assert opener(f"{tmp_path / 'plain'}:{tmp_path / 'folder'}") == module_command()


def test_a_run_answered_by_the_worker_imports_neither_shutil_nor_pathlib() -> None:
    code = (
        "import sys; from tokenlab.agent.launcher import opener; from tokenlab.agent.host_env import host_of; "
        "opener(); host_of({}); print(sorted(sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(tokenlab.__file__).parent.parent)}
    done = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True, env=env)
    assert "'shutil'" not in done.stdout and "'pathlib'" not in done.stdout
