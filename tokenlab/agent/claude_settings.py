"""Claude Code's settings files: reading their permission rules, and adding or removing our hook.

Reading (`permission_settings`) is shaped by one asymmetry. An allow rule the hook sees but
Claude Code does not load would let the hook approve a command Claude Code would have
asked about; a deny or ask rule it sees needlessly only costs a rewrite. So allow rules
come only from the files Claude Code certainly loads (user, project, local, managed),
while deny and ask rules also come from every `.claude/` folder above the working folder
and from `~/.claude` when `CLAUDE_CONFIG_DIR` points elsewhere. A file that exists but
cannot be read as a JSON object counts as asking about every Bash command.

Writing (`install`, `uninstall`) changes only our hook entries, recognised by their command
(`tokens hook claude-code …`): one for PreToolUse (Bash, the rewrite) and one for
PostToolUse (the tools whose output it replaces), the same command for both. The file is parsed with its key order kept and written back
in the style it was read in (indent, ASCII escapes, line ends, final newline); when no
style reproduces the original bytes exactly, it is left alone with an error rather than
reformatted. A call that changes nothing does not write; a write is a temp file in the
same folder, fsynced, renamed over the original (through a symlink to its target).
"""

from __future__ import annotations

import json
import os
import shlex
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from tokenlab.errors import InputError

HOOK_COMMAND = "tokens hook claude-code"
# The tools whose output the PostToolUse entry replaces (`hook install --tools`).
DEFAULT_TOOLS = ("Bash", "Read", "Grep", "Glob", "WebFetch", "mcp__.*")
HOOK_TIMEOUT = 10  # seconds; a hook that times out lets the command through unchanged
# A settings file that exists but cannot be parsed may hold deny or ask rules.
UNREADABLE: dict[str, Any] = {"permissions": {"ask": ["Bash"]}}
MANAGED_DIRS = (Path("/etc/claude-code"), Path("/Library/Application Support/ClaudeCode"))


class Change(str, Enum):
    ADDED = "added"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    REMOVED = "removed"
    ABSENT = "absent"


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
    parts = [HOOK_COMMAND] + (["--allow-read-only"] if read_only else [])
    parts += [f"--exclude {shlex.quote(pattern)}" for pattern in excludes]
    return " ".join(parts)


def is_ours(entry: object) -> bool:
    """Whether a hook entry runs `tokens hook claude-code` (with any options)."""
    if not isinstance(entry, Mapping) or not isinstance(entry.get("command"), str):
        return False
    try:
        argv = shlex.split(entry["command"])
    except ValueError:
        return False
    return len(argv) >= 3 and os.path.basename(argv[0]) == "tokens" and argv[1:3] == ["hook", "claude-code"]


def our_entry(command: str) -> dict[str, Any]:
    return {"type": "command", "command": command, "timeout": HOOK_TIMEOUT}


def install(path: Path, command: str, tools: Sequence[str] = DEFAULT_TOOLS) -> Change:
    """Add (or update) our PreToolUse entry for Bash and our PostToolUse entry for `tools`
    (none: no PostToolUse entry, and an earlier one is removed) in the settings file at `path`."""
    data, style = load_json(path)
    hooks = _child(data, "hooks", dict, path)
    entry = our_entry(command)
    changes = [_put(_child(hooks, "PreToolUse", list, path), "Bash", entry, keep_matcher=True)]
    if tools:
        post = _child(hooks, "PostToolUse", list, path)
        changes.append(_put(post, tool_matcher(tools), entry, keep_matcher=False))
    elif _remove(hooks, "PostToolUse"):
        changes.append(Change.UPDATED)
    if all(change is Change.UNCHANGED for change in changes):
        return Change.UNCHANGED
    write_json(path, data, style)
    return Change.ADDED if Change.ADDED in changes else Change.UPDATED


def tool_matcher(tools: Sequence[str]) -> str:
    """Claude Code's matcher for `tools`: names (or regular expressions) joined by `|`."""
    return "|".join(tools)


def _put(groups: list[Any], matcher: str, entry: dict[str, Any], *, keep_matcher: bool) -> Change:
    """Our entry in one event's groups, under `matcher`. `keep_matcher`: an entry already
    there stays in its group (the user may have moved it), only its command updated."""
    places = _our_places(groups)
    fits = [(g, i) for g, i in places if keep_matcher or g.get("matcher") == matcher]
    if len(places) == 1 and fits and places[0][0]["hooks"][places[0][1]] == entry:
        return Change.UNCHANGED
    if fits:
        first_group, first_index = fits[0]
        first_group["hooks"][first_index] = entry
        stale = [(g, i) for g, i in places if (g, i) != fits[0]]
    else:
        stale = places
    for group, index in reversed(stale):
        del group["hooks"][index]
    emptied = {id(group) for group, _ in stale if not group["hooks"]}
    groups[:] = [group for group in groups if id(group) not in emptied]
    if fits:
        return Change.UPDATED
    groups.append({"matcher": matcher, "hooks": [entry]})
    return Change.ADDED if not places else Change.UPDATED


def uninstall(path: Path) -> Change:
    """Remove our entries, and any group, list or object that only they filled."""
    if not path.exists():
        return Change.ABSENT
    data, style = load_json(path)
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return Change.ABSENT
    removed = [_remove(hooks, event) for event in ("PreToolUse", "PostToolUse")]
    if not any(removed):
        return Change.ABSENT
    if not hooks:
        del data["hooks"]
    write_json(path, data, style)
    return Change.REMOVED


def _remove(hooks: dict[str, Any], event: str) -> bool:
    """Remove our entries from one event's groups; whether there were any."""
    groups = hooks.get(event)
    if not isinstance(groups, list):
        return False
    places = list(_our_places(groups))
    if not places:
        return False
    for group, index in reversed(places):
        del group["hooks"][index]
    emptied = {id(group) for group, _ in places if not group["hooks"]}
    groups[:] = [group for group in groups if id(group) not in emptied]
    if not groups:
        del hooks[event]
    return True


def _our_places(pre_tool_use: list[Any]) -> list[tuple[dict[str, Any], int]]:
    return [
        (group, index)
        for group in pre_tool_use
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for index, entry in enumerate(group["hooks"])
        if is_ours(entry)
    ]


def _child(parent: dict[str, Any], key: str, kind: type, path: Path) -> Any:
    if key not in parent:
        parent[key] = kind()
    if not isinstance(parent[key], kind):
        raise InputError(f"{path}: {key!r} is not a JSON {'object' if kind is dict else 'array'}")
    return parent[key]


@dataclass(frozen=True)
class JsonStyle:
    indent: str | None
    ensure_ascii: bool
    leading: str = ""
    trailing: str = "\n"
    crlf: bool = False

    def dump(self, data: Any) -> str:
        separators = (",", ": ") if self.indent is not None else (", ", ": ")
        body = json.dumps(data, indent=self.indent, ensure_ascii=self.ensure_ascii, separators=separators)
        text = self.leading + body + self.trailing
        return text.replace("\n", "\r\n") if self.crlf else text


DEFAULT_STYLE = JsonStyle(indent="  ", ensure_ascii=False)


def load_json(path: Path) -> tuple[dict[str, Any], JsonStyle]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}, DEFAULT_STYLE
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror}") from None
    try:
        text = raw.decode("utf-8")
        data = json.loads(text) if text.strip() else {}
    except ValueError:
        raise InputError(f"{path} is not valid JSON; fix it or edit it by hand") from None
    if not isinstance(data, dict):
        raise InputError(f"{path} does not hold a JSON object")
    if not text.strip():
        return data, DEFAULT_STYLE
    return data, _style_of(text, data, path)


def _style_of(text: str, data: dict[str, Any], path: Path) -> JsonStyle:
    crlf = "\r\n" in text
    plain = text.replace("\r\n", "\n") if crlf else text
    body = plain.strip()
    leading = plain[: len(plain) - len(plain.lstrip())]
    trailing = plain[len(plain.rstrip()) :]
    indented = next((line for line in body.splitlines()[1:] if line[:1] in (" ", "\t")), None)
    indents: list[str | None] = [indented[: len(indented) - len(indented.lstrip())]] if indented else []
    indents.append(None)
    for indent in indents:
        for ensure_ascii in (False, True):
            style = JsonStyle(indent, ensure_ascii, leading, trailing, crlf)
            if style.dump(data) == text:
                return style
    raise InputError(
        f"{path}: cannot keep its formatting byte for byte; add the hook by hand "
        "(see `tokens hook install --help`)"
    )


def write_json(path: Path, data: dict[str, Any], style: JsonStyle) -> None:
    write_atomic(path, style.dump(data).encode("utf-8"))


def write_atomic(path: Path, content: bytes) -> None:
    """Replace the file at `path` (through a symlink, its target) with `content`, keeping its mode."""
    target = path.resolve() if path.is_symlink() else path
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = target.stat().st_mode & 0o7777 if target.exists() else None
    handle, temp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as temp:
            temp.write(content)
            temp.flush()
            os.fsync(temp.fileno())
        os.chmod(temp_name, mode if mode is not None else 0o666 & ~_umask())
        os.replace(temp_name, target)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


def installed(path: Path) -> list[tuple[str, str]]:
    """Our entries in the settings file at `path`: (event, matcher) each; none when the file
    is missing or unreadable."""
    data = _read(path)
    hooks = data.get("hooks") if data else None
    if not isinstance(hooks, dict):
        return []
    return [
        (event, str(group.get("matcher", "")))
        for event in ("PreToolUse", "PostToolUse")
        if isinstance(hooks.get(event), list)
        for group, _ in _our_places(hooks[event])
    ]
