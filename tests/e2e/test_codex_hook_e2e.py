"""tokenlab's own Codex hook (`tokens hook install codex`) with the real Codex CLI.

One scenario runs three times against the scripted endpoint: before install, with the hook
installed, and after uninstall. It asserts on what the model was sent:

- a large build log read with a read-only command: tokenlab's visible text, every signal
  written into the log, a ref that restores the log byte for byte;
- a failing command a user's `allow` rule names (exit 3): its exit status stays visible;
- `rm -f` and a command a `forbidden` rule names: left alone, Codex's own refusal stands;
- a third-party MCP tool's large result: replaced by its visible text;
- after uninstall: what the model receives is what it received before install, and
  hooks.json and config.toml are back byte for byte.

Each run's token counts (o200k) are printed: with tokenlab, without, and raw. A second test
runs in Codex's default read-only sandbox, where `tokens run` cannot write its store: the
command runs as written.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.fixture_mcp import ERROR_LINE, service_log
from tests.e2e.hosts import base_env, run_codex
from tests.e2e.model_server import ModelServer, Scenario, ToolCall, ToolResult, shell_call
from tokenlab.counting.tokens import count

pytestmark = pytest.mark.e2e

REPO = Path(__file__).parents[2]
ORIGINAL_REF = re.compile(r"\[original [\d,]+ bytes: #ref:(ctx_[0-9a-f]+)")
BUILD_SIGNALS = (
    "WARNING deprecated flag -fold used by module_17",
    "ERROR retry 2/3: cc1 killed (signal 9) on module_2041",
    "BUILD OK: 3000 modules",
)
FAILING_SH = """for i in $(seq 1 2000); do echo "INFO worker $i compiled module_$i.o in 12ms"; done
echo "ERROR ld: undefined reference to 'frobnicate' in module_1999.o"
exit 3
"""
RULES = """# the user's own rules
prefix_rule(pattern=["sh", ["failing.sh", "other.sh"]], decision="allow")
prefix_rule(
    pattern=["cat", "secret.txt"],
    decision="forbidden",
    justification="secrets stay private",
)
"""
COMMANDS = ("cat build.log", "sh failing.sh", "rm -f kept", "cat secret.txt")
# Lines of Codex's own header that change from run to run.
VARYING = re.compile(r"^(Chunk ID|Wall time): .*$", re.MULTILINE)


def build_log() -> str:
    lines = [f"INFO worker {i} compiled module_{i}.o in 12ms" for i in range(1, 3001)]
    lines.insert(17, BUILD_SIGNALS[0])
    lines.insert(2041, BUILD_SIGNALS[1])
    return "\n".join(lines) + "\n" + BUILD_SIGNALS[2] + "\n"


@pytest.fixture
def codex_project(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    (home / ".codex" / "rules").mkdir(parents=True)
    (home / ".codex" / "rules" / "default.rules").write_text(RULES)
    config = (
        "# the user's own settings\n"
        f"[mcp_servers.fixture]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(Path(__file__).with_name('fixture_mcp.py')))}]\n"
        "required = true\n"  # Codex waits for it to start, so its tools are offered from the start
        'default_tools_approval_mode = "approve"'  # no final newline: kept as it is
    )
    (home / ".codex" / "config.toml").write_text(config)
    project.mkdir()
    (project / "build.log").write_text(build_log())
    (project / "failing.sh").write_text(FAILING_SH)
    (project / "secret.txt").write_text("hunter2\n")
    return home, project


def env(home: Path) -> dict[str, str]:
    return base_env(home, PYTHONPATH=str(REPO))  # the hook and `tokens run` run this tree's code


def tokens(home: Path, cwd: Path, *args: str) -> bytes:
    argv = [sys.executable, "-m", "tokenlab", *args]
    return subprocess.run(argv, env=env(home), cwd=cwd, capture_output=True, check=True, timeout=60).stdout


def run_scenario(home: Path, project: Path) -> list[ToolResult]:
    (project / "kept").write_text("kept")
    steps = [*(shell_call(command) for command in COMMANDS), ToolCall.of("mcp__fixture/service_log", {})]
    with ModelServer(Scenario(steps, final="done")) as server:
        done = run_codex(
            home, project, server.url, "--sandbox", "workspace-write", extra_env={"PYTHONPATH": str(REPO)}
        )
    assert done.returncode == 0, f"stdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-3000:]}"
    missing = [r.answer for r in server.requests if r.answer.get("missing_tool")]
    assert not missing, missing
    return server.tool_results()


def restore(home: Path, project: Path, text: str) -> bytes:
    ref = ORIGINAL_REF.search(text)
    assert ref is not None, text
    return tokens(home, project, "show-ref", ref.group(1), "--raw")


def test_codex_hook_compresses_only_what_would_have_run_and_uninstalls_cleanly(
    codex_project: tuple[Path, Path],
) -> None:
    home, project = codex_project
    config, hooks_file = home / ".codex" / "config.toml", home / ".codex" / "hooks.json"
    config_before = config.read_bytes()
    before = run_scenario(home, project)

    tokens(home, project, "hook", "install", "codex", "--user")
    assert config.read_bytes().startswith(config_before)
    build, failing, forced_rm, forbidden, mcp = with_hook = run_scenario(home, project)

    raw_log = (project / "build.log").read_bytes()
    assert "Process exited with code 0" in build.text
    for signal in BUILD_SIGNALS:
        assert signal in build.text
    assert len(build.text) < len(raw_log) // 10
    assert restore(home, project, build.text) == raw_log

    raw_failing = subprocess.run(["sh", "failing.sh"], cwd=project, capture_output=True, check=False).stdout
    assert "Process exited with code 3" in failing.text
    assert "[exit 3: sh failing.sh]" in failing.text
    assert "ERROR ld: undefined reference to 'frobnicate' in module_1999.o" in failing.text
    assert restore(home, project, failing.text) == raw_failing

    assert "`/bin/bash -lc 'rm -f kept'` rejected: rm -f style commands are not permitted" in forced_rm.text
    assert (project / "kept").exists()
    assert "#ref:" not in forbidden.text and "hunter2" not in forbidden.text
    assert "`/bin/bash -lc 'cat secret.txt'` rejected: secrets stay private" in forbidden.text

    assert ERROR_LINE in mcp.text and "#ref:ctx_" in mcp.text
    assert restore(home, project, mcp.text) == service_log().encode()

    tokens(home, project, "hook", "uninstall", "codex", "--user")
    assert config.read_bytes() == config_before
    assert not hooks_file.exists()
    after = run_scenario(home, project)
    assert [VARYING.sub("", r.text) for r in after] == [VARYING.sub("", r.text) for r in before]
    assert ERROR_LINE not in after[4].text  # Codex's own cut drops the middle of the MCP result

    raws = [raw_log, raw_failing, b"", b"", service_log().encode()]
    report = {
        name: {"tokenlab": count(hooked.text), "host": count(plain.text), "raw": count(raw.decode())}
        for name, hooked, plain, raw in zip(
            ("build log", "failing exit 3", "rm -f", "forbidden rule", "mcp result"),
            with_hook,
            after,
            raws,
            strict=True,
        )
    }
    print("\nCODEX TOKENS", json.dumps(report))


def test_codex_hook_runs_the_command_as_written_in_a_read_only_sandbox(
    codex_project: tuple[Path, Path],
) -> None:
    """Codex's default sandbox lets `tokens run` write nothing: the command must still work."""
    home, project = codex_project
    tokens(home, project, "hook", "install", "codex", "--user")
    with ModelServer(Scenario([shell_call("cat build.log")], final="done")) as server:
        done = run_codex(home, project, server.url, extra_env={"PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr[-2000:]
    (result,) = server.tool_results()
    assert "Process exited with code 0" in result.text
    assert "Traceback" not in result.text and "#ref:" not in result.text
    assert "INFO worker 1 compiled module_1.o in 12ms" in result.text  # the log itself, cut by Codex


def cat_build_log(home: Path, project: Path, extra_env: dict[str, str]) -> ToolResult:
    with ModelServer(Scenario([shell_call("cat build.log")], final="done")) as server:
        done = run_codex(home, project, server.url, "--sandbox", "workspace-write", extra_env=extra_env)
    assert done.returncode == 0, done.stderr[-2000:]
    (result,) = server.tool_results()
    return result


def test_codex_project_install_runs_once_the_project_is_trusted(codex_project: tuple[Path, Path]) -> None:
    """Codex 0.169.0 loads a project's .codex/hooks.json only for a project config.toml marks
    trusted: before that, the hook (trusted itself) silently never runs."""
    home, project = codex_project
    config = home / ".codex" / "config.toml"
    before = config.read_bytes()
    repo = {"PYTHONPATH": str(REPO)}
    installing = subprocess.run(
        [sys.executable, "-m", "tokenlab", "hook", "install", "codex"],
        env=env(home), cwd=project, capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    assert (project / ".codex" / "hooks.json").exists()
    assert "only for a trusted project" in installing.stderr
    untrusted = cat_build_log(home, project, repo)
    assert "#ref:" not in untrusted.text and "Warning: truncated output" in untrusted.text

    trust = f'\n[projects.{json.dumps(str(project))}]\ntrust_level = "trusted"\n'
    with config.open("a", encoding="utf-8") as handle:
        handle.write(trust)
    trusted = cat_build_log(home, project, repo)
    assert all(signal in trusted.text for signal in BUILD_SIGNALS)
    assert restore(home, project, trusted.text) == build_log().encode()

    tokens(home, project, "hook", "uninstall", "codex")
    assert not (project / ".codex").exists()
    assert config.read_bytes() == before + trust.encode()  # the user's own trust stays


def test_codex_user_install_follows_codex_home(codex_project: tuple[Path, Path], tmp_path: Path) -> None:
    home, project = codex_project
    elsewhere = tmp_path / "codex-home"
    elsewhere.mkdir()
    (elsewhere / "config.toml").write_bytes((home / ".codex" / "config.toml").read_bytes())
    moved = {"PYTHONPATH": str(REPO), "CODEX_HOME": str(elsewhere)}
    subprocess.run(
        [sys.executable, "-m", "tokenlab", "hook", "install", "codex", "--user"],
        env=base_env(home, **moved), cwd=project, capture_output=True, check=True, timeout=60,
    )  # fmt: skip
    assert (elsewhere / "hooks.json").exists() and not (home / ".codex" / "hooks.json").exists()
    result = cat_build_log(home, project, moved)
    assert all(signal in result.text for signal in BUILD_SIGNALS)
    assert restore(home, project, result.text) == build_log().encode()
