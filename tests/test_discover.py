"""`tokens discover` on transcripts written in Claude Code's documented JSONL format."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tokenlab.agent.discover import default_location, discover, result_text
from tokenlab.cli import app

runner = CliRunner()
PYTEST_OUTPUT = (
    "".join(f"tests/test_mod{i % 9}.py::test_case_{i} PASSED\n" for i in range(600))
    + "FAILED tests/test_pay.py::test_refund - AssertionError: 3 != 4\n1 failed, 599 passed in 12.31s\n"
)
LISTING = "".join(f"src/pkg{i % 7}/module_{i}.py\n" for i in range(400))
READ_BLOCKS = [
    {"type": "text", "text": "     1→import os\n     2→print(os.getcwd())"},
    {"type": "image", "source": {}},
]


def entry(kind: str, content: Any, uuid: str) -> dict[str, Any]:
    return {
        "parentUuid": None,
        "isSidechain": False,
        "type": kind,
        "sessionId": "4f35e220-c435-4cf7-b9b9-f40426042847",
        "uuid": uuid,
        "timestamp": "2025-05-26T07:27:40.079Z",
        "message": {"role": kind, "content": content},
    }


def call(use_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return entry(
        "assistant",
        [
            {"type": "text", "text": "Running it."},
            {"type": "tool_use", "id": use_id, "name": name, "input": arguments},
        ],
        use_id + "-a",
    )


def answer(use_id: str, content: Any, is_error: bool = False) -> dict[str, Any]:
    block = {"type": "tool_result", "tool_use_id": use_id, "content": content, "is_error": is_error}
    return entry("user", [block], use_id + "-u")


def write(path: Path, entries: list[dict[str, Any]], extra_lines: tuple[str, ...] = ()) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(e) for e in entries] + list(extra_lines)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def projects(tmp_path: Path) -> Path:
    root = tmp_path / "projects"
    session = [
        {"type": "summary", "summary": "Fix the refund test", "leafUuid": "x"},
        entry("user", "Please fix the failing test", "u0"),
        call("toolu_1", "Bash", {"command": "cd /repo && python -m pytest -q", "description": "run tests"}),
        answer("toolu_1", PYTEST_OUTPUT, is_error=True),
        call("toolu_2", "Bash", {"command": "git ls-files"}),
        answer("toolu_2", LISTING),
        call("toolu_3", "Read", {"file_path": "/repo/main.py"}),
        answer("toolu_3", READ_BLOCKS),
    ]
    write(root / "-repo" / "a1.jsonl", session, extra_lines=("not json {",))
    resumed = [
        session[2],
        session[3],
        call("toolu_4", "Grep", {"pattern": "refund"}),
        answer("toolu_4", "src/pay.py:3: refund"),
    ]
    write(root / "-repo" / "b2.jsonl", resumed)  # repeats toolu_1, which counts once
    return root


def analyzed(tmp_path: Path, name: str, text: str, *options: str) -> dict[str, Any]:
    path = tmp_path / name
    path.write_bytes(text.encode())
    payload: dict[str, Any] = json.loads(
        runner.invoke(app, ["analyze", str(path), "--json", *options]).stdout
    )
    return payload


def test_figures_agree_with_analyze_json(projects: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["discover", str(projects), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["transcripts"], report["tool_results"], report["skipped_lines"]) == (2, 4, 1)
    expected = {
        "Bash": [
            analyzed(tmp_path, "a", PYTEST_OUTPUT, "--granularity", "fine"),
            analyzed(tmp_path, "b", LISTING),
        ],
        "Read": [analyzed(tmp_path, "c", result_text(READ_BLOCKS))],
        "Grep": [analyzed(tmp_path, "d", "src/pay.py:3: refund")],
    }
    by_tool = {row["key"]: row for row in report["by_tool"]}
    for tool, payloads in expected.items():
        assert by_tool[tool]["runs"] == len(payloads)
        assert by_tool[tool]["raw_tokens"] == sum(p["raw"]["tokens"] for p in payloads)
        assert by_tool[tool]["visible_tokens"] == sum(p["visible"]["tokens"] for p in payloads)
    every = [p for payloads in expected.values() for p in payloads]
    assert report["totals"]["saved_tokens"] == sum(p["raw"]["tokens"] - p["visible"]["tokens"] for p in every)
    by_command = {row["key"]: row for row in report["by_command"]}
    assert set(by_command) == {"python -m pytest", "git ls-files"}
    assert by_command["git ls-files"]["raw_tokens"] == expected["Bash"][1]["raw"]["tokens"]
    assert by_command["python -m pytest"]["saved_tokens"] > 0


def test_nothing_is_stored(projects: Path, isolated_store: Path) -> None:
    report = discover(projects)
    assert report.totals.runs == 4
    assert not isolated_store.exists()  # no refs, no ledger


def test_one_file_and_the_plain_report(projects: Path) -> None:
    result = runner.invoke(app, ["discover", str(projects / "-repo" / "b2.jsonl")])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("1 transcripts, 2 tool results: ")
    assert any(line.startswith("python -m pytest") for line in lines)


def test_default_location_follows_claude_config_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "conf"))
    assert default_location() == tmp_path / "conf" / "projects"
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_location() == tmp_path / ".claude" / "projects"


def test_a_missing_path_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["discover", str(tmp_path / "nowhere")])
    assert result.exit_code == 2
    assert result.stderr.startswith("tokens: no Claude Code transcripts at ")


def test_a_capped_output_is_measured_whole_against_what_the_host_showed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    projects = default_location()
    whole = PYTEST_OUTPUT * 8
    saved = projects / "-p" / "session" / "tool-results" / "out.txt"
    outside = tmp_path / "tool-results" / "secret.txt"  # named by the text, but not Claude Code's
    for path in (saved, outside):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(whole)

    def notice(path: Path) -> str:
        return (
            f"<persisted-output>\nOutput too large (310.2KB). Full output saved to: {path}\n\n"
            f"Preview (first 2KB):\n{whole[:2048]}\n...\n</persisted-output>"
        )

    transcript = write(
        projects / "-p" / "session.jsonl",
        [call("t1", "Bash", {"command": "pytest"}), answer("t1", notice(saved)),
         call("t2", "Bash", {"command": "pytest -q"}), answer("t2", notice(outside))],
    )  # fmt: skip
    first, second = discover(transcript).findings
    assert first.raw_tokens > 10 * first.host_tokens  # the whole output, not the preview
    assert first.host_tokens < 1_000 and first.visible_tokens < first.host_tokens
    assert second.raw_tokens == second.host_tokens < 1_000  # the other file was not read
    payload = json.loads(runner.invoke(app, ["discover", str(transcript), "--json"]).stdout)
    assert payload["against_host"]["host_tokens"] == first.host_tokens + second.host_tokens
