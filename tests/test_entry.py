"""The console entry: a plain `tokens analyze` skips typer and behaves exactly like it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from tokenlab import tokens
from tokenlab.cli import app
from tokenlab.entry import ANALYZE_OPTIONS, RUN_OPTIONS, plain_analyze, plain_run, run
from tokenlab.optimizers import Granularity

LOG = b"INFO request served\n" * 300 + b"ERROR PaymentService line 421\n" + b"INFO request served\n" * 9


@pytest.mark.parametrize(("name", "fast"), [("analyze", ANALYZE_OPTIONS), ("run", RUN_OPTIONS)])
def test_fast_path_knows_exactly_the_typer_commands_options(name: str, fast: dict[str, bool]) -> None:
    command = typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]
    options = {
        option: not parameter.is_flag
        for parameter in command.params
        if parameter.param_type_name == "option"
        for option in parameter.opts
    }
    assert options == fast


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["run", "--", "ls", "-l"], {"command": ["ls", "-l"], "shell": None, "timeout": None}),
        (["run", "ls", "--json"], {"command": ["ls", "--json"], "as_json": False}),
        (["run", "--shell", "a && b", "--timeout=2.5"], {"command": [], "shell": "a && b", "timeout": 2.5}),
        (["run", "--split", "--trace", "--no-redact", "--", "x"], {"split": True, "trace": True, "redact": False}),
    ],
)
def test_plain_run_command_lines_are_parsed(argv: list[str], expected: dict[str, object]) -> None:
    parsed = plain_run(argv)
    assert parsed is not None
    assert {key: parsed[key] for key in expected} == expected


@pytest.mark.parametrize(
    "argv",
    [
        ["run"],
        ["run", "--shell", "x", "--", "y"],
        ["run", "--timeout", "0", "--", "x"],
        ["run", "--timeout", "soon", "--", "x"],
        ["run", "--unknown", "--", "x"],
        ["run", "--help"],
        ["run", "--json", "--json", "--", "x"],
        ["run", "--granularity", "medium", "--", "x"],
    ],
)
def test_other_run_command_lines_go_to_the_typer_app(argv: list[str]) -> None:
    assert plain_run(argv) is None


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["analyze", "x.log"], {"source": "x.log", "granularity": Granularity.COARSE, "as_json": False}),
        (["analyze", "--json", "-", "--granularity=fine"], {"source": "-", "granularity": Granularity.FINE}),
        (["analyze", "x", "--store", "s", "--no-redact"], {"store": "s", "redact": False}),
        (["analyze", "x", "--signals=sig"], {"signals": "sig", "redact": True}),
    ],
)
def test_plain_command_lines_are_parsed(argv: list[str], expected: dict[str, object]) -> None:
    parsed = plain_analyze(argv)
    assert parsed is not None
    assert {key: parsed[key] for key in expected} == expected


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--help"],
        ["analyze"],
        ["analyze", "--help"],
        ["analyze", "a", "b"],
        ["analyze", "a", "--json", "--json"],
        ["analyze", "a", "--store"],
        ["analyze", "a", "--store", "--json"],
        ["analyze", "a", "--granularity", "bogus"],
        ["analyze", "a", "--no-redact=yes"],
        ["analyze", "-x"],
        ["analyze", "a", "--"],
        ["show-ref", "ctx_abcdef"],
    ],
)
def test_anything_else_goes_to_typer(argv: list[str]) -> None:
    assert plain_analyze(argv) is None


@pytest.mark.parametrize(
    "options", [[], ["--json"], ["--granularity", "fine", "--no-redact"], ["--signals", "missing.signals"]]
)
def test_fast_path_output_equals_typers(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes], options: list[str]
) -> None:
    source = tmp_path / "app.log"
    source.write_bytes(LOG)
    argv = ["analyze", str(source), *options]
    assert plain_analyze(argv) is not None
    code = run(argv)
    fast = capsysbinary.readouterr()
    typed = CliRunner().invoke(app, argv)
    assert (code, fast.out, fast.err.decode()) == (typed.exit_code, typed.stdout_bytes, typed.stderr)


def test_analyze_reads_the_vocabulary_while_it_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    source = tmp_path / "app.log"
    source.write_bytes(LOG)
    prefetched: list[bool] = []
    monkeypatch.setattr(tokens, "prefetch_vocabulary", lambda: prefetched.append(True))
    assert run(["analyze", str(source), "--store", str(tmp_path / "store")]) == 0
    assert prefetched == [True]


def test_errors_are_one_line_with_typers_exit_code(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = ["analyze", str(tmp_path / "missing.log")]
    code = run(argv)
    typed = CliRunner().invoke(app, argv)
    assert (code, capsys.readouterr().err) == (typed.exit_code, typed.stderr) == (2, typed.stderr)
    assert re.fullmatch(r"tokens: .*missing\.log.*\n", typed.stderr)


def test_the_installed_command_exits_with_the_commands_code(tmp_path: Path) -> None:
    source = tmp_path / "app.log"
    source.write_bytes(LOG)
    ran = subprocess.run(
        [sys.executable, "-m", "tokenlab", "analyze", str(source)], capture_output=True, check=False
    )
    assert ran.returncode == 0
    assert b"ERROR PaymentService line 421" in ran.stdout
    assert b"RECOVERY" in ran.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "tokenlab", "analyze", str(tmp_path / "nope")],
        capture_output=True,
        check=False,
    )
    assert (missing.returncode, missing.stdout) == (2, b"")


def test_granularity_values_match_the_enum() -> None:
    from tokenlab.entry import GRANULARITIES
    from tokenlab.optimizers import Granularity

    assert GRANULARITIES == tuple(g.value for g in Granularity)
