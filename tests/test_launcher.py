"""How tokenlab names itself in the commands it writes: by absolute path, and recognised in either form."""

from __future__ import annotations

import shlex
import sys

import pytest

from tokenlab.agent.launcher import runs_tokenlab, tokenlab_args, tokens_argv, tokens_command


def test_tokenlab_is_named_by_this_pythons_absolute_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "executable", "/opt/my env/bin/python3")
    assert tokens_argv() == ["/opt/my env/bin/python3", "-m", "tokenlab"]
    command = tokens_command("run", "--shell", "make 'x'")
    assert command == "'/opt/my env/bin/python3' -m tokenlab run --shell 'make '\"'\"'x'\"'\"''"
    assert shlex.split(command) == ["/opt/my env/bin/python3", "-m", "tokenlab", "run", "--shell", "make 'x'"]


@pytest.mark.parametrize(
    ("argv", "args"),
    [
        (["tokens", "run", "--shell", "ls"], ["run", "--shell", "ls"]),
        (["/home/u/.venv/bin/tokens", "hook", "codex"], ["hook", "codex"]),
        (["/usr/bin/python3", "-m", "tokenlab", "hook", "gemini"], ["hook", "gemini"]),
    ],
)
def test_either_form_runs_tokenlab(argv: list[str], args: list[str]) -> None:
    assert runs_tokenlab(argv)
    assert tokenlab_args(argv) == args


@pytest.mark.parametrize(
    "argv",
    [[], ["python3", "-m", "pytest"], ["tokens.sh", "run"], ["python3", "tokenlab", "run"], ["mytokens"]],
)
def test_other_commands_do_not(argv: list[str]) -> None:
    assert not runs_tokenlab(argv)
