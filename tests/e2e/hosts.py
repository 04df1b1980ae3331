"""How the end-to-end tests run each agent CLI: offline, non-interactive, in a private HOME.

Each `run_*` starts one CLI against the scripted endpoint (`model_server.py`) with the
switches that keep it off the network (measured with strace; see docs/hosts.md), and returns
the finished process. The CLIs come from the cache `install_clis.sh` fills; `cli()` finds
one, skipping the test when the cache is absent and `TOKENLAB_E2E` is unset, failing it
when `TOKENLAB_E2E` is set.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

CACHE = Path(os.environ.get("TOKENLAB_E2E_CACHE") or Path.home() / ".cache" / "tokenlab-e2e")
RECORD_HOOK = Path(__file__).with_name("record_hook.py")
TIMEOUT = 120  # seconds; a run takes 2-10 s
# Passed through from the test's own environment; everything else is set per host.
KEPT_ENV = ("PATH", "PYTHONPATH", "LANG", "LC_ALL", "TMPDIR", "TOKENLAB_STORE", "TOKENLAB_WORKER")


def cli(name: str) -> Path:
    """The cached CLI `name` (claude, codex, gemini)."""
    path = CACHE / "node_modules" / ".bin" / name
    if path.exists():
        return path
    message = f"{path} is missing: run tests/e2e/install_clis.sh"
    if os.environ.get("TOKENLAB_E2E"):
        pytest.fail(message)
    pytest.skip(message)


def tokens_bin() -> Path:
    """The `tokens` executable of the Python running the tests."""
    return Path(sys.executable).with_name("tokens")


def base_env(home: Path, **extra: str) -> dict[str, str]:
    env = {key: os.environ[key] for key in KEPT_ENV if key in os.environ}
    env["PATH"] = f"{tokens_bin().parent}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}"
    env["HOME"] = str(home)
    env.update(extra)
    return env


def record_command(log: Path, answers: Path) -> str:
    """The hook command that records into `log` and answers from `answers`."""
    return shlex.join([sys.executable, str(RECORD_HOOK), str(log), str(answers)])


def write_answers(path: Path, rules: Sequence[Mapping[str, Any]]) -> None:
    path.write_text(json.dumps(list(rules)), encoding="utf-8")


def read_log(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _run(argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(argv), env=dict(env), cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )


# --- Claude Code ------------------------------------------------------------------------------


def run_claude(
    home: Path, cwd: Path, url: str, *args: str, extra_env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = base_env(
        home,
        ANTHROPIC_BASE_URL=url,
        ANTHROPIC_API_KEY="sk-ant-e2e",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_TELEMETRY="1",
        DISABLE_AUTOUPDATER="1",
        **(extra_env or {}),
    )
    argv = [str(cli("claude")), "-p", "go", "--output-format", "json", "--model", "claude-sonnet-4-5", *args]
    return _run(argv, env, cwd)


# --- Codex CLI --------------------------------------------------------------------------------

CODEX_OFFLINE = (
    "-c", "check_for_update_on_startup=false",
    "-c", "analytics.enabled=false",
    "--disable", "plugins", "--disable", "remote_plugin", "--disable", "apps", "--disable", "in_app_updates",
)  # fmt: skip
CODEX_EVENT_LABELS = {"PreToolUse": "pre_tool_use", "PostToolUse": "post_tool_use"}


def run_codex(
    home: Path, cwd: Path, url: str, *args: str, extra_env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = base_env(home, OPENAI_API_KEY="sk-e2e", **(extra_env or {}))
    provider = (
        "-c", 'model_provider="local"',
        "-c", 'model_providers.local.name="local"',
        "-c", f'model_providers.local.base_url="{url}/v1"',
        "-c", 'model_providers.local.env_key="OPENAI_API_KEY"',
        "-c", 'model="gpt-5"',
    )  # fmt: skip
    argv = [str(cli("codex")), "exec", "--skip-git-repo-check", *provider, *CODEX_OFFLINE, *args, "go"]
    return _run(argv, env, cwd)


def codex_trust(hooks_file: Path) -> str:
    """The `[hooks.state…]` entries of config.toml that mark every hook in `hooks_file` trusted.

    Codex runs a user's hook only when its entry holds the SHA-256 of the hook's identity:
    the compact, key-sorted JSON of its event, matcher and one normalised handler (see
    docs/hosts.md); the TUI's /hooks writes the same entries."""
    data = json.loads(hooks_file.read_text(encoding="utf-8"))
    entries = []
    for event, groups in data["hooks"].items():
        label = CODEX_EVENT_LABELS[event]
        for group_index, group in enumerate(groups):
            for handler_index, handler in enumerate(group["hooks"]):
                identity: dict[str, Any] = {
                    "event_name": label,
                    "hooks": [
                        {
                            "type": "command",
                            "command": handler["command"],
                            "timeout": handler.get("timeout", 600),
                            "async": handler.get("async", False),
                        }
                    ],
                }
                if group.get("matcher") is not None:
                    identity["matcher"] = group["matcher"]
                canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"))
                digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
                key = f"{hooks_file}:{label}:{group_index}:{handler_index}"
                entries.append(f'[hooks.state.{json.dumps(key)}]\ntrusted_hash = "sha256:{digest}"\n')
    return "\n".join(entries)


# --- Gemini CLI -------------------------------------------------------------------------------

GEMINI_OFFLINE_SETTINGS: dict[str, Any] = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
}


def run_gemini(home: Path, cwd: Path, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = base_env(
        home,
        GEMINI_API_KEY="e2e",
        GOOGLE_GEMINI_BASE_URL=url,
        GEMINI_CLI_TRUST_WORKSPACE="true",
        GEMINI_CLI_NO_RELAUNCH="true",
    )
    argv = [str(cli("gemini")), "-p", "go", "-m", "gemini-2.5-pro", *args]
    return _run(argv, env, cwd)
