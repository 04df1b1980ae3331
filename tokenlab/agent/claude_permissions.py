"""Which of Claude Code's settings files' permission rules apply to a hook call.

The hook reads them on every Bash call, so this module imports only `json` and `os`
(`pathlib` alone, with the `urllib.parse` and `ipaddress` it imports, cost the hook
process about a tenth of Python's start). `claude_settings` writes the same files.

One asymmetry shapes it. An allow rule the hook sees but Claude Code does not load would
let the hook approve a command Claude Code would have asked about; a deny or ask rule it
sees needlessly only costs a rewrite. So allow rules come only from the files Claude Code
certainly loads (user, project, local, managed), while deny and ask rules also come from
every `.claude/` folder above the working folder and from `~/.claude` when
`CLAUDE_CONFIG_DIR` points elsewhere. A file that exists but cannot be read as a JSON
object counts as asking about every Bash command.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing on every call

if TYPE_CHECKING:
    from typing import Any

# A settings file that exists but cannot be parsed may hold deny or ask rules.
UNREADABLE: dict[str, Any] = {"permissions": {"ask": ["Bash"]}}
MANAGED_DIRS = ("/etc/claude-code", "/Library/Application Support/ClaudeCode")


def config_dir(env: Mapping[str, str]) -> str:
    """Claude Code's user folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`."""
    configured = env.get("CLAUDE_CONFIG_DIR")
    return expand_user(configured, env) if configured else os.path.join(expand_user("~", env), ".claude")


def expand_user(path: str, env: Mapping[str, str]) -> str:
    """`os.path.expanduser(path)` with `env`'s HOME for this process's: the warm worker
    answers hook calls for another process's environment (`worker.py`)."""
    if path != "~" and not path.startswith("~/"):
        return os.path.expanduser(path)  # no `~`, or another user's: no variable is read
    home = env.get("HOME")
    if home is None:  # as `expanduser` without HOME: the password database
        import pwd

        try:
            home = pwd.getpwuid(os.getuid()).pw_dir
        except KeyError:
            return path
    return (home.rstrip("/") + path[1:]) or "/"


def permission_settings(hook_input: Mapping[str, Any], env: Mapping[str, str]) -> list[dict[str, Any]]:
    """The settings files whose permission rules apply to this hook call (see the module doc)."""
    cwd = str(hook_input.get("cwd") or os.getcwd())
    project = env.get("CLAUDE_PROJECT_DIR") or cwd
    managed = [path for folder in MANAGED_DIRS for path in _managed_files(folder)]
    sure = [os.path.join(config_dir(env), "settings.json"), *_project_files(project)]
    extra = [os.path.join(expand_user("~", env), ".claude", "settings.json")]
    extra += [path for folder in _with_parents(cwd) for path in _project_files(folder)]

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


def _with_parents(folder: str) -> list[str]:
    """`folder` and every folder above it, as `Path(folder)` and its `parents` list them."""
    folders = [folder.rstrip("/") or folder[:1] or "."]
    while (parent := os.path.dirname(folders[-1]) or ".") != folders[-1]:
        folders.append(parent)
    return folders


def _project_files(folder: str) -> list[str]:
    settings = os.path.join(folder, ".claude")
    return [os.path.join(settings, "settings.json"), os.path.join(settings, "settings.local.json")]


def _managed_files(folder: str) -> list[str]:
    drop_ins = os.path.join(folder, "managed-settings.d")
    found = []
    if os.path.isdir(drop_ins):
        found = sorted(os.path.join(drop_ins, name) for name in os.listdir(drop_ins) if name.endswith(".json"))
    return [os.path.join(folder, "managed-settings.json"), *found]


def _key(path: str) -> str:
    try:
        return os.path.realpath(path)
    except OSError:
        return path


def _read(path: str) -> dict[str, Any] | None:
    """A settings file's object; None when absent, `UNREADABLE` when it cannot be used."""
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
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
