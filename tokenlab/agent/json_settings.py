"""JSON settings files that people edit by hand: changing our entries and nothing else.

Shared by every agent host whose settings are JSON (Claude Code, Codex's hooks.json, Gemini CLI). A file is
parsed with its key order kept and written back in the style it was read in (indent, ASCII
escapes, line ends, final newline); when no style reproduces the original bytes exactly, it is
left alone with an error rather than reformatted, so that an uninstall can give back the very
bytes an install started from. A call that changes nothing should not write; a write is a
temp file in the same folder, fsynced, renamed over the original (through a symlink to its
target).
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable, Iterable, Mapping
from enum import Enum
from pathlib import Path

from tokenlab.agent.launcher import runs_tokenlab, tokenlab_args
from tokenlab.errors import InputError

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing on every call

if TYPE_CHECKING:
    from typing import Any


class Change(str, Enum):
    ADDED = "added"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    REMOVED = "removed"
    ABSENT = "absent"


def child(parent: dict[str, Any], key: str, kind: type, path: Path) -> Any:
    if key not in parent:
        parent[key] = kind()
    if not isinstance(parent[key], kind):
        raise InputError(f"{path}: {key!r} is not a JSON {'object' if kind is dict else 'array'}")
    return parent[key]


# --- hook entries: {"hooks": {EVENT: [{"matcher": M, "hooks": [ENTRY, …]}, …]}} -------------
# Claude Code and Gemini CLI share this shape; `is_ours` tells our entries from the user's.

Ours = Callable[[object], bool]


def put_entry(
    groups: list[Any], matcher: str, entry: dict[str, Any], is_ours: Ours, *, keep_matcher: bool
) -> Change:
    """Our entry in one event's groups, under `matcher`. `keep_matcher`: an entry already
    there stays in its group (the user may have moved it), only its command updated."""
    places = our_places(groups, is_ours)
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


def remove_entries(hooks: dict[str, Any], event: str, is_ours: Ours) -> bool:
    """Remove our entries from one event's groups; whether there were any."""
    groups = hooks.get(event)
    if not isinstance(groups, list):
        return False
    places = our_places(groups, is_ours)
    if not places:
        return False
    for group, index in reversed(places):
        del group["hooks"][index]
    emptied = {id(group) for group, _ in places if not group["hooks"]}
    groups[:] = [group for group in groups if id(group) not in emptied]
    if not groups:
        del hooks[event]
    return True


def our_places(groups: list[Any], is_ours: Ours) -> list[tuple[dict[str, Any], int]]:
    return [
        (group, index)
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for index, entry in enumerate(group["hooks"])
        if is_ours(entry)
    ]


def runs_hook(entry: object, host: str) -> bool:
    """Whether a hook entry runs tokenlab's hook for `host`, whatever follows it:
    `…/tokens hook <host>` or `<python> -m tokenlab hook <host>`."""
    if not isinstance(entry, Mapping) or not isinstance(entry.get("command"), str):
        return False
    try:
        argv = shlex.split(entry["command"])
    except ValueError:
        return False
    return runs_tokenlab(argv) and tokenlab_args(argv)[:2] == ["hook", host]


def entries_in(path: Path, events: Iterable[str], is_ours: Ours) -> list[tuple[str, str]]:
    """Our entries for `events` in the settings file at `path`: (event, matcher) each; none
    when the file is missing or cannot be read as a JSON object (`tokens hook status`)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return []
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(hooks, dict):
        return []
    return [
        (event, str(group.get("matcher", "")))
        for event in events
        if isinstance(hooks.get(event), list)
        for group, _ in our_places(hooks[event], is_ours)
    ]


class JsonStyle:
    """How a settings file was written, so a rewrite keeps it. (A plain class: see
    `shell_split.Word`.)"""

    __slots__ = ("indent", "ensure_ascii", "leading", "trailing", "crlf")

    def __init__(
        self, indent: str | None, ensure_ascii: bool, leading: str = "", trailing: str = "\n", crlf: bool = False
    ) -> None:
        self.indent = indent
        self.ensure_ascii = ensure_ascii
        self.leading = leading
        self.trailing = trailing
        self.crlf = crlf

    def dump(self, data: Any) -> str:
        separators = (",", ": ") if self.indent is not None else (", ", ": ")
        body = json.dumps(data, indent=self.indent, ensure_ascii=self.ensure_ascii, separators=separators)
        text = self.leading + body + self.trailing
        return text.replace("\n", "\r\n") if self.crlf else text


DEFAULT_STYLE = JsonStyle(indent="  ", ensure_ascii=False)


def load(path: Path) -> tuple[dict[str, Any], JsonStyle]:
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
    return data, style_of(text, data, path)


def style_of(text: str, data: dict[str, Any], path: Path) -> JsonStyle:
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


def write(path: Path, data: dict[str, Any], style: JsonStyle) -> None:
    write_atomic(path, style.dump(data).encode("utf-8"))


def write_atomic(path: Path, content: bytes) -> None:
    """Replace the file at `path` (through a symlink, its target) with `content`, keeping its mode."""
    import tempfile  # here only: every hook call imports this module, few write settings

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
