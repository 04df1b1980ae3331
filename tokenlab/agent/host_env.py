"""Which agent host a process runs under, from the variables each host sets for the commands
its shell tool runs: Claude Code `CLAUDECODE`, Codex `CODEX_THREAD_ID` (and
`CODEX_SANDBOX` where it sandboxes), Gemini CLI `GEMINI_CLI`. The ledger names the host of
each `tokens run` and ref opened, so `tokens hook status` can say when each last ran."""

from __future__ import annotations

from collections.abc import Mapping

_MARKERS = (
    ("CLAUDECODE", "claude-code"),
    ("CODEX_THREAD_ID", "codex"),
    ("CODEX_SANDBOX", "codex"),
    ("GEMINI_CLI", "gemini"),
)


def host_of(env: Mapping[str, str]) -> str | None:
    """The host whose marker `env` holds, if any."""
    return next((host for variable, host in _MARKERS if env.get(variable)), None)
