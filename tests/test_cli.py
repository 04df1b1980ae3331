"""The CLI edge: stdout/stderr separation, exit codes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tokenlab import ledger
from tokenlab.cli import app
from tokenlab.store import open_store

runner = CliRunner()
LOG = b"INFO request served\n" * 400 + b"ERROR PaymentService line 421\n" + b"INFO request served\n" * 10


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_analyze_stdout_is_visible_text_and_stderr_the_trace(tmp_path: Path) -> None:
    result = runner.invoke(app, ["analyze", str(write(tmp_path / "app.log", LOG))])
    assert result.exit_code == 0
    assert "ERROR PaymentService line 421" in result.stdout
    assert "LOAD" not in result.stdout
    stages = [line.split()[0] for line in result.stderr.splitlines()]
    assert stages == ["LOAD", "CLASSIFY", "MEASURE_RAW", "OPTIMIZE", "MEASURE_OPT", "SIGNAL", "RECOVERY"]


def test_analyze_reads_stdin_and_restore_round_trips(tmp_path: Path) -> None:
    analyzed = runner.invoke(app, ["analyze", "-"], input=LOG)
    assert analyzed.exit_code == 0
    restored = runner.invoke(app, ["restore", "-"], input=analyzed.stdout_bytes)
    assert restored.exit_code == 0
    assert restored.stdout_bytes == LOG


def test_json_output_shape(tmp_path: Path) -> None:
    result = runner.invoke(app, ["analyze", str(write(tmp_path / "app.log", LOG)), "--json"])
    payload = json.loads(result.stdout)
    assert set(payload) >= {
        "source", "type", "raw", "visible", "marker_tokens", "referenced_tokens",
        "saved_pct", "refs", "signal", "recovery", "trace",
    }  # fmt: skip
    assert set(payload["raw"]) == {"bytes", "tokens", "est_tokens"}
    assert set(payload["visible"]) == {"text", "bytes", "tokens"}
    assert payload["recovery"]["status"] == "PASS"
    assert all(set(ref) == {"id", "reason", "bytes"} for ref in payload["refs"])


def test_signals_sidecar_is_used_and_a_missing_signal_exits_1(tmp_path: Path) -> None:
    log = write(tmp_path / "app.log", LOG)
    write(tmp_path / "app.log.signals", b"ERROR PaymentService line 421\n")
    assert runner.invoke(app, ["analyze", str(log)]).exit_code == 0
    missing = write(tmp_path / "other.signals", b"this string is not in the log\n")
    result = runner.invoke(app, ["analyze", str(log), "--signals", str(missing)])
    assert result.exit_code == 1
    assert "SIGNAL       FAIL" in result.stderr


def test_show_ref_header_and_raw(tmp_path: Path) -> None:
    result = runner.invoke(app, ["analyze", str(write(tmp_path / "app.log", LOG)), "--json"])
    ref = json.loads(result.stdout)["refs"][0]
    shown = runner.invoke(app, ["show-ref", "#ref:" + ref["id"]])
    assert shown.exit_code == 0
    assert shown.stdout.startswith(f"ref:    {ref['id']}\nsource: ")
    raw = runner.invoke(app, ["show-ref", ref["id"], "--raw"])
    assert len(raw.stdout_bytes) == ref["bytes"]


def test_an_opened_ref_is_counted_in_the_ledger(tmp_path: Path, isolated_store: Path) -> None:
    result = runner.invoke(app, ["analyze", str(write(tmp_path / "app.log", LOG)), "--json"])
    ref = json.loads(result.stdout)["refs"][0]
    assert runner.invoke(app, ["show-ref", ref["id"]]).exit_code == 0
    assert runner.invoke(app, ["show-ref", "ctx_0000000000000000"]).exit_code != 0  # no such ref: not counted
    opened = [row for row in ledger.records(isolated_store) if row.kind is ledger.Kind.REF]
    assert [row.source for row in opened] == [ref["id"]]


def test_bad_input_is_one_line_exit_2(tmp_path: Path) -> None:
    for args in (
        ["analyze", str(tmp_path / "missing.log")],
        ["show-ref", "not-an-id"],
        ["show-ref", "ctx_abcdef"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, args
        assert len(result.stderr.strip().splitlines()) == 1
        assert "Traceback" not in result.stderr


def test_corrupt_ref_makes_show_ref_and_restore_exit_1(tmp_path: Path) -> None:
    result = runner.invoke(app, ["analyze", str(write(tmp_path / "app.log", LOG)), "--json"])
    payload = json.loads(result.stdout)
    original = payload["refs"][-1]["id"]
    path = open_store().ref_path(original)
    damaged = bytearray(path.read_bytes())
    damaged[-10] ^= 0xFF
    path.write_bytes(bytes(damaged))
    shown = runner.invoke(app, ["show-ref", original])
    assert shown.exit_code == 1 and original in shown.stderr
    restored = runner.invoke(app, ["restore", "-"], input=payload["visible"]["text"])
    assert restored.exit_code == 1 and original in restored.stderr
    assert restored.stdout_bytes == b""


def test_store_option_and_env(tmp_path: Path) -> None:
    log = write(tmp_path / "app.log", LOG)
    elsewhere = tmp_path / "elsewhere"
    result = runner.invoke(app, ["analyze", str(log), "--store", str(elsewhere)])
    assert result.exit_code == 0
    assert (elsewhere / "v1" / "refs").is_dir()
    assert (
        runner.invoke(app, ["restore", "-", "--store", str(elsewhere)], input=result.stdout).stdout_bytes
        == LOG
    )


def test_store_commands(tmp_path: Path) -> None:
    runner.invoke(app, ["analyze", str(write(tmp_path / "app.log", LOG))])
    stats = runner.invoke(app, ["store", "stats", "--json"])
    assert json.loads(stats.stdout)["refs"] >= 2
    assert runner.invoke(app, ["store", "verify"]).exit_code == 0
    dry = runner.invoke(app, ["store", "gc", "--older-than", "0", "--dry-run"])
    assert "would remove" in dry.stdout
    assert json.loads(runner.invoke(app, ["store", "stats", "--json"]).stdout)["refs"] >= 2
    runner.invoke(app, ["store", "gc", "--older-than", "0"])
    assert json.loads(runner.invoke(app, ["store", "stats", "--json"]).stdout)["refs"] == 0


def test_benchmark_runs_any_folder(tmp_path: Path) -> None:
    folder = tmp_path / "fx"
    folder.mkdir()
    write(folder / "a.log", LOG)
    write(folder / "a.log.signals", b"ERROR PaymentService line 421\n")
    write(folder / "b.bin", bytes(range(256)) * 10)
    result = runner.invoke(app, ["benchmark", "--fixtures", str(folder)])
    assert result.exit_code == 0, result.stdout
    assert "a.log [fine]" in result.stdout
    write(folder / "b.bin.signals", b"not there\n")
    assert runner.invoke(app, ["benchmark", "--fixtures", str(folder)]).exit_code == 1


def test_benchmark_reads_a_questions_file_as_a_sidecar_not_a_capture(tmp_path: Path) -> None:
    folder = tmp_path / "fx"
    folder.mkdir()
    write(folder / "a.log", LOG)
    write(folder / "a.log.questions.md", b"- **Q:** What failed?\n  **A:** PaymentService.\n")
    result = runner.invoke(app, ["benchmark", "--fixtures", str(folder)])
    assert result.exit_code == 0, result.stdout
    assert "questions" not in result.stdout


def test_show_ref_drill_down_prints_text_and_a_header_line(tmp_path: Path) -> None:
    ref_id = open_store().put(LOG, source="t", content_type="log", reason="test")
    lines = runner.invoke(app, ["show-ref", ref_id, "--lines", "400-401"])
    assert lines.exit_code == 0
    assert lines.stdout == "INFO request served\nERROR PaymentService line 421\n"
    assert lines.stderr.strip() == f"{ref_id}: L400-L401 of 411 lines; 11/4,000 tokens"
    grep = runner.invoke(app, ["show-ref", ref_id, "--grep", "Payment", "-C", "1"])
    assert grep.stdout.splitlines()[1] == "L401: ERROR PaymentService line 421"
    assert "1 matching line, 1 shown" in grep.stderr
    cut = runner.invoke(app, ["show-ref", ref_id, "--grep", "INFO", "--budget", "30"])
    assert cut.exit_code == 0 and "truncated; more: --grep INFO --lines" in cut.stderr
    tail = runner.invoke(app, ["show-ref", ref_id, "--tail", "1", "--raw"])
    assert tail.stdout_bytes == b"INFO request served\n" and tail.stderr == ""


def test_show_ref_json_output_and_json_path(tmp_path: Path) -> None:
    ref_id = open_store().put(
        b'{"items": [{"error": "boom"}]}', source="t", content_type="json", reason="t"
    )
    shown = runner.invoke(app, ["show-ref", ref_id, "--json-path", "items[0].error", "--json"])
    payload = json.loads(shown.stdout)
    assert payload["text"] == '"boom"' and payload["ranges"] == [[1, 1]]
    assert payload["json_path"] == "$.items[0].error"
    assert set(payload) >= {"id", "total_lines", "total_bytes", "tokens", "truncated", "next"}


def test_show_ref_drill_down_errors_are_one_line_exit_2(tmp_path: Path) -> None:
    ref_id = open_store().put(LOG, source="t", content_type="log", reason="test")
    for args in (
        ["--grep", "(("],
        ["--lines", "9-1"],
        ["--lines", "5000"],
        ["--json-path", "a.b"],
        ["--head", "0"],
        ["--head", "1", "--tail", "1"],
        ["--grep", "x", "--raw"],
        ["--budget", "-1"],
    ):
        result = runner.invoke(app, ["show-ref", ref_id, *args])
        assert result.exit_code == 2, args
        assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == "", args
    assert runner.invoke(app, ["show-ref", "ctx_abcdef", "--head", "1"]).exit_code == 2


@pytest.mark.parametrize(
    "args", [["--listen", "localhost"], ["--listen", "127.0.0.1:99999"], ["--upstream-openai", "ftp://x"]]
)
def test_proxy_bad_options_exit_2(args: list[str]) -> None:
    result = runner.invoke(app, ["proxy", *args])
    assert result.exit_code == 2
    assert result.stderr.startswith("tokens: ")
