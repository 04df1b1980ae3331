"""`agent/run_here.py`: a silent run's answer and ledger row, without the pipeline, equal
the pipeline's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tokenlab import ledger
from tokenlab.agent.capture import Capture
from tokenlab.agent.run import finish_request
from tokenlab.agent.run_here import EMPTY_INPUT_TYPE, silent_answer
from tokenlab.classify import classify
from tokenlab.errors import InputError


def request(store: Path, **given: Any) -> dict[str, Any]:
    """A finished run as `client.run` describes it (`_run_header`)."""
    return {
        "op": "run",
        "store": str(store),
        "command": ["make", "install", "TOKEN=ghp_" + "a" * 36],
        "shell": None,
        "status": 0,
        "duration": 0.25,
        "timed_out": False,
        "killed": False,
        "cwd": "/work/project",
        "host": "claude-code",
        "opener": "tokens",
        "split": False,
        "timeout": None,
        "granularity": "coarse",
        "redact": True,
        "as_json": False,
        "trace": False,
    } | given


def capture(outputs: dict[str, bytes], status: int = 0) -> Capture:
    return Capture.of_bytes(outputs, status, 0.25)


def rows_but_time(store: Path) -> list[tuple[object, ...]]:
    return [row._replace(time=0.0) for row in ledger.records(store)]


@pytest.mark.parametrize(
    "given",
    [
        {},
        {"split": True},
        {"shell": "make install && echo '#ref:ctx_abcdef' >/dev/null", "command": []},
        {"command": ["x" * 300]},  # shown cut to 200 characters
    ],
)
def test_a_silent_run_answers_and_records_as_the_pipeline_does(tmp_path: Path, given: dict[str, Any]) -> None:
    streams = ("stdout", "stderr") if given.get("split") else ("output",)
    silent, analysed = tmp_path / "silent", tmp_path / "analysed"
    for _ in range(2):  # the second time, a re-run of the same call, printing the same
        quick = silent_answer(request(silent, **given), capture(dict.fromkeys(streams, b"")))
        code, out, err = finish_request(request(analysed, **given), capture(dict.fromkeys(streams, b"")))
        printed = out if isinstance(out, bytes) else out.getvalue()
        assert quick == (code, printed, err) == (0, b"", b"")
    assert rows_but_time(silent) == rows_but_time(analysed)
    assert [row.rerun for row in ledger.records(silent)] == [False, True]


def test_the_empty_input_type_is_the_pipelines() -> None:
    assert EMPTY_INPUT_TYPE == classify(b"").content_type.value


@pytest.mark.parametrize(
    ("outputs", "status", "given"),
    [
        ({"output": b"done\n"}, 0, {}),
        ({"output": b""}, 1, {}),  # a closing line is printed
        ({"stdout": b"", "stderr": b"warning\n"}, 0, {"split": True}),
        ({"output": b""}, 0, {"as_json": True}),
        ({"output": b""}, 0, {"trace": True}),
    ],
)
def test_any_other_run_is_left_to_the_pipeline(
    tmp_path: Path, outputs: dict[str, bytes], status: int, given: dict[str, Any]
) -> None:
    assert silent_answer(request(tmp_path, **given), capture(outputs, status)) is None
    assert not (tmp_path / ledger.LEDGER_NAME).exists()


def test_a_blank_shell_line_is_refused_as_by_the_pipeline(tmp_path: Path) -> None:
    blank = request(tmp_path, shell="  ", command=[])
    with pytest.raises(InputError) as quick:
        silent_answer(blank, capture({"output": b""}))
    with pytest.raises(InputError) as analysed:
        finish_request(blank, capture({"output": b""}))
    assert str(quick.value) == str(analysed.value)


def test_a_ledger_that_cannot_be_written_is_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ledger, "_warned", False)
    (tmp_path / ledger.LEDGER_NAME).mkdir()  # a folder where the database should be
    code, out, err = silent_answer(request(tmp_path), capture({"output": b""})) or (None, None, b"")
    assert (code, out) == (0, b"")
    named = tmp_path / ledger.LEDGER_NAME  # as `ledger_path` names it for the typer commands
    assert err.startswith(f"tokens: warning: savings ledger {named} not updated:".encode())


def test_a_silent_run_loads_neither_the_pipeline_nor_dataclasses(tmp_path: Path) -> None:
    code = (
        "import sys; from tokenlab.entry import run; "
        f"code = run(['run', '--store', {str(tmp_path)!r}, '--', 'true']); print(code, sorted(sys.modules))"
    )
    env = os.environ | {"TOKENLAB_WORKER": "0"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    assert done.stdout.startswith("0 ") and done.stderr == ""
    heavy = ("tokenlab.pipeline", "tokenlab.optimizers", "tokenlab.store", "tokenlab.counting.tokens", "dataclasses")
    assert [name for name in heavy if f"'{name}'" in done.stdout] == []
    assert len(ledger.records(tmp_path)) == 1
