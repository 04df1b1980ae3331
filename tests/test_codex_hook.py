"""The Codex hook's entry (`tokens hook codex`): answers, the MCP replacement, never failing closed."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tokenlab import ledger
from tokenlab.agent import codex_hook, codex_rules
from tokenlab.agent.codex_rewrite import wrapper
from tokenlab.agent.launcher import tokens_argv
from tokenlab.counting.tokens import count

SERVICE_LOG = "".join(
    f"12:{i // 60:02d}:{i % 60:02d} INFO replica in sync, lag {i % 7} ms\n" for i in range(900)
)
SERVICE_LOG = SERVICE_LOG.replace(
    "12:07:00 INFO replica in sync, lag 0 ms", "12:07:00 ERROR replica fell behind"
)


@pytest.fixture(autouse=True)
def codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "codex-home"
    monkeypatch.setenv("CODEX_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setattr(codex_rules, "SYSTEM_DIR", tmp_path / "etc-codex")
    return home


def answer(data: object, cwd: Path | None = None) -> dict[str, Any] | None:
    out = io.StringIO()
    assert codex_hook.run(["--any", "extra"], io.BytesIO(json.dumps(data).encode()), out) == 0
    return json.loads(out.getvalue()) if out.getvalue() else None


def pre(command: str, cwd: Path) -> dict[str, Any]:
    return {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "cwd": str(cwd),
    }


def mcp(text: str, *, structured: bool = True, error: bool = False) -> dict[str, Any]:
    response: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": error}
    if structured:
        response["structuredContent"] = {"result": text}
    return {
        "hook_event_name": "PostToolUse",
        "tool_name": "mcp__ops__service_log",
        "tool_input": {},
        "tool_response": response,
    }


def test_pre_tool_use_names_tokenlab_and_the_store_by_absolute_path(
    tmp_path: Path, isolated_store: Path
) -> None:
    found = answer(pre("cat app.log", tmp_path))
    assert found is not None
    command = found["hookSpecificOutput"]["updatedInput"]["command"]
    assert command == wrapper(tokens_argv(), str(isolated_store))("cat app.log")
    assert isolated_store.is_dir()  # made by the hook, outside Codex's sandbox


def test_an_unreadable_rules_file_stops_every_rewrite(tmp_path: Path, codex_home: Path) -> None:
    (codex_home / "rules").mkdir(parents=True)
    (codex_home / "rules" / "default.rules").write_text('prefix_rule(pattern=["cat"], decision=FORBIDDEN)\n')
    assert answer(pre("cat app.log", tmp_path)) is None


def test_a_project_rule_applies_in_its_subfolders(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".codex" / "rules").mkdir(parents=True)
    (tmp_path / "repo" / ".codex" / "rules" / "r.rules").write_text(
        'prefix_rule(pattern=["cat"], decision="prompt")\n'
    )
    (tmp_path / "repo" / "src").mkdir()
    assert answer(pre("cat app.log", tmp_path / "repo" / "src")) is None
    assert answer(pre("wc -l app.log", tmp_path / "repo" / "src")) is not None


def test_a_large_mcp_result_is_replaced_through_block_and_recorded(isolated_store: Path) -> None:
    found = answer(mcp(SERVICE_LOG))
    assert found is not None and found["decision"] == "block"
    visible = found["reason"]
    assert "12:07:00 ERROR replica fell behind" in visible and " show-ref ID " in visible
    assert count(visible) < count(SERVICE_LOG) // 5
    (row,) = ledger.records(isolated_store)
    assert (row.host, row.event, row.kind) == ("codex", "PostToolUse", ledger.Kind.HOOK)
    shown = json.dumps({"result": SERVICE_LOG}, separators=(",", ":"))
    assert row.host_tokens == count(codex_hook.host_view(shown))
    assert row.visible_tokens == count(visible)


def test_the_same_mcp_call_printing_the_same_again_is_left_to_codex(isolated_store: Path) -> None:
    assert answer(mcp(SERVICE_LOG)) is not None
    assert answer(mcp(SERVICE_LOG)) is None  # asked again: the visible text was not enough
    assert answer(mcp(SERVICE_LOG + "12:09:00 INFO caught up\n")) is not None
    assert [row.rerun for row in ledger.records(isolated_store)] == [False, True, True]


@pytest.mark.parametrize(
    "data",
    [
        mcp("short result\n"),
        mcp(SERVICE_LOG, error=True),
        {**mcp(SERVICE_LOG), "tool_name": "Bash"},
        {**mcp(SERVICE_LOG), "tool_response": {"content": [{"type": "image", "data": "…"}]}},
        {**mcp(SERVICE_LOG), "tool_response": SERVICE_LOG},
    ],
)
def test_other_tool_results_are_left_alone(data: dict[str, Any], isolated_store: Path) -> None:
    assert answer(data) is None
    assert ledger.records(isolated_store) == []


def test_host_view_keeps_head_and_tail_like_codex() -> None:
    text = "a" * 10_000 + "MIDDLE" + "z" * 10_000
    view = codex_hook.host_view(text)
    assert view.startswith("a" * 6_000) and view.endswith("z" * 6_000) and "MIDDLE" not in view
    assert codex_hook.host_view("short") == "short"


@pytest.mark.parametrize(
    "stdin", [b"", b"not json", b"[1, 2]", b'{"hook_event_name": "PreToolUse"}', b"\xff\xfe"]
)
def test_the_entry_answers_nothing_and_exits_0(stdin: bytes) -> None:
    out = io.StringIO()
    assert codex_hook.run([], io.BytesIO(stdin), out) == 0
    assert out.getvalue() == ""


def test_the_entry_survives_an_internal_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def broken(*_: object) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr(codex_rules, "load_rules", broken)
    assert answer(pre("cat app.log", tmp_path)) is None


def test_the_hook_process_exits_0_with_any_arguments(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tokenlab", "hook", "codex", "--unknown", "x"],
        input=b"{broken", capture_output=True, timeout=60, check=False,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).parents[1]), "HOME": str(tmp_path)},
    )  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
