"""`tokens gain`: totals and tables from the ledger agree with each run's `--json`."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tokenlab import ledger, tallies
from tokenlab.cli import app
from tokenlab.ledger import Kind, Record

runner = CliRunner()
LOG = (
    b"".join(b"INFO worker %d finished job in %d ms\n" % (i % 5, i) for i in range(800))
    + b"ERROR disk full\n"
)


def gain(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["gain", "--json", *args])
    assert result.exit_code == 0, result.output
    payload: dict[str, Any] = json.loads(result.stdout)
    return payload


def test_totals_agree_with_the_json_of_each_run(tmp_path: Path) -> None:
    log = tmp_path / "build.log"
    log.write_bytes(LOG)
    analyzed = json.loads(runner.invoke(app, ["analyze", str(log), "--json"]).stdout)
    child = f"import sys; sys.stdout.buffer.write(open({str(log)!r}, 'rb').read()); sys.exit(1)"
    ran = runner.invoke(app, ["run", "--json", "--", sys.executable, "-c", child])
    assert ran.exit_code == 1
    run_payload = json.loads(ran.stdout)
    payload = gain()
    totals = payload["totals"]
    assert isinstance(totals, dict)
    raw = analyzed["raw"]["tokens"] + run_payload["raw"]["tokens"]
    shown = analyzed["visible"]["tokens"] + run_payload["visible"]["tokens"]
    assert (totals["runs"], totals["raw_tokens"], totals["visible_tokens"]) == (2, raw, shown)
    assert totals["saved_tokens"] == raw - shown
    rows = {row["key"]: row for row in payload["rows"]}
    assert rows["analyze FILE"]["visible_tokens"] == analyzed["visible"]["tokens"]
    assert rows[tallies.command_key(run_payload["command"])]["raw_tokens"] == run_payload["raw"]["tokens"]


def test_since_and_by(isolated_store: Path) -> None:
    now = time.time()
    for age_days, source, kind, ctype in (
        (10, "make test", Kind.RUN, "log"),
        (1, "git diff", Kind.RUN, "diff"),
    ):
        at = now - age_days * 86400
        ledger.record(isolated_store, Record(at, kind, source, ctype, 400, 100, 20, 1, exit_status=0))
    assert gain()["totals"]["runs"] == 2
    recent = gain("--since", "7d")
    assert [row["key"] for row in recent["rows"]] == ["git diff"]
    by_type = gain("--by", "type")
    assert {row["key"] for row in by_type["rows"]} == {"log", "diff"}
    by_day = gain("--by", "day")
    days = [row["key"] for row in by_day["rows"]]
    assert days == sorted(days) and len(days) == 2


def test_proxy_rows_by_model_and_by_tool(isolated_store: Path) -> None:
    now = time.time()
    for source, model, raw in (("Bash", "claude-x", 900), ("Read", "claude-x", 700), ("shell", "gpt-y", 500)):
        row = Record(
            now, Kind.PROXY, source, "log", raw * 4, raw, 100, 1, host="proxy", event="e", model=model
        )
        ledger.record(isolated_store, row)
    by_model = {row["key"]: row["raw_tokens"] for row in gain("--by", "model")["rows"]}
    assert by_model == {"claude-x": 1600, "gpt-y": 500}
    by_tool = {row["key"]: row["runs"] for row in gain("--by", "tool")["rows"]}
    assert by_tool == {"Bash": 1, "Read": 1, "shell": 1}
    assert {row["key"] for row in gain()["rows"]} == {"proxy Bash", "proxy Read", "proxy shell"}


def test_table_has_a_bar_per_row_scaled_to_the_largest(isolated_store: Path) -> None:
    ledger.record(isolated_store, Record(time.time(), Kind.RUN, "pytest", "log", 4000, 1000, 100, 1))
    ledger.record(isolated_store, Record(time.time(), Kind.RUN, "git log", "gitlog", 2000, 500, 50, 1))
    result = runner.invoke(app, ["gain"])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == "2 runs in all: 1,500 tokens in, 150 shown, 1,350 saved (90.0%)"
    pytest_row = next(line for line in lines if line.startswith("pytest"))
    git_row = next(line for line in lines if line.startswith("git log"))
    assert pytest_row.endswith("█" * 24)
    assert git_row.endswith("█" * 12)


def test_hook_rows_report_against_the_host_too(isolated_store: Path) -> None:
    now = time.time()
    ledger.record(isolated_store, Record(now, Kind.RUN, "make test", "log", 4000, 1000, 100, 1))
    for source, raw, shown, host in (
        ("sh build.sh", 46_000, 130, 700),
        ("Read /p/app.log", 58_000, 350, 39_000),
    ):
        ledger.record(
            isolated_store, Record(now, Kind.HOOK, source, "log", raw * 3, raw, shown, 2, host_tokens=host)
        )
    payload = gain()
    assert payload["against_host"] == {
        "runs": 2,
        "raw_tokens": 104_000,
        "visible_tokens": 480,
        "host_tokens": 39_700,
        "saved_vs_host_tokens": 39_220,
    }
    assert {row["key"] for row in payload["rows"]} == {"make test", "sh", "Read FILE"}
    text = runner.invoke(app, ["gain"]).stdout.splitlines()
    assert text[1] == (
        "2 tool outputs replaced by agent hooks: 480 tokens shown where the agents "
        "would have shown 39,700 (104,000 raw)"
    )


def test_repeated_calls_and_opened_refs_make_the_refetch_rate(isolated_store: Path) -> None:
    now = time.time()
    for rerun in (False, True, False, False):
        ledger.record(isolated_store, Record(now, Kind.RUN, "make test", "log", 4000, 1000, 100, 1, rerun=rerun))
    ledger.note_ref_open(isolated_store, "ctx_0123456789abcdef", "claude-code")
    payload = gain()
    assert payload["refetch"] == {"outputs": 4, "reruns": 1, "ref_opens": 1, "refetch_rate": 0.5}
    assert payload["totals"]["runs"] == 4  # an opened ref is not a run
    text = runner.invoke(app, ["gain"]).stdout.splitlines()
    assert text[1] == "re-fetch rate 50.0%: 1 runs or tool calls repeated within 5 minutes, 1 refs opened"


def test_an_empty_ledger() -> None:
    result = runner.invoke(app, ["gain"])
    assert result.exit_code == 0
    assert result.stdout.startswith("0 runs in all: 0 tokens in")


@pytest.mark.parametrize("args", [["--since", "yesterday"], ["--by", "user"]])
def test_bad_options_exit_2(args: list[str]) -> None:
    result = runner.invoke(app, ["gain", *args])
    assert result.exit_code == 2
    assert result.stderr.startswith("tokens: ")
