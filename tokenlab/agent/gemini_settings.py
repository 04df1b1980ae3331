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

The tail `read_file` that shows the visible text (gemini_after_tool.py) goes through Gemini's
policy and tool list like any call; if it were refused, the model would get the refusal
instead of the output. `read_file_refusable` looks for anything that could refuse it (a
policy rule on `read_file` that is not `allow`, `read_file` left out of the tools) and the
hook then leaves every output alone. It reads the policies and settings it can see (system
and user policy folders, `policyPaths`, user and project settings); a policy given on
Gemini's command line (`--policy`) is beyond its sight.

The command names the `tokens` executable (or the Python running tokenlab) by its absolute
path, quoted: Gemini runs hooks through `bash -c` with its own environment, whose PATH may
not hold the venv.
"""

from __future__ import annotations

import fnmatch
import json
import shlex
import sys
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tokenlab.agent.json_settings import Change, child, entries_in, load, put_entry, remove_entries, runs_hook, write

HOOK_NAME = "tokenlab"
EVENT = "AfterTool"
# Gemini's tool names; the matcher is a regular expression searched in the name, so anchored.
DEFAULT_TOOLS = ("run_shell_command", "read_file", "grep_search", "glob", "mcp_.*")
HOOK_TIMEOUT_MS = 30_000  # a hook that times out leaves the tool's output as it was
SYSTEM_POLICIES = Path("/etc/gemini-cli/policies")


def gemini_dir(env: Mapping[str, str]) -> Path:
    """Gemini's user folder: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`."""
    home = env.get("GEMINI_CLI_HOME") or env.get("HOME") or str(Path.home())
    return Path(home) / ".gemini"


def settings_path(user: bool, env: Mapping[str, str], project: Path) -> Path:
    return gemini_dir(env) / "settings.json" if user else project / ".gemini" / "settings.json"


def trusted_hooks_path(env: Mapping[str, str]) -> Path:
    return gemini_dir(env) / "trusted_hooks.json"


def hook_command(executable: str | None = None) -> str:
    """`/abs/tokens hook gemini || exit 1`, or `/abs/python -m tokenlab hook gemini || exit 1`
    without a `tokens` script beside the running Python.

    Gemini reads any exit status but 0 and 1 as "block this tool's result", with stderr as the
    reason: a `tokens` that is gone (exit 127) would block every covered tool. `|| exit 1`
    turns that into a warning, and the tool's own output stands."""
    if executable is None:
        script = Path(sys.executable).with_name("tokens")
        argv = [str(script)] if script.is_file() else [sys.executable, "-m", "tokenlab"]
    else:
        argv = [executable]
    return shlex.join([*argv, "hook", "gemini"]) + " || exit 1"


def is_ours(entry: object) -> bool:
    """Whether a hook entry runs `… tokens hook gemini` or `… -m tokenlab hook gemini`."""
    return runs_hook(entry, "gemini")


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


# --- what could refuse the tail read_file -----------------------------------------------------


def read_file_refusable(env: Mapping[str, str], project: Path, given: Sequence[Path] = ()) -> bool:
    """Whether a policy rule or a setting the hook can see might refuse a `read_file` call;
    `given` are the policy files and folders Gemini was started with (`command_line_policies`).
    An unreadable or missing file counts as refusing: the cost is only a missed replacement."""
    if any(not path.exists() for path in given):
        return True
    user = _json_object(gemini_dir(env) / "settings.json")
    project_settings = _json_object(project / ".gemini" / "settings.json")
    if user is None or project_settings is None:
        return True
    if _tools_leave_out_read_file(user) or _tools_leave_out_read_file(project_settings):
        return True
    extra = user.get("policyPaths")
    folders = [SYSTEM_POLICIES, gemini_dir(env) / "policies"]
    folders += [Path(str(path)).expanduser() for path in extra] if isinstance(extra, list) else []
    files = [path for folder in [*folders, *given] for path in _policy_files(folder)]
    return any(_refuses_read_file(path) for path in files)


POLICY_OPTIONS = ("--policy", "--admin-policy")


def command_line_policies(processes: Iterable[tuple[Sequence[str], Path]]) -> list[Path]:
    """The policy files and folders named by `--policy` or `--admin-policy` in the command
    lines above the hook (`host_env.ancestors`): Gemini loads them beside its own folders and
    tells hooks nothing of them. Each option is repeatable and comma-separated (its yargs
    definition in 0.61.0); a relative path is taken from that process's folder."""
    found: list[Path] = []
    for argv, cwd in processes:
        items = iter(argv)
        for arg in items:
            name, equals, value = arg.partition("=")
            if name not in POLICY_OPTIONS:
                continue
            value = value if equals else next(items, "")
            found += [cwd / Path(part).expanduser() for part in value.split(",") if part.strip()]
    return found


def _json_object(path: Path) -> dict[str, Any] | None:
    """A settings file's object; {} when absent, None when it cannot be read as one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _tools_leave_out_read_file(settings: dict[str, Any]) -> bool:
    tools = settings.get("tools")
    if not isinstance(tools, dict):
        return False
    core, excluded = tools.get("core"), tools.get("exclude")
    return (isinstance(core, list) and "read_file" not in core) or (
        isinstance(excluded, list) and "read_file" in excluded
    )


def _policy_files(folder: Path) -> list[Path]:
    if folder.is_file():
        return [folder]
    return sorted(folder.glob("*.toml")) if folder.is_dir() else []


def _refuses_read_file(path: Path) -> bool:
    try:
        rules = tomllib.loads(path.read_text(encoding="utf-8")).get("rule", [])
    except (OSError, ValueError):
        return True
    if not isinstance(rules, list):
        return True
    return any(
        not isinstance(rule, dict)
        or (
            rule.get("decision") != "allow"
            and rule.get("mcpName") is None
            and _names_read_file(rule.get("toolName"))
        )
        for rule in rules
    )


def _names_read_file(tool_name: object) -> bool:
    """Whether a rule's `toolName` (absent: every tool; a name, a wildcard or a list) covers read_file."""
    if tool_name is None:
        return True
    names = tool_name if isinstance(tool_name, list) else [tool_name]
    return any(not isinstance(name, str) or fnmatch.fnmatchcase("read_file", name) for name in names)


def installed(path: Path) -> list[tuple[str, str]]:
    """Our entries in the settings file at `path`: (event, matcher) each."""
    return entries_in(path, (EVENT,), is_ours)
