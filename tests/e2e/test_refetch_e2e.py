"""The re-fetch escape hatch with each real CLI: the same call, with the same output, within
5 minutes of the first reaches the model unmodified, never compressed again.

A scripted model runs each call twice in one session. The first result is tokenlab's visible
text; the second is exactly what the host shows without tokenlab (measured in a run with no
hook at all, or, where the host shows a short output whole, the output itself). That covers
both of tokenlab's paths: `tokens run` behind a PreToolUse rewrite (it prints the command's
own bytes) and a replacing hook (PostToolUse, AfterTool, Codex's `block`: it answers nothing).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.fixture_mcp import ERROR_LINE, service_log
from tests.e2e.hosts import GEMINI_OFFLINE_SETTINGS, base_env, run_claude, run_codex, run_gemini
from tests.e2e.model_server import ToolCall, ToolResult, shell_call
from tests.e2e.test_codex_hook_e2e import VARYING, build_log
from tests.e2e.test_hosts_e2e import BUILD_SH, finished, gemini_stable, restore, results, serving, tokens
from tokenlab.counting.tokens import count

pytestmark = pytest.mark.e2e

# Under Claude Code's 30,000-character cap, so that without tokenlab it shows the output whole.
MEDIUM_SH = """for i in $(seq 1 400); do echo "INFO worker $i compiled module_$i.o in 12ms"; done
echo "WARNING deprecated flag -fold used by module_17"
echo "BUILD OK: 400 modules"
"""
# A note Claude Code adds to some tool results (tokens left), not part of the output.
SYSTEM_REMINDER = re.compile(r"\s*<system-reminder>.*?</system-reminder>", re.DOTALL)
SYNC_SH = """for i in $(seq 1 300); do echo "INFO sync record $i of 300 written to db-primary"; done
echo "DONE: 300 records synced"
"""


def raw_output(project: Path, script: str) -> str:
    return subprocess.run(["sh", script], cwd=project, capture_output=True, text=True, check=True).stdout


def twice(*calls: ToolCall) -> list[ToolCall]:
    return [call for call in calls for _ in range(2)]


def report(host: str, first: ToolResult, second: ToolResult, raw: str) -> None:
    print(f"\nREFETCH {host}: first {count(first.text)}, second {count(second.text)}, raw {count(raw)}")


def test_claude_code_shows_a_repeated_identical_call_unmodified(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".claude").mkdir(parents=True)
    project.mkdir()
    (project / "medium.sh").write_text(MEDIUM_SH)
    (project / "sync.sh").write_text(SYNC_SH)
    rules = {"permissions": {"allow": ["Bash(sh medium.sh)"]}}  # sync.sh: `--allowedTools` only
    (home / ".claude" / "settings.json").write_text(json.dumps(rules, indent=4) + "\n")
    tokens(home, project, "hook", "install", "claude-code", "--user")

    with serving(twice(shell_call("sh medium.sh"), shell_call("sh sync.sh"))) as server:
        finished(run_claude(home, project, server.url, "--allowedTools", "Bash"))
    rewritten, rewritten_again, replaced, replaced_again = results(server)

    # `tokens run` stores what the command printed; PostToolUse is given stdout without its last newline.
    pairs = ((rewritten, rewritten_again, "medium.sh", ""), (replaced, replaced_again, "sync.sh", "\n"))
    for first, second, script, dropped in pairs:
        raw = raw_output(project, script)
        assert "#ref:ctx_" in first.text and len(first.text) < len(raw) // 5
        assert restore(home, project, first.text) == raw.removesuffix(dropped).encode()
        assert not second.is_error
        assert SYSTEM_REMINDER.sub("", second.text) == raw.removesuffix("\n")  # as Claude Code shows it
        report(f"claude-code {script}", first, second, raw)


def codex_setup(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".codex").mkdir(parents=True)
    config = (
        f"[mcp_servers.fixture]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(Path(__file__).with_name('fixture_mcp.py')))}]\n"
        'required = true\ndefault_tools_approval_mode = "approve"\n'
    )
    (home / ".codex" / "config.toml").write_text(config)
    project.mkdir()
    (project / "build.log").write_text(build_log())
    return home, project


def codex_session(home: Path, project: Path, calls: list[ToolCall]) -> list[ToolResult]:
    repo = str(Path(__file__).parents[2])
    with serving(calls) as server:
        done = run_codex(home, project, server.url, "--sandbox", "workspace-write", extra_env={"PYTHONPATH": repo})
    finished(done)
    return results(server)


def test_codex_shows_a_repeated_identical_call_unmodified(tmp_path: Path) -> None:
    home, project = codex_setup(tmp_path)
    calls = [shell_call("cat build.log"), ToolCall.of("mcp__fixture/service_log", {})]
    host_shell, host_mcp = codex_session(home, project, calls)
    subprocess.run(
        [sys.executable, "-m", "tokenlab", "hook", "install", "codex", "--user"],
        env=base_env(home, PYTHONPATH=str(Path(__file__).parents[2])),
        cwd=project, capture_output=True, check=True,
    )  # fmt: skip
    shell, shell_again, mcp, mcp_again = codex_session(home, project, twice(*calls))

    assert "#ref:ctx_" in shell.text and restore(home, project, shell.text) == build_log().encode()
    assert "#ref:ctx_" in mcp.text and ERROR_LINE in mcp.text
    for second, host in ((shell_again, host_shell), (mcp_again, host_mcp)):
        assert "#ref:" not in second.text
        assert VARYING.sub("", second.text) == VARYING.sub("", host.text)
    report("codex shell", shell, shell_again, build_log())
    report("codex mcp", mcp, mcp_again, service_log())


def test_gemini_shows_a_repeated_identical_call_unmodified(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".gemini" / "policies").mkdir(parents=True)
    project.mkdir()
    (project / "build.sh").write_text(BUILD_SH)
    (home / ".gemini" / "settings.json").write_text(json.dumps(GEMINI_OFFLINE_SETTINGS, indent=2) + "\n")
    policy = (
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "sh build.sh"\n'
        'decision = "allow"\npriority = 100\n'
    )
    (home / ".gemini" / "policies" / "user.toml").write_text(policy)
    with serving([shell_call("sh build.sh")]) as server:
        finished(run_gemini(home, project, server.url))
    (host,) = results(server)

    tokens(home, project, "hook", "install", "gemini", "--user")
    with serving(twice(shell_call("sh build.sh"))) as server:
        finished(run_gemini(home, project, server.url))
    first, second = results(server)

    raw = raw_output(project, "build.sh")
    assert "#ref:ctx_" in first.text and "BUILD OK: 3000 modules" in first.text
    assert restore(home, project, first.text) == raw.removesuffix("\n").encode()
    assert "#ref:" not in second.text
    assert gemini_stable(second.text) == gemini_stable(host.text)
    report("gemini shell", first, second, raw)
