"""The console entry: a plain `tokens analyze`, `run` or `show-ref` drill-down skips typer and
behaves exactly like it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from tokenlab.cli import app
from tokenlab.counting import tokens
from tokenlab.entry import (
    ANALYZE_OPTIONS,
    RUN_OPTIONS,
    SHOW_REF_OPTIONS,
    plain_analyze,
    plain_run,
    plain_show_ref,
    run,
)
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


def test_show_ref_fast_path_knows_exactly_the_typer_commands_options() -> None:
    command = typer.main.get_command(app).commands["show-ref"]  # type: ignore[attr-defined]
    options = {
        option: "flag" if parameter.is_flag else "int" if parameter.type.name == "integer" else "text"
        for parameter in command.params
        if parameter.param_type_name == "option"
        for option in parameter.opts
    }
    assert options == SHOW_REF_OPTIONS


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["show-ref", "ctx_abc123", "--grep", "ERROR", "-C", "2"], {"grep": "ERROR", "context": 2, "store": None}),
        (["show-ref", "--grep=a=b", "-C3", "ctx_abc123"], {"ref_id": "ctx_abc123", "grep": "a=b", "context": 3}),
        (["show-ref", "#ref:ctx_abc123", "--lines", "5-9", "--budget", "007"], {"lines": "5-9", "budget_tokens": 7}),
        (["show-ref", "x", "--json-path", "items[3].error", "--json"], {"json_path": "items[3].error", "as_json": True}),
        (["show-ref", "x", "--head", "5", "--raw", "--store", "s"], {"head": 5, "raw": True, "store": "s"}),
        (["show-ref", "x", "--tail", "0"], {"tail": 0, "head": None, "budget_tokens": None}),
        (["show-ref", "x", "--json"], {"as_json": True, "grep": None}),
        (["show-ref", "x", "-i"], {"ignore_case": True}),
        (["show-ref", "x", "-C", "1"], {"context": 1}),
    ],
)
def test_plain_show_ref_command_lines_are_parsed(argv: list[str], expected: dict[str, object]) -> None:
    parsed = plain_show_ref(argv)
    assert parsed is not None
    assert {key: parsed[key] for key in expected} == expected


@pytest.mark.parametrize(
    "argv",
    [
        ["show-ref"],
        ["show-ref", "x"],  # the whole ref: typer prints it
        ["show-ref", "x", "--raw"],
        ["show-ref", "x", "-C", "0"],
        ["show-ref", "x", "--store", "s"],
        ["show-ref", "--help"],
        ["show-ref", "x", "--head", "1", "--help"],
        ["show-ref", "x", "y", "--head", "1"],
        ["show-ref", "--head", "1"],
        ["show-ref", "x", "--head", "1", "--head", "2"],
        ["show-ref", "x", "--context", "1", "-C", "1"],
        ["show-ref", "x", "--head", "-1"],
        ["show-ref", "x", "--head", "+1"],
        ["show-ref", "x", "--head", " 1"],
        ["show-ref", "x", "--head", "\u0663"],
        ["show-ref", "x", "--head", "1.5"],
        ["show-ref", "x", "--head", "9" * 5000],
        ["show-ref", "x", "--head"],
        ["show-ref", "x", "--grep"],
        ["show-ref", "x", "--grep", ""],
        ["show-ref", "x", "--grep", "-v"],
        ["show-ref", "x", "--grep", "--json"],
        ["show-ref", "x", "--json=1"],
        ["show-ref", "x", "-C=2"],
        ["show-ref", "x", "-iC2", "--grep", "a"],
        ["show-ref", "x", "--ignore_case", "--grep", "a"],
        ["show-ref", "x", "--gre", "a"],
        ["show-ref", "x", "--", "--head", "1"],
        ["show-ref", "-", "--head", "1"],
        ["show-ref", "x", "--grep", "\udcff"],
        ["analyze", "x", "--head", "1"],
    ],
)
def test_other_show_ref_command_lines_go_to_the_typer_app(argv: list[str]) -> None:
    assert plain_show_ref(argv) is None


def test_show_ref_errors_are_typers_one_line_and_exit_code(
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """In-process (no worker), as the typer command; the worker's answers are compared in
    test_worker.py."""
    from tokenlab.store import open_store

    ref_id = open_store().put(LOG, source="app.log", content_type="log", reason="test")
    for argv, expected in (
        (["show-ref", ref_id, "--grep", "ERROR", "-C", "1"], 0),
        (["show-ref", ref_id, "--grep=ERROR", "-C2", "--budget", "007", "--lines=290-"], 0),
        (["show-ref", "--json", "--tail", "2", ref_id], 0),
        (["show-ref", ref_id, "--lines", "x-y"], 2),
        (["show-ref", "ctx_000000", "--head", "1"], 2),
        (["show-ref", ref_id, "--json-path", "a"], 2),
    ):
        code = run(argv)
        fast = capsysbinary.readouterr()
        typed = CliRunner().invoke(app, argv)
        assert (code, fast.out, fast.err) == (typed.exit_code, typed.stdout_bytes, typed.stderr_bytes)
        assert code == expected
        assert code == 0 or re.fullmatch(rb"tokens: [^\n]*\n", fast.err)


@pytest.mark.parametrize(
    ("command", "collects"),
    [
        (["analyze", "app.log"], False),  # one command, then exit: no cyclic collector
        (["run", "--", "true"], False),
        (["store", "stats"], True),  # the typer app's commands (servers among them) keep it
    ],
)
def test_a_one_shot_command_runs_without_the_cyclic_collector(
    tmp_path: Path, command: list[str], collects: bool
) -> None:
    (tmp_path / "app.log").write_bytes(LOG)
    code = (
        "import gc, os, sys\n"
        "from tokenlab import entry\n"
        "os._exit = lambda code: print(gc.isenabled(), code, file=sys.stderr)\n"
        f"sys.argv = ['tokens', *{command!r}]\n"
        "entry.main()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True)
    assert done.stderr.splitlines()[-1] == f"{collects} 0"
