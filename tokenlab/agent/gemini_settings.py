"""Gemini CLI's settings: adding or removing our AfterTool hook, and its entry in trusted_hooks.json.

The hook goes into `~/.gemini/settings.json` (`--user`) or the project's
`.gemini/settings.json`, as one AfterTool entry for the tools whose output it replaces. No
BeforeTool entry: Gemini checks its policy on a rewritten command, so a rewrite to `tokens
run --shell '…'` would need an allow rule for `tokens` that approves whatever it wraps
(docs/hosts.md). The files are merged and restored by `json_settings`, so an uninstall gives
back the bytes the install started from.

Project hooks run in a trusted folder whatever `~/.gemini/trusted_hooks.json` says; Gemini
uses that file only to warn once about project hooks it has not seen, and then adds them
itself. The install of a project hook adds its key there (`name:command`, under the project
root), which is the user's own "yes, I put it there", and the uninstall removes it again, the
project's list and the file too when nothing else is left in them.

The command names the `tokens` executable (or the Python running tokenlab) by its absolute
path, quoted: Gemini runs hooks through `bash -c` with its own environment, whose PATH may
not hold the venv.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tokenlab.agent.json_settings import Change, child, load, put_entry, remove_entries, write

HOOK_NAME = "tokenlab"
EVENT = "AfterTool"
# Gemini's tool names; the matcher is a regular expression searched in the name, so anchored.
DEFAULT_TOOLS = ("run_shell_command", "read_file", "grep_search", "glob", "mcp_.*")
HOOK_TIMEOUT_MS = 30_000  # a hook that times out leaves the tool's output as it was


def gemini_dir(env: Mapping[str, str]) -> Path:
    """Gemini's user folder: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`."""
    home = env.get("GEMINI_CLI_HOME") or env.get("HOME") or str(Path.home())
    return Path(home) / ".gemini"


def settings_path(user: bool, env: Mapping[str, str], project: Path) -> Path:
    return gemini_dir(env) / "settings.json" if user else project / ".gemini" / "settings.json"


def trusted_hooks_path(env: Mapping[str, str]) -> Path:
    return gemini_dir(env) / "trusted_hooks.json"


def hook_command(executable: str | None = None) -> str:
    """`/abs/tokens hook gemini`, or `/abs/python -m tokenlab hook gemini` without a `tokens`
    script beside the running Python."""
    if executable is None:
        script = Path(sys.executable).with_name("tokens")
        argv = [str(script)] if script.is_file() else [sys.executable, "-m", "tokenlab"]
    else:
        argv = [executable]
    return shlex.join([*argv, "hook", "gemini"])


def is_ours(entry: object) -> bool:
    """Whether a hook entry runs `… tokens hook gemini` or `… -m tokenlab hook gemini`."""
    if not isinstance(entry, Mapping) or not isinstance(entry.get("command"), str):
        return False
    try:
        argv = shlex.split(entry["command"])
    except ValueError:
        return False
    if len(argv) >= 3 and os.path.basename(argv[0]) == "tokens" and argv[1:3] == ["hook", "gemini"]:
        return True
    return argv[1:5] == ["-m", "tokenlab", "hook", "gemini"]


def our_entry(command: str) -> dict[str, Any]:
    return {"name": HOOK_NAME, "type": "command", "command": command, "timeout": HOOK_TIMEOUT_MS}


def tool_matcher(tools: Sequence[str]) -> str:
    """Gemini's matcher for `tools` (names or regular expressions), anchored at both ends."""
    return "^(" + "|".join(tools) + ")$"


def install(path: Path, command: str, tools: Sequence[str] = DEFAULT_TOOLS) -> Change:
    """Add (or update) our AfterTool entry for `tools` in the settings file at `path`."""
    data, style = load(path)
    hooks = child(data, "hooks", dict, path)
    groups = child(hooks, EVENT, list, path)
    change = put_entry(groups, tool_matcher(tools), our_entry(command), is_ours, keep_matcher=False)
    if change is not Change.UNCHANGED:
        write(path, data, style)
    return change


def uninstall(path: Path) -> Change:
    """Remove our entries, and any group, list or object that only they filled."""
    if not path.exists():
        return Change.ABSENT
    data, style = load(path)
    hooks = data.get("hooks")
    if not isinstance(hooks, dict) or not remove_entries(hooks, EVENT, is_ours):
        return Change.ABSENT
    if not hooks:
        del data["hooks"]
    write(path, data, style)
    return Change.REMOVED


def hook_key(command: str) -> str:
    """The key Gemini keeps for a trusted command hook: `<name>:<command>`."""
    return f"{HOOK_NAME}:{command}"


def trust(path: Path, project: Path, command: str) -> Change:
    """Add our hook's key to the project's list in trusted_hooks.json (at `path`)."""
    data, style = load(path)
    keys = child(data, str(project), list, path)
    if hook_key(command) in keys:
        return Change.UNCHANGED
    keys.append(hook_key(command))
    write(path, data, style)
    return Change.ADDED


def distrust(path: Path, project: Path) -> Change:
    """Remove our hooks' keys from the project's list; an emptied list goes, and an emptied
    file too (Gemini creates it when it first trusts a project hook)."""
    if not path.exists():
        return Change.ABSENT
    data, style = load(path)
    keys = data.get(str(project))
    if not isinstance(keys, list):
        return Change.ABSENT
    kept = [key for key in keys if not (isinstance(key, str) and _our_key(key))]
    if len(kept) == len(keys):
        return Change.ABSENT
    if kept:
        data[str(project)] = kept
    else:
        del data[str(project)]
    if data:
        write(path, data, style)
    else:
        path.unlink()
    return Change.REMOVED


def _our_key(key: str) -> bool:
    name, _, command = key.partition(":")
    return name == HOOK_NAME and is_ours({"command": command})
