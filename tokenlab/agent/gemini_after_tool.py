"""Gemini CLI's AfterTool hook: show the model tokenlab's visible text instead of a tool's output.

Gemini 0.61.0 ignores a replacement output in an AfterTool answer. What works (measured,
docs/hosts.md) is a tail call: `tailToolCallRequest: {name: "read_file", args: {file_path}}`
runs `read_file` next, and its result takes the original's place, not flagged as an error.
So the visible text is written to a file, and the answer asks Gemini to read it:

- The file lives in Gemini's own temp folder for the project (`~/.gemini/tmp/<project>/`,
  found from the hook input's `transcript_path`), under `tokenlab/`. `read_file` may read
  there (Gemini allows the workspace and that folder), and the default policy allows
  `read_file` (`read-only.toml`), so the tail call needs no new rule and touches nothing in
  the workspace. A user policy that denies `read_file` would deny the tail call too.
- `read_file` shows a text as it is, unless it has over 2,000 lines, a line over 2,000
  characters or a CRLF; a visible text it would change is not sent (`read_view`).
- The tail call's own AfterTool comes back with `original_request_name`: that one is never
  answered (answering it loops), and its file is deleted (`tail_file`); files left behind by
  a tail call that never ran are pruned after a day.

`decide` owns which outputs are replaced and how; it is pure apart from the file reader and
the pipeline handed in. It reuses the Claude Code hook's rules (post_tool_use.py): source code
read with `read_file` is left alone, data files are replaced; an output that is tokenlab's
visible text already is left alone; small outputs are not analysed. An output is replaced only
when the text the model then gets has fewer tokens than what Gemini would show it: for a
shell command or an MCP tool over 40,000 characters, Gemini's first 8,000 and last 32,000
characters; for `read_file`, the first 2,000 lines.

A shell command's and an MCP tool's result keep Gemini's frame around the visible text:
`<untrusted_context>` (which tells the model the text is data, not instructions) and, for a
shell command, the lines after the output (`Exit Code: 3`, `Process Group PGID: …`), so a
failure stays visible. The whole output (`returnDisplay`, not the cut one) is what is stored.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import secrets
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokenlab import markers
from tokenlab.agent.gemini_settings import gemini_dir
from tokenlab.agent.post_tool_use import (
    CODE_EXTENSIONS,
    DATA_TYPES,
    LOCKFILES,
    MIN_OUTPUT,
    OUR_FOOTER,
    Analyse,
    Read,
    by_tokens_run,
    data_name,
    sole_text,
    with_hint,
)

if TYPE_CHECKING:
    from tokenlab.packet import ContextPacket

# Gemini cuts a shell or MCP result over this many characters (a fifth from the head).
HOST_THRESHOLD = 40_000
# read_file shows this many lines, each cut at this many characters, and reads up to 20 MB.
READ_LINES = 2_000
READ_LINE_CHARS = 2_000
READ_LIMIT = 20 << 20
TAIL_FOLDER = "tokenlab"
TAIL_NAME = re.compile(r"[0-9a-f]{32}-[0-9a-f]{8}\.txt")
TAIL_KEEP_SECONDS = 24 * 3600
SHELL_HEAD = "<untrusted_context>\nOutput: "
UNTRUSTED_END = "\n</untrusted_context>"
# What follows a shell command's output in its result: Error, Exit Code, Signal, PIDs lines.
SHELL_TAIL_LIMIT = 4_096
TRUNCATED_HEADER = (
    "\nIMPORTANT: The file content has been truncated.\n"
    "Status: Showing lines 1-{end} of {total} total lines.\n"
    "Action: To read more of the file, you can use the 'start_line' and 'end_line' parameters "
    "in a subsequent 'read_file' call. For example, to read the next section of the file, "
    "use start_line: {next}.\n\n--- FILE CONTENT (truncated) ---\n"
)


@dataclass(frozen=True)
class Plan:
    """What to analyse for one tool result, and how the visible text is framed for the model."""

    data: bytes
    label: str
    host_text: str  # what Gemini shows the model without tokenlab
    frame: Callable[[str], str] = str
    data_only: bool = False  # replace only when the pipeline classifies it as data


@dataclass(frozen=True)
class Replacement:
    """The text the tail call shows, and the counts the ledger keeps."""

    text: str
    packet: ContextPacket
    visible_tokens: int
    host_tokens: int


def answer(path: Path) -> dict[str, Any]:
    """The AfterTool answer that makes Gemini show the file at `path` instead of the output."""
    request = {"name": "read_file", "args": {"file_path": str(path)}}
    return {"hookSpecificOutput": {"hookEventName": "AfterTool", "tailToolCallRequest": request}}


def decide(
    hook_input: Mapping[str, Any], read: Read, analyse: Analyse, opener: str = "tokens"
) -> Replacement | None:
    """The replacement for one AfterTool call, or None to leave the output as it is; the
    hint names tokenlab as `opener` (`launcher.opener`)."""
    from tokenlab.counting import tokens

    if hook_input.get("hook_event_name") != "AfterTool" or hook_input.get("original_request_name"):
        return None
    plan = plan_for(hook_input, read)
    if plan is None or len(plan.data) < MIN_OUTPUT or OUR_FOOTER.search(plan.data):
        return None
    packet = analyse(plan.data, plan.label)
    if plan.data_only and packet.content_type not in DATA_TYPES:
        return None
    visible = with_hint(packet.visible, opener)
    if markers.parse_footer(visible) is None:
        return None
    text = plan.frame(visible)
    if read_view(text) != text:
        return None  # read_file would not show it as it is
    text_tokens, host_tokens = tokens.count(text), tokens.count(plan.host_text)
    if text_tokens >= host_tokens:
        return None
    return Replacement(text, packet, text_tokens, host_tokens)


def plan_for(hook_input: Mapping[str, Any], read: Read) -> Plan | None:
    tool = hook_input.get("tool_name")
    response = hook_input.get("tool_response")
    tool_input = hook_input.get("tool_input")
    tool_input = tool_input if isinstance(tool_input, Mapping) else {}
    if not isinstance(tool, str) or not isinstance(response, Mapping) or response.get("error"):
        return None
    content, display = response.get("llmContent"), response.get("returnDisplay")
    if tool == "run_shell_command" and isinstance(content, str) and isinstance(display, str):
        return _shell(tool_input, content, display)
    if tool == "read_file" and isinstance(content, str):
        return _read_file(hook_input, tool_input, content, read)
    if tool in ("grep_search", "glob") and isinstance(content, str):
        return _search(tool, tool_input, content, display)
    if tool.startswith("mcp_") and isinstance(content, list) and isinstance(display, str):
        return _mcp(tool, content, display)
    return None


def _shell(tool_input: Mapping[str, Any], content: str, output: str) -> Plan | None:
    command = tool_input.get("command")
    if not isinstance(command, str) or by_tokens_run(command):
        return None
    head = SHELL_HEAD + escape(output)
    rest = content[len(head) :]
    if not content.startswith(head) or not rest.endswith(UNTRUSTED_END) or len(rest) > SHELL_TAIL_LIMIT:
        return None  # not the frame measured: leave it
    from tokenlab.agent.command_line import display_line  # masks a credential in the command line

    def frame(visible: str) -> str:
        return SHELL_HEAD + escape(visible.rstrip("\n")) + rest

    return Plan(
        output.encode("utf-8", errors="surrogatepass"), display_line(command), host_cut(content), frame
    )


def _read_file(
    hook_input: Mapping[str, Any], tool_input: Mapping[str, Any], content: str, read: Read
) -> Plan | None:
    name = tool_input.get("file_path")
    if (
        not isinstance(name, str)
        or tool_input.get("start_line") is not None
        or tool_input.get("end_line") is not None
    ):
        return None  # a part of the file: its visible text would restart the lines at 1
    base = posixpath.basename(name)
    if base.rpartition(".")[2].lower() in CODE_EXTENSIONS and base not in LOCKFILES:
        return None  # source code the agent may edit: left as it is
    path = os.path.join(str(hook_input.get("cwd") or os.getcwd()), name)
    data = read(path, READ_LIMIT)
    if data is None:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if read_view(text) != content:
        return None  # not what read_file showed (changed since, or framed otherwise): leave it
    return Plan(data, f"read_file {name}", content, data_only=not data_name(path))


def _search(tool: str, tool_input: Mapping[str, Any], content: str, display: Any) -> Plan | None:
    """Grep's matches as `path:line:text` lines (Gemini's own `File:`/`L58:` blocks are a shape
    the pipeline does not know), Glob's paths as they are; Gemini's first line (how many were
    found, and whether its limit cut them) stays above the visible text."""
    header, _, listing = content.partition("\n")
    if tool == "grep_search":
        matches = display.get("matches") if isinstance(display, Mapping) else None
        if not isinstance(matches, list) or not all(_match(match) for match in matches):
            return None
        listing = "".join(f"{m['filePath']}:{m['lineNumber']}:{m['line']}\n" for m in matches)
    if not listing.strip():
        return None
    label = f"{tool} {tool_input.get('pattern', '')}"
    return Plan(listing.encode("utf-8"), label, content, lambda visible: header + "\n" + visible)


def _match(match: Any) -> bool:
    return (
        isinstance(match, Mapping)
        and isinstance(match.get("filePath"), str)
        and isinstance(match.get("lineNumber"), int)
        and isinstance(match.get("line"), str)
        and "\n" not in match["line"]
    )


def _mcp(tool: str, content: list[Any], display: str) -> Plan | None:
    if len(content) != 1 or not isinstance(content[0], Mapping):
        return None
    text = content[0].get("text")
    if not isinstance(text, str) or text != untrusted(display):
        return None
    data = sole_text(display) or display
    return Plan(data.encode("utf-8"), tool, host_cut(text), untrusted)


def escape(text: str) -> str:
    """Text inside `<untrusted_context>`, its closing tag escaped as Gemini does."""
    return text.replace("</untrusted_context>", "&lt;/untrusted_context&gt;")


def untrusted(text: str) -> str:
    return "<untrusted_context>\n" + escape(text) + UNTRUSTED_END


def host_cut(text: str) -> str:
    """What Gemini shows of a shell or MCP result: up to 40,000 characters as it is; above
    that a notice naming the file with the whole of it, the first 8,000 and last 32,000."""
    if len(text) <= HOST_THRESHOLD:
        return text
    head_chars = HOST_THRESHOLD // 5
    tail_chars = HOST_THRESHOLD - head_chars
    omitted = len(text) - head_chars - tail_chars
    path = "/home/user/.gemini/tmp/project/tool-outputs/session-0/run_shell_command_0.txt"
    return (
        f"Output too large. Showing first {head_chars:,} and last {tail_chars:,} characters. "
        f"For full output see: {path}\n{text[:head_chars]}\n\n... [{omitted:,} characters omitted] ...\n\n"
        f"{text[-tail_chars:]}"
    )


def read_view(text: str) -> str:
    """What `read_file` shows the model for a text file holding `text` (no range asked)."""
    lines = re.split(r"\r?\n", text)
    shown, cut = [], False
    for line in lines[:READ_LINES]:
        if _js_length(line) > READ_LINE_CHARS:
            line, cut = _js_prefix(line, READ_LINE_CHARS) + "... [truncated]", True
        shown.append(line)
    body = "\n".join(shown)
    if len(lines) <= READ_LINES and not cut:
        return body
    end = min(READ_LINES, len(lines))
    return TRUNCATED_HEADER.format(end=end, total=len(lines), next=end + 1) + body


def _js_length(line: str) -> int:
    """The length JavaScript gives a string: UTF-16 code units."""
    return len(line) + sum(1 for char in line if ord(char) > 0xFFFF)


def _js_prefix(line: str, units: int) -> str:
    return line.encode("utf-16-le", errors="surrogatepass")[: 2 * units].decode("utf-16-le", errors="replace")


# --- the files the tail calls read ------------------------------------------------------------


def tail_folder(hook_input: Mapping[str, Any], env: Mapping[str, str]) -> Path | None:
    """`~/.gemini/tmp/<project>/tokenlab` for the session the hook input names, or None when
    its transcript is not in Gemini's temp folder (then nothing is written anywhere)."""
    transcript = hook_input.get("transcript_path")
    if not isinstance(transcript, str) or not transcript:
        return None
    root = (gemini_dir(env) / "tmp").resolve()
    try:
        relative = Path(transcript).resolve().relative_to(root)
    except (ValueError, OSError):
        return None
    if len(relative.parts) < 3 or relative.parts[1] != "chats":
        return None
    return root / relative.parts[0] / TAIL_FOLDER


def write_tail_file(folder: Path, text: str) -> Path:
    """Write `text` for one tail call (private to the user) and prune files left behind."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    prune(folder, time.time() - TAIL_KEEP_SECONDS)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
    # The random part keeps two calls with the same output from sharing (and deleting) one file.
    path = folder / f"{digest}-{secrets.token_hex(4)}.txt"
    handle, temp_name = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as temp:
            temp.write(text.encode("utf-8"))
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    return path


def prune(folder: Path, before: float) -> None:
    for path in folder.iterdir():
        try:
            if TAIL_NAME.fullmatch(path.name) and path.stat().st_mtime < before:
                path.unlink()
        except OSError:
            continue


def tail_file(hook_input: Mapping[str, Any], env: Mapping[str, str]) -> Path | None:
    """The file a tail call of ours just read (its AfterTool), else None."""
    if not hook_input.get("original_request_name") or hook_input.get("tool_name") != "read_file":
        return None
    folder = tail_folder(hook_input, env)
    tool_input = hook_input.get("tool_input")
    name = tool_input.get("file_path") if isinstance(tool_input, Mapping) else None
    if folder is None or not isinstance(name, str):
        return None
    path = Path(name)
    if path.parent != folder or not TAIL_NAME.fullmatch(path.name):
        return None
    return path
