"""Codex's hook files: adding our hook to `hooks.json`, trusting it in `config.toml`, and undoing both.

Codex reads hooks from `$CODEX_HOME/hooks.json` (`~/.codex` without the variable) and from a
trusted project's `.codex/hooks.json`, and runs a hook only when `config.toml` in its user
folder holds a `[hooks.state."<file>:<event>:<group>:<handler>"]` entry whose
`trusted_hash` is the hash of that hook (`trust_hash`, recipe measured in docs/hosts.md).
The user asks for our hook by running `tokens hook install codex`, so install writes that
entry and says so.

`hooks.json` is edited as JSON, its formatting kept byte for byte or left alone with an
error (`json_settings.load`): our group is appended to the PreToolUse list (matcher
`Bash`) and to the PostToolUse list (matcher `mcp__.*`). `config.toml` is never
re-serialised: one clearly delimited block of text is appended, and the result must still
parse with `tomllib`. The block also records, as comments, what install created (the files,
folders and JSON keys that were absent), so `uninstall` removes our entries, that block
and exactly those things, and both files are back byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tokenlab.agent.codex_rules import codex_home
from tokenlab.agent.json_settings import Change, entries_in, runs_hook, write_atomic
from tokenlab.agent.json_settings import load as load_json
from tokenlab.agent.json_settings import write as write_json
from tokenlab.errors import InputError

HOOK_TIMEOUT = 60  # seconds; a hook that times out lets the tool call through unchanged
# Each event our hook is installed for: the name in hooks.json, the name in a trust key, the matcher.
EVENTS = (("PreToolUse", "pre_tool_use", "Bash"), ("PostToolUse", "post_tool_use", "mcp__.*"))
BEGIN = "# >>> tokenlab hook: "
END = "# <<< tokenlab hook: "
CREATED = "# created: "


def hooks_path(user: bool, env: Mapping[str, str], project: Path) -> Path:
    return (codex_home(env) if user else project.absolute() / ".codex") / "hooks.json"


def config_path(env: Mapping[str, str]) -> Path:
    return codex_home(env) / "config.toml"


def hook_command(tokens_argv: Sequence[str]) -> str:
    return shlex.join([*tokens_argv, "hook", "codex"])


def is_ours(entry: object) -> bool:
    """Whether a hook entry runs `tokens hook codex` (or `<python> -m tokenlab hook codex`)."""
    return runs_hook(entry, "codex")


def trust_hash(event_label: str, matcher: str | None, handler: Mapping[str, Any]) -> str:
    """Codex's hash of one hook: SHA-256 of the compact, key-sorted JSON of its identity."""
    identity: dict[str, Any] = {
        "event_name": event_label,
        "hooks": [
            {
                "type": "command",
                "command": handler["command"],
                "timeout": handler.get("timeout", 600),
                "async": handler.get("async", False),
            }
        ],
    }
    if matcher is not None:
        identity["matcher"] = matcher
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Installed:
    change: Change
    trusted: tuple[str, ...]  # the trust keys written to config.toml


def install(hooks_file: Path, config_file: Path, command: str) -> Installed:
    """Add our hook for both events to `hooks_file` and trust it in `config_file`."""
    hooks_file = hooks_file.absolute()
    before = _read_text(config_file)
    earlier = _block(before, hooks_file)
    created = _created(earlier) if earlier else _absent(hooks_file, config_file)
    data, style = load_json(hooks_file)
    _strip(data, created)
    hooks = _child(data, "hooks", dict, hooks_file)
    entry = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT}
    trust = []
    for event, label, matcher in EVENTS:
        if event not in hooks and "hooks" not in created and f"hooks.{event}" not in created:
            created.append(f"hooks.{event}")
        groups = _child(hooks, event, list, hooks_file)
        groups.append({"matcher": matcher, "hooks": [entry]})
        key = f"{hooks_file}:{label}:{len(groups) - 1}:0"
        trust.append((key, trust_hash(label, matcher, entry)))
    rest = before.replace(earlier, "") if earlier else before
    config_text = rest + _render_block(hooks_file, created, trust)
    _check_toml(config_text, config_file)
    new_json = style.dump(data).encode("utf-8")
    old_json = hooks_file.read_bytes() if hooks_file.exists() else None
    if new_json == old_json and config_text == before:
        return Installed(Change.UNCHANGED, tuple(key for key, _ in trust))
    for folder in (hooks_file.parent, config_file.parent):
        _make_folder(folder)
    write_json(hooks_file, data, style)
    write_atomic(config_file, config_text.encode("utf-8"))
    return Installed(Change.UPDATED if earlier else Change.ADDED, tuple(key for key, _ in trust))


def uninstall(hooks_file: Path, config_file: Path) -> Change:
    """Remove our entries, our trust block, and whatever install created."""
    hooks_file = hooks_file.absolute()
    text = _read_text(config_file)
    block = _block(text, hooks_file)
    created = _created(block) if block else []
    removed = False
    if hooks_file.exists():
        data, style = load_json(hooks_file)
        if _strip(data, created):
            removed = True
            if data == {} and str(hooks_file) in created:
                hooks_file.unlink()
            else:
                write_json(hooks_file, data, style)
    if block:
        removed = True
        rest = text.replace(block, "")
        if rest == "" and str(config_file) in created:
            config_file.unlink()
        else:
            write_atomic(config_file, rest.encode("utf-8"))
    for path in created:
        if path.endswith("/"):
            try:
                Path(path).rmdir()
            except OSError:
                pass  # not empty (the user put something there) or already gone: it stays
    return Change.REMOVED if removed else Change.ABSENT


def _strip(data: dict[str, Any], created: Sequence[str]) -> bool:
    """Remove our entries, then the groups they alone filled and the keys install created
    that are empty now; whether there were any."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return False
    found = False
    for event, _, _ in EVENTS:
        groups = hooks.get(event)
        if not isinstance(groups, list):
            continue
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                kept = [entry for entry in group["hooks"] if not is_ours(entry)]
                found = found or len(kept) != len(group["hooks"])
                group["hooks"][:] = kept
        groups[:] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") == [])]
        if not groups and (f"hooks.{event}" in created or "hooks" in created):
            del hooks[event]
    if not hooks and "hooks" in created:
        del data["hooks"]
    return found


def _absent(hooks_file: Path, config_file: Path) -> list[str]:
    """What install is about to create: folders (with a trailing slash), files, JSON keys."""
    created = []
    for folder in (hooks_file.parent, config_file.parent):
        missing = [f for f in (folder, *folder.parents) if not f.exists()]
        created += [f"{f}/" for f in missing if f"{f}/" not in created]
    for path in (hooks_file, config_file):
        if not path.exists():
            created.append(str(path))
    if not hooks_file.exists() or not isinstance(load_json(hooks_file)[0].get("hooks"), dict):
        created.append("hooks")
    return created


def _render_block(hooks_file: Path, created: Sequence[str], trust: Sequence[tuple[str, str]]) -> str:
    lines = [f"{BEGIN}{hooks_file} (trusted by `tokens hook install codex`; uninstall removes this block)"]
    lines += [f"{CREATED}{path}" for path in created]
    for key, digest in trust:
        lines += [f"[hooks.state.{json.dumps(key)}]", f'trusted_hash = "{digest}"']
    lines.append(f"{END}{hooks_file}")
    return "\n" + "\n".join(lines) + "\n"


def _block(text: str, hooks_file: Path) -> str:
    """Our block for `hooks_file` in config.toml's text, with the newline before it; '' if none."""
    name = re.escape(str(hooks_file))
    found = re.search(rf"\n{re.escape(BEGIN)}{name} \(.*?\n{re.escape(END)}{name}\n", text, re.DOTALL)
    return found.group(0) if found else ""


def _created(block: str) -> list[str]:
    return [line[len(CREATED) :] for line in block.splitlines() if line.startswith(CREATED)]


def _check_toml(text: str, path: Path) -> None:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InputError(
            f"{path}: adding the trust entry would not leave valid TOML ({error}); "
            "is this hook already trusted there by hand?"
        ) from None


def _read_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return ""
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read {path}: {error}") from None


def _child(parent: dict[str, Any], key: str, kind: type, path: Path) -> Any:
    if key not in parent:
        parent[key] = kind()
    if not isinstance(parent[key], kind):
        raise InputError(f"{path}: {key!r} is not a JSON {'object' if kind is dict else 'array'}")
    return parent[key]


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"cannot create {folder}: {error.strerror}") from None


def project_trusted(config_file: Path, project: Path) -> bool:
    """Whether `config_file` marks `project` trusted (`[projects."<folder>"] trust_level =
    "trusted"`): Codex loads a project's `.codex/hooks.json` only then (measured with 0.169.0;
    an untrusted project's hook never ran, silently)."""
    try:
        data = tomllib.loads(_read_text(config_file))
    except tomllib.TOMLDecodeError:
        return False
    projects = data.get("projects")
    entry = projects.get(str(project.absolute())) if isinstance(projects, dict) else None
    return isinstance(entry, dict) and entry.get("trust_level") == "trusted"


def installed(hooks_file: Path) -> list[tuple[str, str]]:
    """Our entries in `hooks_file`: (event, matcher) each."""
    return entries_in(hooks_file, [event for event, _, _ in EVENTS], is_ours)
