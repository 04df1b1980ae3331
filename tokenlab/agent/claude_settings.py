"""Claude Code's settings files: adding or removing our hook (reading their permission
rules, which the hook does on every call, is `claude_permissions`).

`install` and `uninstall` change only our hook entries, recognised by their command
(`<python> -S <folder>/tokenlab/__main__.py hook claude-code …`, or `<python> -m tokenlab …`
and `…/tokens hook claude-code …` as earlier versions wrote it; tokenlab is named by absolute path, see `launcher`): one for PreToolUse
(Bash, the rewrite) and one for PostToolUse (the tools whose output it replaces), the same
command for both. The file is parsed with its key order kept and written back in the style
it was read in (indent, ASCII escapes, line ends, final newline); when no
style reproduces the original bytes exactly, it is left alone with an error rather than
reformatted. A call that changes nothing does not write; a write is a temp file in the
same folder, fsynced, renamed over the original (through a symlink to its target).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from tokenlab.agent.claude_permissions import config_dir
from tokenlab.agent.json_settings import (
    Change,
    child,
    entries_in,
    load,
    put_entry,
    remove_entries,
    runs_hook,
    write,
)
from tokenlab.agent.launcher import tokens_command

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing on every call

if TYPE_CHECKING:
    from typing import Any

# The tools whose output the PostToolUse entry replaces (`hook install --tools`).
DEFAULT_TOOLS = ("Bash", "Read", "Grep", "Glob", "WebFetch", "mcp__.*")
HOOK_TIMEOUT = 10  # seconds; a hook that times out lets the command through unchanged


def settings_path(user: bool, env: Mapping[str, str], project: Path) -> Path:
    return Path(config_dir(env)) / "settings.json" if user else project / ".claude" / "settings.json"


def hook_command(read_only: bool = False, excludes: tuple[str, ...] = ()) -> str:
    """`<python> -S <entry file> hook claude-code [--allow-read-only] [--exclude PATTERN]…`."""
    options = ["--allow-read-only"] if read_only else []
    options += [item for pattern in excludes for item in ("--exclude", pattern)]
    return tokens_command("hook", "claude-code", *options)


def is_ours(entry: object) -> bool:
    """Whether a hook entry runs `tokens hook claude-code` (with any options)."""
    return runs_hook(entry, "claude-code")


def our_entry(command: str) -> dict[str, Any]:
    return {"type": "command", "command": command, "timeout": HOOK_TIMEOUT}


def install(path: Path, command: str, tools: Sequence[str] = DEFAULT_TOOLS) -> Change:
    """Add (or update) our PreToolUse entry for Bash and our PostToolUse entry for `tools`
    (none: no PostToolUse entry, and an earlier one is removed) in the settings file at `path`."""
    data, style = load(path)
    hooks = child(data, "hooks", dict, path)
    entry = our_entry(command)
    changes = [put_entry(child(hooks, "PreToolUse", list, path), "Bash", entry, is_ours, keep_matcher=True)]
    if tools:
        post = child(hooks, "PostToolUse", list, path)
        changes.append(put_entry(post, tool_matcher(tools), entry, is_ours, keep_matcher=False))
    elif remove_entries(hooks, "PostToolUse", is_ours):
        changes.append(Change.UPDATED)
    if all(change is Change.UNCHANGED for change in changes):
        return Change.UNCHANGED
    write(path, data, style)
    return Change.ADDED if Change.ADDED in changes else Change.UPDATED


def tool_matcher(tools: Sequence[str]) -> str:
    """Claude Code's matcher for `tools`: names (or regular expressions) joined by `|`."""
    return "|".join(tools)


def uninstall(path: Path) -> Change:
    """Remove our entries, and any group, list or object that only they filled."""
    if not path.exists():
        return Change.ABSENT
    data, style = load(path)
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return Change.ABSENT
    removed = [remove_entries(hooks, event, is_ours) for event in ("PreToolUse", "PostToolUse")]
    if not any(removed):
        return Change.ABSENT
    if not hooks:
        del data["hooks"]
    write(path, data, style)
    return Change.REMOVED


def installed(path: Path) -> list[tuple[str, str]]:
    """Our entries in the settings file at `path`: (event, matcher) each."""
    return entries_in(path, ("PreToolUse", "PostToolUse"), is_ours)
