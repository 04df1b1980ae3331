"""Claude Code's settings files: reading their permission rules, and adding or removing our hook.

Reading (`permission_settings`) is shaped by one asymmetry. An allow rule the hook sees but
Claude Code does not load would let the hook approve a command Claude Code would have
asked about; a deny or ask rule it sees needlessly only costs a rewrite. So allow rules
come only from the files Claude Code certainly loads (user, project, local, managed),
while deny and ask rules also come from every `.claude/` folder above the working folder
and from `~/.claude` when `CLAUDE_CONFIG_DIR` points elsewhere. A file that exists but
cannot be read as a JSON object counts as asking about every Bash command.

Writing (`install`, `uninstall`) changes only our hook entries, recognised by their command
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

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from tokenlab.agent.json_settings import Change, child, entries_in, load, put_entry, remove_entries, runs_hook, write
from tokenlab.agent.launcher import tokens_command

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing on every call

if TYPE_CHECKING:
    from typing import Any

# The tools whose output the PostToolUse entry replaces (`hook install --tools`).
DEFAULT_TOOLS = ("Bash", "Read", "Grep", "Glob", "WebFetch", "mcp__.*")
HOOK_TIMEOUT = 10  # seconds; a hook that times out lets the command through unchanged
# A settings file that exists but cannot be parsed may hold deny or ask rules.
UNREADABLE: dict[str, Any] = {"permissions": {"ask": ["Bash"]}}
MANAGED_DIRS = (Path("/etc/claude-code"), Path("/Library/Application Support/ClaudeCode"))


def config_dir(env: Mapping[str, str]) -> Path:
    """Claude Code's user folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    configured = env.get("CLAUDE_CONFIG_DIR")
    return Path(configured).expanduser() if configured else Path.home() / ".claude"


def permission_settings(hook_input: Mapping[str, Any], env: Mapping[str, str]) -> list[dict[str, Any]]:
    """The settings files whose permission rules apply to this hook call (see the module doc)."""
    cwd = Path(str(hook_input.get("cwd") or os.getcwd()))
    project = Path(env.get("CLAUDE_PROJECT_DIR") or cwd)
    managed = [path for folder in MANAGED_DIRS for path in _managed_files(folder)]
    sure = [config_dir(env) / "settings.json", *_project_files(project)]
    extra = [Path.home() / ".claude" / "settings.json"]
    extra += [path for folder in (cwd, *cwd.parents) for path in _project_files(folder)]

    managed_data = [data for data in map(_read, managed) if data is not None]
    managed_only = any(data.get("allowManagedPermissionRulesOnly") is True for data in managed_data)
    result = list(managed_data)
    seen = {_key(path) for path in managed}
    for path, keep_allow in [(p, not managed_only) for p in sure] + [(p, False) for p in extra]:
        if _key(path) in seen:
            continue
        seen.add(_key(path))
        data = _read(path)
        if data is not None:
            result.append(data if keep_allow else _without_allow(data))
    return result


def _project_files(folder: Path) -> list[Path]:
    return [folder / ".claude" / "settings.json", folder / ".claude" / "settings.local.json"]


def _managed_files(folder: Path) -> list[Path]:
    drop_ins = folder / "managed-settings.d"
    found = sorted(drop_ins.glob("*.json")) if drop_ins.is_dir() else []
    return [folder / "managed-settings.json", *found]


def _key(path: Path) -> str:
    try:
        return str(path.resolve())
    except OSError:
        return str(path)


def _read(path: Path) -> dict[str, Any] | None:
    """A settings file's object; None when absent, `UNREADABLE` when it cannot be used."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError):
        return UNREADABLE
    try:
        data = json.loads(text)
    except ValueError:
        return UNREADABLE
    return data if isinstance(data, dict) else UNREADABLE


def _without_allow(data: dict[str, Any]) -> dict[str, Any]:
    permissions = data.get("permissions")
    if not isinstance(permissions, dict):
        return data
    return {**data, "permissions": {k: v for k, v in permissions.items() if k != "allow"}}


# --- installing ---------------------------------------------------------------------------


def settings_path(user: bool, env: Mapping[str, str], project: Path) -> Path:
    return config_dir(env) / "settings.json" if user else project / ".claude" / "settings.json"


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
