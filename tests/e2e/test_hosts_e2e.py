"""The real agent CLIs against a scripted model endpoint: what the model is sent.

Each test runs one pinned CLI (tests/e2e/install_clis.sh) non-interactively with a private
HOME, and asserts on the requests the endpoint recorded, above all the tool results.

- Claude Code: tokenlab's hooks (`tokens hook install claude-code`). The PreToolUse rewrite
  of a command a settings rule allows: the model gets tokenlab's visible text (its signals, a
  ref that restores byte for byte, a failure's exit status), and `uninstall` brings back the
  host's own handling and the settings file byte for byte. The PostToolUse replacement, with
  no settings rule at all: Bash approved by `--allowedTools` (a compound command too), Read
  of data files (code left alone, an Edit after it), Grep, Glob and an MCP tool.
- Gemini CLI: tokenlab's AfterTool hook (`tokens hook install gemini`), through every covered
  tool: the model gets the visible text (Gemini's frame and a failure's exit code kept), refs
  restore byte for byte, source code read before an edit is left alone, and `uninstall` gives
  back what the model was sent before and the settings file byte for byte.
- Codex CLI and Gemini CLI: a recording hook pins the contract docs/hosts.md describes: what
  each hook is given and which answers change what the model sees. tokenlab's own Codex
  hook is tested in test_codex_hook_e2e.py.

They run when the CLI cache exists, or always with `TOKENLAB_E2E=1` (then a missing CLI
fails); `pytest -m e2e` selects them.
"""

from __future__ import annotations

import difflib
import json
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.fixture_mcp import ERROR_LINE, service_log
from tests.e2e.hosts import (
    GEMINI_OFFLINE_SETTINGS,
    base_env,
    codex_trust,
    read_log,
    record_command,
    run_claude,
    run_codex,
    run_gemini,
    tokens_bin,
    write_answers,
)
from tests.e2e.model_server import ModelServer, Record, Scenario, Step, ToolCall, ToolResult, shell_call

pytestmark = pytest.mark.e2e

BUILD_SH = """for i in $(seq 1 3000); do echo "INFO worker $i compiled module_$i.o in 12ms"; done
echo "WARNING deprecated flag -fold used by module_17"
echo "BUILD OK: 3000 modules"
"""
FAILING_SH = """for i in $(seq 1 2000); do echo "INFO worker $i compiled module_$i.o in 12ms"; done
echo "ERROR ld: undefined reference to 'frobnicate' in module_1999.o"
exit 3
"""
ORIGINAL_REF = re.compile(r"\[original [\d,]+ bytes: #ref:(ctx_[0-9a-f]+)")


@contextmanager
def serving(steps: Sequence[Step]) -> Iterator[ModelServer]:
    with ModelServer(Scenario(steps, final="done")) as server:
        yield server


def finished(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, (
        f"exit {done.returncode}\nstdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-2000:]}"
    )


def results(server: ModelServer) -> list[ToolResult]:
    missing = [r.answer for r in server.requests if r.answer.get("missing_tool")]
    assert not missing, f"the scenario named tools the CLI did not offer: {missing}"
    return server.tool_results()


# --- Claude Code: tokenlab's own hook -------------------------------------------------------------


@pytest.fixture
def claude_project(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".claude").mkdir(parents=True)
    project.mkdir()
    (project / "build.sh").write_text(BUILD_SH)
    (project / "failing.sh").write_text(FAILING_SH)
    rules = {"permissions": {"allow": ["Bash(sh build.sh)", "Bash(sh failing.sh)"]}}
    (home / ".claude" / "settings.json").write_text(json.dumps(rules, indent=4) + "\n")
    return home, project


def tokens(home: Path, cwd: Path, *args: str) -> str:
    done = subprocess.run(
        [str(tokens_bin()), *args], env=base_env(home), cwd=cwd, capture_output=True, check=True, timeout=60
    )
    return done.stdout.decode("utf-8")


def test_claude_code_sends_tokenlabs_visible_text_for_a_command_a_rule_allows(
    claude_project: tuple[Path, Path],
) -> None:
    home, project = claude_project
    settings = home / ".claude" / "settings.json"
    before = settings.read_bytes()
    tokens(home, project, "hook", "install", "claude-code", "--user")

    with serving([shell_call("sh build.sh"), shell_call("sh failing.sh")]) as server:
        finished(run_claude(home, project, server.url))
    build, failing = results(server)

    raw = subprocess.run(["sh", "build.sh"], cwd=project, capture_output=True, check=True).stdout
    assert "<persisted-output>" not in build.text
    assert len(build.text) < len(raw) // 20
    for signal in ("WARNING deprecated flag -fold used by module_17", "BUILD OK: 3000 modules"):
        assert signal in build.text
    ref = ORIGINAL_REF.search(build.text)
    assert ref is not None, build.text
    restored = subprocess.run(
        [str(tokens_bin()), "show-ref", ref.group(1), "--raw"],
        env=base_env(home), cwd=project, capture_output=True, check=True,
    ).stdout  # fmt: skip
    assert restored == raw

    assert failing.is_error
    assert failing.text.startswith("Exit code 3\n")
    assert "ERROR ld: undefined reference to 'frobnicate' in module_1999.o" in failing.text
    assert "[exit 3: sh failing.sh]" in failing.text

    tokens(home, project, "hook", "uninstall", "claude-code", "--user")
    assert settings.read_bytes() == before
    with serving([shell_call("sh build.sh"), shell_call("sh failing.sh")]) as server:
        finished(run_claude(home, project, server.url))
    build, failing = results(server)
    # Without the hook: Claude Code's own 2 KB preview, where the last lines are not shown.
    assert build.text.startswith("<persisted-output>\nOutput too large")
    assert "BUILD OK" not in build.text
    assert failing.is_error and "frobnicate" not in failing.text


def test_claude_code_hooks_work_without_tokens_on_the_path(claude_project: tuple[Path, Path]) -> None:
    """Claude Code started with a PATH that has no `tokens`: the hook command and the rewritten
    command name tokenlab by this Python's absolute path, so both still run."""
    home, project = claude_project
    (project / "report.json").write_text(report_json())
    bare_path = "/usr/bin:/bin"
    assert shutil.which("tokens", path=bare_path) is None
    tokens(home, project, "hook", "install", "claude-code", "--user")
    steps = [
        shell_call("sh build.sh"),
        shell_call("sh failing.sh"),
        ToolCall.of("Read", {"file_path": str(project / "report.json")}),
    ]
    with serving(steps) as server:
        finished(run_claude(home, project, server.url, extra_env={"PATH": bare_path}))
    build, failing, report = results(server)

    raw = subprocess.run(["sh", "build.sh"], cwd=project, capture_output=True, check=True).stdout
    assert len(build.text) < len(raw) // 20
    assert all(signal in build.text for signal in BUILD_SIGNALS)
    assert restore(home, project, build.text) == raw
    assert failing.is_error and failing.text.startswith("Exit code 3\n")
    assert "[exit 3: sh failing.sh]" in failing.text and FAILING_SIGNALS[0] in failing.text
    assert len(report.text) < len(report_json()) // 10
    assert restore(home, project, report.text) == (project / "report.json").read_bytes()
    status = json.loads(tokens(home, project, "hook", "status", "--json"))
    (claude,) = [host for host in status["hosts"] if host["host"] == "claude-code"]
    assert claude["installed"] and {"run", "PostToolUse"} <= set(claude["last_runs"])
    from tokenlab.counting.tokens import count

    print(f"\nNO-PATH build {count(build.text)}, failing {count(failing.text)}, report {count(report.text)}")


# --- Claude Code: the PostToolUse path, with no settings rule -------------------------------------

# A successful job whose problem is in the middle and whose summary is at the end: Claude
# Code's own 2 KB preview shows neither. The signals were written with the script, before
# tokenlab's output was looked at.
SYNC_SH = """for i in $(seq 1 1200); do echo "INFO sync record $i of 2500 written to db-primary"; done
echo "ERROR retry 1/3: connection reset by peer (db-primary:5432)"
for i in $(seq 1201 2500); do echo "INFO sync record $i of 2500 written to db-primary"; done
echo "DONE: 2500 records synced, 1 retry"
"""
SYNC_SIGNALS = (
    "ERROR retry 1/3: connection reset by peer (db-primary:5432)",
    "DONE: 2500 records synced, 1 retry",
)
BUILD_SIGNALS = ("WARNING deprecated flag -fold used by module_17", "BUILD OK: 3000 modules")
APP_LOG_SIGNALS = (
    "ERROR payment-service: timeout after 30s calling ledger-api (request 7f3a)",
    "INFO shutdown complete",
)
FAILING_SIGNALS = ("ERROR ld: undefined reference to 'frobnicate' in module_1999.o",)
REPORT_SIGNALS = ('"generated_at": "2026-11-30T12:00:00Z"', '"records"')


def app_log() -> str:
    """About 150 KB of service log, one error in the middle, under Read's 256 KB limit."""
    lines = [
        f"2026-11-30 12:{i // 60 % 60:02d}:{i % 60:02d} INFO request {i} served in 12ms" for i in range(2600)
    ]
    lines.insert(1300, f"2026-11-30 12:21:40 {APP_LOG_SIGNALS[0]}")
    return "\n".join([*lines, f"2026-11-30 13:00:00 {APP_LOG_SIGNALS[1]}"]) + "\n"


def report_json() -> str:
    """About 150 KB of JSON: a header and 1,500 similar records."""
    records = [{"id": i, "name": f"record-{i}", "status": "ok", "size": 1024 + i} for i in range(1500)]
    return json.dumps({"generated_at": "2026-11-30T12:00:00Z", "records": records}, indent=2) + "\n"


@pytest.fixture
def claude_no_rules(tmp_path: Path) -> tuple[Path, Path]:
    """A home whose settings hold no permission rule, and a project with the captures."""
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".claude").mkdir(parents=True)
    project.mkdir()
    for name, text in {"build.sh": BUILD_SH, "sync.sh": SYNC_SH, "failing.sh": FAILING_SH}.items():
        (project / name).write_text(text)
    (project / "app.log").write_text(app_log())
    (project / "report.json").write_text(report_json())
    (home / ".claude" / "settings.json").write_text('{\n    "model": "sonnet"\n}\n')
    return home, project


def restore(home: Path, project: Path, text: str) -> bytes:
    ref = ORIGINAL_REF.search(text)
    assert ref is not None, text
    return subprocess.run(
        [str(tokens_bin()), "show-ref", ref.group(1), "--raw"],
        env=base_env(home), cwd=project, capture_output=True, check=True,
    ).stdout  # fmt: skip


def test_claude_code_post_tool_use_replaces_bash_output_approved_by_allowed_tools_only(
    claude_no_rules: tuple[Path, Path],
) -> None:
    home, project = claude_no_rules
    settings = home / ".claude" / "settings.json"
    before = settings.read_bytes()
    tokens(home, project, "hook", "install", "claude-code", "--user")
    compound = "if [ -f sync.sh ]; then sh sync.sh; fi"  # syntax the PreToolUse rewrite leaves alone
    steps = [shell_call(c) for c in ("sh build.sh", "sh sync.sh", "sh failing.sh", compound)]
    with serving(steps) as server:
        finished(run_claude(home, project, server.url, "--allowedTools", "Bash"))
    build, sync, failing, compound_result = results(server)

    outputs = [(build, "build.sh", BUILD_SIGNALS), (sync, "sync.sh", SYNC_SIGNALS)]
    for result, script, signals in [*outputs, (compound_result, "sync.sh", SYNC_SIGNALS)]:
        raw = subprocess.run(["sh", script], cwd=project, capture_output=True, check=True).stdout
        assert not result.is_error
        assert "<persisted-output>" not in result.text  # not Claude Code's 2 KB preview
        assert len(result.text) < len(raw) // 20
        for signal in signals:
            assert signal in result.text
        assert "tokens show-ref" in result.text
        assert restore(home, project, result.text) == raw
    # A failing command goes to PostToolUseFailure, which cannot replace output: the host's own
    # result stands, exit status first, the error at the end cut off (no rule, so no rewrite).
    assert failing.is_error and failing.text.startswith("Exit code 3\n")
    assert "frobnicate" not in failing.text and "#ref:" not in failing.text

    tokens(home, project, "hook", "uninstall", "claude-code", "--user")
    assert settings.read_bytes() == before


def test_claude_code_post_tool_use_replaces_a_read_of_data_but_not_of_code(
    claude_no_rules: tuple[Path, Path],
) -> None:
    home, project = claude_no_rules
    (project / "module.py").write_text("".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(300)))
    (project / "big.json").write_text(report_json() * 2)  # 300 KB: over Read's 256 KB limit
    tokens(home, project, "hook", "install", "claude-code", "--user")
    steps = [
        ToolCall.of("Read", {"file_path": str(project / "big.json")}),
        ToolCall.of("Read", {"file_path": str(project / "app.log")}),
        ToolCall.of("Read", {"file_path": str(project / "report.json")}),
        ToolCall.of("Read", {"file_path": str(project / "module.py")}),
        ToolCall.of(
            "Edit",
            {
                "file_path": str(project / "module.py"),
                "old_string": "return x + 7\n",
                "new_string": "return x + 70\n",
            },
        ),
    ]
    with serving(steps) as server:
        finished(run_claude(home, project, server.url, "--allowedTools", "Read,Edit"))
    big, log, report, code, edit = results(server)

    # Refused by Claude Code before any PostToolUse hook: its own error stands.
    assert big.is_error and "exceeds maximum allowed size (256KB)" in big.text and "#ref:" not in big.text

    for result, name, signals in ((log, "app.log", APP_LOG_SIGNALS), (report, "report.json", REPORT_SIGNALS)):
        assert not result.is_error
        # The whole file, not the part Read's token cap let through (whose note Claude Code still adds).
        assert "[tokenlab: the whole file" in result.text
        assert len(result.text) < (project / name).stat().st_size // 10
        for signal in signals:
            assert signal in result.text
        assert restore(home, project, result.text) == (project / name).read_bytes()
    assert "def f299(x):" in code.text and "#ref:" not in code.text  # source code left as it is
    assert not edit.is_error
    assert "return x + 70\n" in (project / "module.py").read_text()


def test_claude_code_post_tool_use_replaces_grep_results(claude_no_rules: tuple[Path, Path]) -> None:
    home, project = claude_no_rules
    tree = project / "src"
    shutil.copytree(
        Path(__file__).parents[2] / "tokenlab", tree, ignore=shutil.ignore_patterns("__pycache__")
    )
    tokens(home, project, "hook", "install", "claude-code", "--user")
    grep = {"pattern": "def ", "path": str(tree), "output_mode": "content", "-n": True}
    with serving([ToolCall.of("Grep", grep)]) as server:
        finished(run_claude(home, project, server.url, "--allowedTools", "Grep"))
    (result,) = results(server)
    assert not result.is_error
    assert "#ref:ctx_" in result.text and "tokens show-ref" in result.text
    restored = restore(home, project, result.text).decode()
    assert len(result.text) < len(restored) // 3
    assert restored.count("def ") >= 200  # the lines Claude Code gave the hook, whole


def test_claude_code_post_tool_use_replaces_an_mcp_tools_result_and_a_glob(
    claude_no_rules: tuple[Path, Path], tmp_path: Path
) -> None:
    home, project = claude_no_rules
    tree = project / "src"
    # A tree of its own, so that what Glob lists (100 of its 150 files) never changes.
    for package in ("api", "billing", "catalog", "orders", "users"):
        (tree / package).mkdir(parents=True)
        for number in range(30):
            (tree / package / f"module_{number:02d}.py").write_text(f"VALUE = {number}\n")
    server_script = Path(__file__).with_name("fixture_mcp.py")
    config = tmp_path / "mcp.json"
    config.write_text(
        json.dumps({"mcpServers": {"fixture": {"command": sys.executable, "args": [str(server_script)]}}})
    )
    tokens(home, project, "hook", "install", "claude-code", "--user")
    steps = [
        ToolCall.of("mcp__fixture__service_log", {}),
        ToolCall.of("Glob", {"pattern": "**/*.py", "path": str(tree)}),
    ]
    with serving(steps) as server:
        finished(
            run_claude(
                home, project, server.url,
                "--mcp-config", str(config), "--allowedTools", "mcp__fixture__service_log,Glob",
                extra_env={"ENABLE_TOOL_SEARCH": "false"},  # MCP tools offered directly, not behind ToolSearch
            )
        )  # fmt: skip
    mcp_result, glob_result = results(server)

    expected = service_log()
    assert not mcp_result.is_error
    assert len(mcp_result.text) < len(expected) // 10
    assert ERROR_LINE in mcp_result.text
    assert restore(home, project, mcp_result.text) == expected.encode()
    assert not glob_result.is_error
    assert "#ref:ctx_" in glob_result.text
    listed = restore(home, project, glob_result.text).decode().splitlines()
    assert len(listed) == 100  # Glob's own limit: the names the hook was given, each a real file
    assert all((project / name).is_file() for name in listed)
    assert len(glob_result.text) < len("\n".join(listed)) // 2


# --- Codex CLI: the measured hook contract --------------------------------------------------------


@pytest.fixture
def codex_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (tmp_path / "project").mkdir()
    return home


def install_codex_hooks(home: Path, log: Path, answers: Path, *, trusted: bool) -> None:
    command = record_command(log, answers)
    hooks = {
        "hooks": {
            event: [{"matcher": ".*", "hooks": [{"type": "command", "command": command, "timeout": 30}]}]
            for event in ("PreToolUse", "PostToolUse")
        }
    }
    hooks_file = home / ".codex" / "hooks.json"
    hooks_file.write_text(json.dumps(hooks, indent=2))
    (home / ".codex" / "config.toml").write_text(codex_trust(hooks_file) if trusted else "")


def test_codex_rewrites_with_pre_tool_use_and_replaces_only_through_a_block(
    codex_home: Path, tmp_path: Path
) -> None:
    log, answers = tmp_path / "hooks.jsonl", tmp_path / "answers.json"
    rewrite = {
        "hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "updatedInput": {"command": "echo REWRITTEN-1; exit 3"},
    }
    write_answers(
        answers,
        [
            {"event": "PreToolUse", "when": "echo call-1", "answer": {"hookSpecificOutput": rewrite}},
            {
                "event": "PostToolUse",
                "when": "echo call-2",
                "answer": {"decision": "block", "reason": "VISIBLE-2"},
            },
            {
                "event": "PostToolUse",
                "when": "echo call-3",
                "answer": {
                    "hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": "IGNORED-3"}
                },
            },
            {
                "event": "PostToolUse",
                "when": "echo call-4",
                "answer": {
                    "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "CONTEXT-4"}
                },
            },
        ],
    )
    install_codex_hooks(codex_home, log, answers, trusted=True)
    steps = [shell_call(f"echo call-{n}") for n in range(1, 5)]
    with serving(steps) as server:
        finished(run_codex(codex_home, tmp_path / "project", server.url))
    first, second, third, fourth = results(server)

    assert "Process exited with code 3" in first.text and "REWRITTEN-1" in first.text
    assert second.text == "VISIBLE-2"
    assert "call-3" in third.text and "IGNORED-3" not in third.text
    assert "call-4" in fourth.text
    assert developer_text_before(server.requests[-1], fourth.call_id) == "CONTEXT-4"

    calls = read_log(log)
    pre = [c for c in calls if c["hook_event_name"] == "PreToolUse"]
    post = [c for c in calls if c["hook_event_name"] == "PostToolUse"]
    assert [c["tool_input"] for c in pre] == [{"command": f"echo call-{n}"} for n in range(1, 5)]
    assert {c["tool_name"] for c in calls} == {"Bash"}
    assert {c["permission_mode"] for c in calls} == {"bypassPermissions"}  # exec runs with approval never
    expected = {"session_id", "turn_id", "transcript_path", "cwd", "hook_event_name", "model"}
    assert expected | {"permission_mode", "tool_name", "tool_input", "tool_use_id"} <= set(pre[0])
    # PostToolUse sees the rewritten command, and its output as a bare string without the exit status.
    assert post[0]["tool_input"] == {"command": "echo REWRITTEN-1; exit 3"}
    assert post[0]["tool_response"] == "REWRITTEN-1\n"


def test_codex_checks_its_own_rules_only_on_the_rewritten_command(codex_home: Path, tmp_path: Path) -> None:
    """Why a Codex hook must decide itself what it may wrap: Codex refuses `rm -f` on its
    own, but not inside `tokens run --shell '…'`, so a blind rewrite would widen what runs."""
    project = tmp_path / "project"
    for name in ("kept", "removed"):
        (project / name).write_text(name)
    log, answers = tmp_path / "hooks.jsonl", tmp_path / "answers.json"
    wrapped = shlex.join([str(tokens_bin()), "run", "--shell", "rm -f removed"])
    rewrite = {
        "hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "updatedInput": {"command": wrapped},
    }
    write_answers(
        answers, [{"event": "PreToolUse", "when": "rm -f removed", "answer": {"hookSpecificOutput": rewrite}}]
    )
    install_codex_hooks(codex_home, log, answers, trusted=True)
    with serving([shell_call("rm -f kept"), shell_call("rm -f removed")]) as server:
        finished(run_codex(codex_home, project, server.url, "--sandbox", "workspace-write"))
    refused, wrapped_result = results(server)

    assert "rm -f style commands are not permitted" in refused.text
    assert (project / "kept").exists()
    assert "Process exited with code 0" in wrapped_result.text
    assert not (project / "removed").exists()


def developer_text_before(record: Record, call_id: str) -> str | None:
    """The developer message Codex put just before the output of `call_id`, if any."""
    items = record.body["input"]
    for index, item in enumerate(items):
        if item.get("type") == "function_call_output" and item.get("call_id") == call_id and index:
            previous = items[index - 1]
            if previous.get("role") == "developer":
                return "".join(part.get("text", "") for part in previous["content"])
    return None


def test_codex_runs_no_untrusted_hook(codex_home: Path, tmp_path: Path) -> None:
    log, answers = tmp_path / "hooks.jsonl", tmp_path / "answers.json"
    install_codex_hooks(codex_home, log, answers, trusted=False)
    with serving([shell_call("echo untrusted")]) as server:
        finished(run_codex(codex_home, tmp_path / "project", server.url))
    (result,) = results(server)
    assert "untrusted" in result.text
    assert read_log(log) == []


# --- Gemini CLI: the measured hook contract -------------------------------------------------------


def test_gemini_rewrites_under_its_policy_and_replaces_through_a_tail_call(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".gemini" / "policies").mkdir(parents=True)
    project.mkdir()
    (project / "visible.txt").write_text("tokenlab visible text\n")
    log, answers = tmp_path / "hooks.jsonl", tmp_path / "answers.json"
    command = record_command(log, answers)
    hooks = {
        event: [{"matcher": ".*", "hooks": [{"type": "command", "command": command}]}]
        for event in ("BeforeTool", "AfterTool")
    }
    (home / ".gemini" / "settings.json").write_text(json.dumps({**GEMINI_OFFLINE_SETTINGS, "hooks": hooks}))
    policy = '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "echo"\ndecision = "allow"\npriority = 100\n'
    (home / ".gemini" / "policies" / "e2e.toml").write_text(policy)

    def before(when: str, new_command: str) -> dict[str, Any]:
        output = {"hookEventName": "BeforeTool", "tool_input": {"command": new_command}}
        return {"event": "BeforeTool", "when": when, "answer": {"hookSpecificOutput": output}}

    def after(when: str, answer: dict[str, Any]) -> dict[str, Any]:
        return {"event": "AfterTool", "when": when, "answer": answer}

    tail = {"name": "read_file", "args": {"file_path": "visible.txt"}}
    write_answers(
        answers,
        [
            before("echo call-1", "echo REWRITTEN-1"),
            before("echo call-5", "touch widened"),  # allowed command, rewritten to one the policy asks about
            after(
                "echo call-2",
                {"hookSpecificOutput": {"hookEventName": "AfterTool", "tool_output": "IGNORED-2"}},
            ),
            after(
                "echo call-3",
                {"hookSpecificOutput": {"hookEventName": "AfterTool", "tailToolCallRequest": tail}},
            ),
            after("echo call-4", {"decision": "deny", "reason": "VISIBLE-4"}),
        ],
    )
    with serving([shell_call(f"echo call-{n}") for n in range(1, 6)]) as server:
        finished(run_gemini(home, project, server.url))
    first, second, third, fourth, fifth = results(server)

    assert "Output: REWRITTEN-1" in first.text
    assert "[System] Tool input parameters were modified by a hook before execution." in first.text
    assert "Output: call-2" in second.text and "IGNORED-2" not in second.text
    assert third.text == "tokenlab visible text\n" and not third.is_error
    assert fourth.is_error and fourth.raw["response"] == {"error": "VISIBLE-4"}
    assert fifth.is_error and "denied by policy" in fifth.text
    assert not (project / "widened").exists()

    calls = read_log(log)
    after_calls = [
        c for c in calls if c["hook_event_name"] == "AfterTool" and not c.get("original_request_name")
    ]
    assert {"session_id", "transcript_path", "cwd", "timestamp", "tool_name", "tool_input"} <= set(calls[0])
    assert after_calls[0]["tool_response"]["llmContent"].startswith(
        "<untrusted_context>\nOutput: REWRITTEN-1"
    )
    assert after_calls[0]["tool_response"]["returnDisplay"] == "REWRITTEN-1"
    tail_calls = [c for c in calls if c.get("original_request_name")]
    assert [(c["hook_event_name"], c["tool_name"]) for c in tail_calls] == [
        ("BeforeTool", "read_file"),
        ("AfterTool", "read_file"),
    ]


def test_record_hook_answers_only_the_matching_call(tmp_path: Path) -> None:
    """The recording hook itself, so a contract failure above is never the harness's."""
    log, answers = tmp_path / "log.jsonl", tmp_path / "answers.json"
    write_answers(
        answers, [{"event": "AfterTool", "when": "call-2", "answer": {"decision": "deny", "reason": "r"}}]
    )

    def call(data: dict[str, Any]) -> str:
        done = subprocess.run(
            record_command(log, answers),
            shell=True,
            input=json.dumps(data),
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    assert call({"hook_event_name": "AfterTool", "tool_input": {"command": "echo call-1"}}) == ""
    assert (
        json.loads(call({"hook_event_name": "AfterTool", "tool_input": {"command": "echo call-2"}}))["reason"]
        == "r"
    )
    tail_call = {
        "hook_event_name": "AfterTool",
        "tool_input": {"command": "echo call-2"},
        "original_request_name": "x",
    }
    assert call(tail_call) == ""
    assert len(read_log(log)) == 3


def test_shell_call_offers_each_hosts_shell_tool() -> None:
    names = [name for name, _ in shell_call("ls").choices]
    assert ToolCall.of("Bash", {}).pick(["Read", "Bash"]) == ("Bash", {})
    assert {"Bash", "exec_command", "run_shell_command"} <= set(names)


# --- Gemini CLI: tokenlab's own hook ---------------------------------------------------------------

GEMINI_POLICY = """[[rule]]
toolName = "run_shell_command"
commandPrefix = ["sh build.sh", "sh failing.sh"]
decision = "allow"
priority = 100

[[rule]]
toolName = "replace"
decision = "allow"
priority = 100

[[rule]]
mcpName = "fixture"
toolName = "*"
decision = "allow"
priority = 100
"""
MODULE_PY = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(300))
# Gemini's own frame lines that change from run to run.
GEMINI_VOLATILE = re.compile(
    r"Process Group PGID: \d+|\nBackground PIDs: [\d, ]+|session-[0-9a-f-]+|call_\d+"
)


def gemini_stable(text: str) -> str:
    """A result without what changes from run to run: the PGID (and any background PIDs), the
    session in a path, where Gemini's own cut of a long output falls (those digits move it),
    and the order of grep's matches."""
    text = GEMINI_VOLATILE.sub("", text)
    if text.startswith("Output too large."):
        head, _, tail = text.partition(" characters omitted] ...\n\n")
        text = head.rpartition("\n\n... [")[0] + "\n[cut]\n" + tail[-31_000:]
    if text.startswith("Found "):  # grep_search searches in parallel: its order varies
        text = "\n".join(sorted(text.splitlines()))
    return text


def big_json() -> str:
    """About 2 MB of JSON (read_file reads up to 20 MB but shows its first 2,000 lines)."""
    records = [{"id": i, "name": f"record-{i}", "status": "ok", "size": 1024 + i} for i in range(21_000)]
    return json.dumps({"generated_at": "2026-11-30T12:00:00Z", "records": records}, indent=2) + "\n"


@pytest.fixture
def gemini_project(tmp_path: Path) -> tuple[Path, Path]:
    """A home with offline settings, a user's policy allowing two scripts, `replace` and the
    fixture MCP server, and a project with the captures and a copy of tokenlab's source."""
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".gemini" / "policies").mkdir(parents=True)
    project.mkdir()
    for name, text in {"build.sh": BUILD_SH, "failing.sh": FAILING_SH, "big.json": big_json()}.items():
        (project / name).write_text(text)
    shutil.copytree(
        Path(__file__).parents[2] / "tokenlab", project / "src", ignore=shutil.ignore_patterns("__pycache__")
    )
    mcp = {"fixture": {"command": sys.executable, "args": [str(Path(__file__).with_name("fixture_mcp.py"))]}}
    settings = {**GEMINI_OFFLINE_SETTINGS, "mcpServers": mcp}
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings, indent=2) + "\n")
    (home / ".gemini" / "policies" / "user.toml").write_text(GEMINI_POLICY)
    return home, project


def gemini_session(home: Path, project: Path) -> list[ToolResult]:
    """One `gemini -p` run through every covered tool; module.py is fresh for each run."""
    (project / "module.py").write_text(MODULE_PY)
    edit = {"file_path": str(project / "module.py"), "old_string": "return x + 7\n", "new_string": "return x + 70\n",
            "instruction": "change f7"}  # fmt: skip
    steps = [
        shell_call("sh build.sh"),
        shell_call("sh failing.sh"),
        ToolCall.of("read_file", {"file_path": "big.json"}),
        ToolCall.of("read_file", {"file_path": "module.py"}),
        ToolCall.of("replace", edit),
        # Under grep_search's 100-match cap (case-insensitive), which would pick different
        # matches each run: a name defined once and used in many files.
        ToolCall.of("grep_search", {"pattern": "LogLimits", "dir_path": "src/optimizers"}),
        ToolCall.of("glob", {"pattern": "src/**/*.py"}),
        ToolCall.of("mcp_fixture_service_log", {}),
    ]
    with serving(steps) as server:
        finished(run_gemini(home, project, server.url))
    return results(server)


def test_gemini_hook_sends_tokenlabs_visible_text_and_uninstall_gives_back_the_hosts(
    gemini_project: tuple[Path, Path],
) -> None:
    from tokenlab.counting.tokens import count

    home, project = gemini_project
    settings = home / ".gemini" / "settings.json"
    before_bytes = settings.read_bytes()
    before = gemini_session(home, project)
    tokens(home, project, "hook", "install", "gemini", "--user")
    build, failing, big, code, edit, grep, glob, mcp = gemini_session(home, project)

    build_raw = subprocess.run(["sh", "build.sh"], cwd=project, capture_output=True, check=True).stdout
    failing_raw = subprocess.run(["sh", "failing.sh"], cwd=project, capture_output=True, check=False).stdout
    for result, raw, signals in ((build, build_raw, BUILD_SIGNALS), (failing, failing_raw, FAILING_SIGNALS)):
        assert not result.is_error and "Output too large" not in result.text
        assert result.text.startswith("<untrusted_context>\nOutput: [log:")  # Gemini's frame, kept
        for signal in signals:
            assert signal in result.text
        assert "tokens show-ref" in result.text
        assert restore(home, project, result.text) == raw.removesuffix(b"\n")  # Gemini drops the last newline
    assert "\nExit Code: 3\nProcess Group PGID:" in failing.text
    assert "Exit Code" not in build.text

    assert restore(home, project, big.text) == (project / "big.json").read_bytes()
    assert '"generated_at": "2026-11-30T12:00:00Z"' in big.text and "IMPORTANT" not in big.text
    assert code.text == before[3].text  # source code left as it is
    assert not edit.is_error and "return x + 70\n" in (project / "module.py").read_text()

    expected = subprocess.run(
        ["grep", "-rni", "LogLimits", "src/optimizers"], cwd=project, capture_output=True, text=True, check=True
    )
    found = expected.stdout.splitlines()
    assert len(found) < 100 and grep.text.startswith(f'Found {len(found)} matches for pattern "LogLimits"')
    matches = restore(home, project, grep.text).decode().splitlines()
    assert sorted(f"src/optimizers/{match}" for match in matches) == sorted(found)
    listed = restore(home, project, glob.text).decode().splitlines()
    assert len(listed) >= 100 and all(Path(name).is_file() for name in listed)

    assert mcp.text.startswith("<untrusted_context>\n") and ERROR_LINE in mcp.text
    assert restore(home, project, mcp.text) == service_log().encode()
    assert not list((home / ".gemini" / "tmp").glob("*/tokenlab/*.txt"))  # each tail file deleted once read

    tokens(home, project, "hook", "uninstall", "gemini", "--user")
    assert settings.read_bytes() == before_bytes
    after = gemini_session(home, project)
    for index, (now, then) in enumerate(zip(after, before, strict=True)):
        now_text, then_text = gemini_stable(now.text), gemini_stable(then.text)
        diff = difflib.unified_diff(then_text.splitlines(True), now_text.splitlines(True), n=1)
        assert now_text == then_text, f"result {index}:\n" + "".join(list(diff)[:30])

    raws = [build_raw, failing_raw, (project / "big.json").read_bytes(), MODULE_PY.encode(), b"",
            restore(home, project, grep.text), restore(home, project, glob.text), service_log().encode()]  # fmt: skip
    names = ("build log", "failing run", "read 2 MB JSON", "read source", "replace", "grep", "glob", "MCP")
    with_hook = (build, failing, big, code, edit, grep, glob, mcp)
    for name, raw, ours, host in zip(names, raws, with_hook, before, strict=True):
        print(
            f"GEMINI {name}: tokenlab {count(ours.text)}, without {count(host.text)}, raw {count(raw.decode())}"
        )


def test_gemini_hook_leaves_the_output_alone_when_the_tail_read_could_be_refused_or_tokens_is_gone(
    gemini_project: tuple[Path, Path],
) -> None:
    """Without the policy check, a user rule denying `read_file` (here only for paths with
    "tokenlab" in them) made the model get "Tool execution denied by policy." instead of the
    build log; and a hook command whose executable is gone would exit 127, which Gemini reads
    as "block this result"."""
    from tokenlab.agent import gemini_settings

    home, project = gemini_project
    policy = '[[rule]]\ntoolName = "read_file"\nargsPattern = "tokenlab"\ndecision = "deny"\npriority = 100\n'
    (home / ".gemini" / "policies" / "private.toml").write_text(policy)
    tokens(home, project, "hook", "install", "gemini", "--user")
    with serving([shell_call("sh build.sh")]) as server:
        finished(run_gemini(home, project, server.url))
    (denied,) = results(server)
    assert not denied.is_error and denied.text.startswith("Output too large.") and "#ref:" not in denied.text

    (home / ".gemini" / "policies" / "private.toml").unlink()
    gemini_settings.install(
        home / ".gemini" / "settings.json", gemini_settings.hook_command(str(project / "gone"))
    )
    with serving([shell_call("sh build.sh")]) as server:
        finished(run_gemini(home, project, server.url))
    (gone,) = results(server)
    assert not gone.is_error and gone.text.startswith("Output too large.") and "BUILD OK" in gone.text


def test_gemini_project_hook_is_trusted_on_install_and_both_files_come_back_on_uninstall(
    gemini_project: tuple[Path, Path],
) -> None:
    home, project = gemini_project
    trusted = home / ".gemini" / "trusted_hooks.json"
    tokens(home, project, "hook", "install", "gemini", "--project")
    settings = project / ".gemini" / "settings.json"
    command = json.loads(settings.read_text())["hooks"]["AfterTool"][0]["hooks"][0]["command"]
    assert json.loads(trusted.read_text()) == {str(project): [f"tokenlab:{command}"]}
    with serving([shell_call("sh build.sh")]) as server:
        done = run_gemini(home, project, server.url)
    finished(done)
    (build,) = results(server)
    assert "project-level hooks" not in done.stderr  # no warning: the install trusted it
    assert "#ref:ctx_" in build.text and "BUILD OK: 3000 modules" in build.text
    tokens(home, project, "hook", "uninstall", "gemini", "--project")
    assert json.loads(settings.read_text()) == {} and not trusted.exists()


# --- Claude Code: what a PostToolUseFailure hook can change -------------------------------------------

FAILURE_ANSWERS = {
    "one.sh": {"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "updatedToolOutput": "REPLACED"}},
    "two.sh": {"decision": "block", "reason": "REPLACED"},
    "three.sh": {"exit": 2, "stderr": "REPLACED"},
    "four.sh": {"hookSpecificOutput": {"hookEventName": "PostToolUseFailure", "additionalContext": "ADDED"}},
}


def test_claude_code_post_tool_use_failure_cannot_replace_a_failing_commands_output(tmp_path: Path) -> None:
    """Each answer a PostToolUseFailure hook may give, for four failing commands (30 KB, exit 3):
    none replaces what the model gets, and the hook's `error` is already cut, its end missing."""
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".claude").mkdir(parents=True)
    project.mkdir()
    log, answers = tmp_path / "hooks.jsonl", tmp_path / "answers.json"
    rules = []
    for script, answer in FAILURE_ANSWERS.items():
        (project / script).write_text(FAILING_SH)
        rule = {"event": "PostToolUseFailure", "when": script}
        rules.append({**rule, **answer} if "exit" in answer else {**rule, "answer": answer})
    write_answers(answers, rules)
    entry = {"matcher": "Bash", "hooks": [{"type": "command", "command": record_command(log, answers)}]}
    (home / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PostToolUseFailure": [entry]}}))
    with serving([shell_call(f"sh {script}") for script in FAILURE_ANSWERS]) as server:
        finished(run_claude(home, project, server.url, "--allowedTools", "Bash"))
    replaced, blocked, exited, added = results(server)
    calls = [call for call in read_log(log) if call.get("hook_event_name") == "PostToolUseFailure"]

    assert len(calls) == 4
    for call, result in zip(calls, (replaced, blocked, exited, added), strict=True):
        assert result.is_error and result.text.startswith("Exit code 3\n")
        assert "frobnicate" not in call["error"] and "frobnicate" not in result.text  # cut before the end
        assert "persistedOutputPath" not in json.dumps(call) and "tool_response" not in call
        assert result.text.startswith(call["error"])
    assert "REPLACED" not in replaced.text  # updatedToolOutput: ignored
    for call, result in zip(calls[1:3], (blocked, exited), strict=True):  # a note after the host's own text
        assert "PostToolUseFailure:Bash hook blocking error from command: " in result.text
        assert result.text.find("REPLACED") > len(call["error"])
    assert "PostToolUseFailure:Bash hook additional context: ADDED" in added.text
    print("\nPOSTTOOLUSEFAILURE error given to the hook:", len(calls[0]["error"]), "characters")


# --- Claude Code: compound commands that fail ---------------------------------------------------------

FAILING_COMPOUNDS = (
    "for s in failing.sh; do sh $s; done",
    "if [ -f failing.sh ]; then sh failing.sh; fi",
    "(sh failing.sh)",
    "sh build.sh; exit 3",
)


@pytest.mark.parametrize("approval", ["settings rule", "--allowedTools Bash"])
def test_claude_code_failing_compound_commands_stay_the_hosts_own(
    claude_project: tuple[Path, Path], approval: str
) -> None:
    """Measured why no rewrite covers them. With rules allowing `sh failing.sh` and `sh build.sh`,
    Claude Code itself asks about the loop's variable, the subshell and `exit`, so the hook must
    not approve them; it runs the `if` (its `[ -f … ]` needs no rule), which the rewrite leaves
    alone. Approved with `--allowedTools`, all four fail into PostToolUseFailure: the model gets
    Claude Code's cut output, the error at its end missing."""
    home, project = claude_project
    tokens(home, project, "hook", "install", "claude-code", "--user")
    extra = ("--allowedTools", "Bash") if approval.startswith("--") else ()
    with serving([shell_call(command) for command in FAILING_COMPOUNDS]) as server:
        finished(run_claude(home, project, server.url, *extra))
    loop, conditional, subshell, exits = results(server)

    for result in (loop, conditional, subshell, exits):
        assert result.is_error and "#ref:" not in result.text and "frobnicate" not in result.text
    if extra:
        for result in (loop, conditional, subshell, exits):
            assert result.text.startswith("Exit code 3\nINFO worker 1 ")
        return
    assert loop.text.startswith("A variable in this command can't be checked before it runs")
    assert conditional.text.startswith("Exit code 3\nINFO worker 1 ")
    assert subshell.text.startswith("This command uses shell operators that require approval")
    assert exits.text.startswith(
        "This Bash command contains multiple operations. The following part requires approval: exit"
    )


# --- Gemini CLI: policies given on its command line, and partial reads --------------------------------

DENY_TAIL_READS = '[[rule]]\ntoolName = "read_file"\nargsPattern = "tokenlab"\ndecision = "deny"\npriority = 100\n'


def test_gemini_hook_sees_policies_given_with_policy_and_leaves_partial_reads_alone(
    gemini_project: tuple[Path, Path], tmp_path: Path
) -> None:
    """`--policy` files reach no hook input: the hook reads them from Gemini's command line.
    Measured without that: a `--policy` rule refusing reads of tokenlab's tail file made the
    model get "Tool execution denied by policy." instead of the build log. A read_file with
    `start_line`/`end_line` is left as Gemini shows it."""
    home, project = gemini_project
    harmless, refusing = tmp_path / "harmless.toml", tmp_path / "refusing.toml"
    harmless.write_text(GEMINI_POLICY)  # `--policy` replaces the user's policy folder
    refusing.write_text(GEMINI_POLICY + "\n" + DENY_TAIL_READS)
    part = ToolCall.of("read_file", {"file_path": "big.json", "start_line": 100, "end_line": 150})
    with serving([shell_call("sh failing.sh"), part]) as server:
        finished(run_gemini(home, project, server.url))
    host_failing, host_part = results(server)
    tokens(home, project, "hook", "install", "gemini", "--user")

    with serving([shell_call("sh build.sh"), part]) as server:
        finished(run_gemini(home, project, server.url, "--policy", str(harmless)))
    build, partial = results(server)
    assert all(signal in build.text for signal in BUILD_SIGNALS) and "#ref:ctx_" in build.text
    assert partial.text == host_part.text and "Showing lines 100-150 of" in partial.text

    # Not a repeat of a call just made, which would be left to Gemini anyway (the re-fetch escape hatch).
    with serving([shell_call("sh failing.sh")]) as server:
        finished(run_gemini(home, project, server.url, "--policy", str(refusing)))
    (left,) = results(server)
    assert not left.is_error and "denied by policy" not in left.text
    assert gemini_stable(left.text) == gemini_stable(host_failing.text)
