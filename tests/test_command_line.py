"""How `tokens run` names a command (`agent/command_line.py`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tokenlab import ledger
from tokenlab.agent import command_line


def test_an_argument_that_is_not_utf8_is_named_by_its_bytes() -> None:
    argument = os.fsdecode(b"caf\xe9\xff")  # as the system hands Python such an argument
    _, line = command_line.of_args(["grep", argument])
    assert line == "grep 'caf\\xe9\\xff'"
    assert line.encode() == line.encode("utf-8")  # valid text, for the ledger and the store


@pytest.mark.parametrize("command", [["true"], ["echo"]], ids=["silent", "analysed"])
def test_a_run_with_an_argument_that_is_not_utf8_is_answered_and_recorded(
    tmp_path: Path, command: list[str]
) -> None:
    argv = [*command, os.fsdecode(b"caf\xe9")]
    code = (
        "import sys; from tokenlab.entry import run; "
        f"sys.exit(run(['run', '--store', {str(tmp_path)!r}, '--', *{argv!r}]))"
    )
    env = os.environ | {"TOKENLAB_WORKER": "0"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env)
    assert (done.returncode, done.stderr) == (0, b"")
    assert [row.source for row in ledger.records(tmp_path)] == [f"{command[0]} 'caf\\xe9'"]
