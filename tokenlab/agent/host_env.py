"""Which agent host a process runs under, from the variables each host sets for the commands
its shell tool runs: Claude Code `CLAUDECODE`, Codex `CODEX_THREAD_ID` (and
`CODEX_SANDBOX` where it sandboxes), Gemini CLI `GEMINI_CLI`. The ledger names the host of
each `tokens run` and ref opened, so `tokens hook status` can say when each last ran.
`ancestors` reads the command lines of the processes above a hook."""

from __future__ import annotations

import os

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing on every call

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

_MARKERS = (
    ("CLAUDECODE", "claude-code"),
    ("CODEX_THREAD_ID", "codex"),
    ("CODEX_SANDBOX", "codex"),
    ("GEMINI_CLI", "gemini"),
)


def host_of(env: Mapping[str, str]) -> str | None:
    """The host whose marker `env` holds, if any."""
    return next((host for variable, host in _MARKERS if env.get(variable)), None)


def ancestors(limit: int = 32) -> list[tuple[list[str], Path]] | None:
    """The command line and working folder of each process above this one, nearest first,
    from /proc: how a hook sees the options its host was started with (Gemini's `--policy`
    reaches hooks no other way). [] where there is no /proc to ask; None when /proc exists
    but a process in the chain cannot be read, so the caller cannot know what it missed."""
    from pathlib import Path  # only here: `host_of` runs on every `tokens run`, this in one hook

    if not Path("/proc/self/stat").exists():
        return []
    found: list[tuple[list[str], Path]] = []
    pid = os.getppid()
    try:
        while pid > 1 and len(found) < limit:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
            found.append(([os.fsdecode(arg) for arg in argv if arg], cwd))
            stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8", errors="replace")
            pid = int(stat.rpartition(")")[2].split()[1])  # the fields after the name: state, ppid
    except (OSError, ValueError, IndexError):
        return None
    return found
