"""Claude Code's PostToolUse hook: replace a finished tool's output with the pipeline's visible text.

PostToolUse runs after the tool, whatever approved it (a settings rule, `--allowedTools`, a
prompt), and its answer touches no permission: it can only change what the model is shown.
So this path covers what the PreToolUse rewrite (`hooks.decide`) must leave alone, and the
tools that are not shell commands: Read, Grep, Glob, WebFetch and MCP tools.

`decide` owns every rule. It is pure apart from two functions handed in: `read` (a file's
bytes, for a Bash output Claude Code persisted and for the whole of a file Read showed in
part) and `analyse` (the pipeline into the user's store). What the host does with an answer
was measured with the real CLI (docs/hosts.md); the rules follow from it:

- The answer keeps the tool's own output shape (`tool_response` with one field replaced):
  Claude Code drops a bare string for Bash silently.
- A Bash output over 30,000 characters reaches the hook cut, with `persistedOutputPath`
  naming a file that holds it whole. That file is analysed (after checking it begins with
  what the hook was given), and the two `persisted…` fields are dropped: kept, they make
  Claude Code wrap the answer as a 2 KB preview again.
- A visible text over `HOST_CAP` characters would be persisted again and shown as a
  preview, so it is not sent at all.
- An output that is tokenlab's visible text already (the PreToolUse rewrite to `tokens
  run`, any `tokens` command, tokenlab's MCP server: its footer anywhere) is left alone.
- An MCP tool's text wrapped as structured content (`{"result": "…"}`) is analysed as the
  text itself, and the answer is its visible text: the ref restores the tool's text.
- Read: source code is left as it is, so the agent's edit loop sees the lines it edits;
  data (logs, JSON, CSV, YAML, XML, lockfiles, listings) is replaced.
- A failed command never reaches PostToolUse (it goes to PostToolUseFailure, which cannot
  replace output), and an interrupted one or an image is left alone.

Markers are the pipeline's business: a marker look-alike in a tool's output is escaped by
the pipeline like in `tokens analyze`, and nothing here builds visible text by itself apart
from the one hint line naming `tokens show-ref`.
"""

from __future__ import annotations

import json
import posixpath
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tokenlab import markers
from tokenlab.agent.launcher import runs_tokenlab
from tokenlab.packet import ContentType

if TYPE_CHECKING:
    from tokenlab.packet import ContextPacket

# Claude Code persists a tool result over this many characters and shows a 2 KB preview.
HOST_CAP = 30_000
HOST_PREVIEW = 2_000
# Shorter outputs are left as they are without running the pipeline: little to save.
MIN_OUTPUT = 1_000
# Read refuses files over 256 KB; the whole of a file it showed in part is read up to that.
READ_LIMIT = 256 << 10
# A persisted Bash output is read up to this size; larger ones keep the host's preview.
PERSISTED_LIMIT = 64 << 20
WHOLE_FILE = (
    "[tokenlab: the whole file, {lines:,} lines, in brief; "
    "a PARTIAL view note below is about Claude Code's own cut]\n"
)
# tokenlab's footer anywhere in an output, also inside a JSON string (tokenlab's MCP server).
OUR_FOOTER = re.compile(rb"\[original [0-9,]+ bytes: #ref:ctx_[0-9a-f]{6,64}")
OPEN_HINT = "[open a ref: {opener} show-ref ID --raw | --grep RE | --lines A-B]"
# Read leaves these alone: code the agent may edit, whatever the classifier thinks of it.
_CODE_WORDS = (
    "py pyi pyx js jsx mjs cjs ts tsx vue svelte go rs c h cc cpp cxx hpp hh java kt kts scala "
    "swift m mm cs fs rb php pl pm lua r jl dart ex exs erl hs ml mli clj cljs el sh bash zsh fish "
    "ps1 sql html htm css scss sass less md rst tex toml ini cfg proto graphql tf nix zig"
)
CODE_EXTENSIONS = frozenset(_CODE_WORDS.split())
DATA_TYPES = frozenset(
    {
        ContentType.LOG,
        ContentType.JSON,
        ContentType.XML,
        ContentType.YAML,
        ContentType.TABLE,
        ContentType.FILELIST,
        ContentType.DEPENDENCY_TREE,
        ContentType.SEARCH_RESULTS,
        ContentType.GIT_LOG,
        ContentType.GIT_STATUS,
        ContentType.DIFF,
    }
)
LOCKFILES = frozenset({"Cargo.lock", "poetry.lock", "uv.lock", "Gemfile.lock", "composer.lock", "yarn.lock"})
DATA_EXTENSIONS = frozenset({"log", "csv", "tsv", "jsonl", "ndjson", "lock", "out"})

Read = Callable[[str, int], bytes | None]
Analyse = Callable[[bytes, str], "ContextPacket"]


@dataclass(frozen=True)
class Plan:
    """What to analyse for one tool result, and how the visible text goes back into its shape."""

    data: bytes
    label: str
    host_text: str  # what the model is shown without tokenlab
    rebuild: Callable[[str], Any]
    data_only: bool = False  # replace only when the pipeline classifies it as data
    shown: Callable[[str], str] = str  # the visible text as the host shows it (Read numbers lines)
    cap: int | None = None  # a longer visible text would be cut by the host (None: Claude Code's HOST_CAP)


@dataclass(frozen=True)
class Replacement:
    """The answer, and the counts the ledger keeps."""

    output: Any
    packet: ContextPacket
    visible_tokens: int  # of the answer's text as the host shows it, hint line included
    host_tokens: int

    def as_dict(self) -> dict[str, Any]:
        return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": self.output}}


def decide(
    hook_input: Mapping[str, Any], read: Read, analyse: Analyse, opener: str = "tokens"
) -> Replacement | None:
    """The replacement for one PostToolUse call, or None to leave the output as it is.
    `opener` is how the hint names tokenlab (`launcher.opener`)."""
    if hook_input.get("hook_event_name") != "PostToolUse":
        return None
    plan = plan_for(hook_input, read)
    return None if plan is None else replacement_for(plan, analyse, opener)


def replacement_for(plan: Plan, analyse: Analyse, opener: str = "tokens") -> Replacement | None:
    """The visible text in place of the planned output, when it is shorter and fits the host's cap."""
    from tokenlab.counting import tokens

    if len(plan.data) < MIN_OUTPUT or OUR_FOOTER.search(plan.data):
        return None  # nothing to show, or tokenlab's visible text already (`tokens run`, our MCP server)
    packet = analyse(plan.data, plan.label)
    if plan.data_only and packet.content_type not in DATA_TYPES:
        return None
    visible = with_hint(packet.visible, opener)
    raw_tokens = packet.raw_measure.tokens if packet.raw_measure else 0
    visible_tokens = tokens.count(visible)
    cap = HOST_CAP if plan.cap is None else plan.cap
    if markers.parse_footer(visible) is None or visible_tokens >= raw_tokens or len(visible) > cap:
        return None
    shown_tokens = tokens.count(plan.shown(visible))
    return Replacement(plan.rebuild(visible), packet, shown_tokens, tokens.count(plan.host_text))


def plan_for(hook_input: Mapping[str, Any], read: Read) -> Plan | None:
    tool = hook_input.get("tool_name")
    response = hook_input.get("tool_response")
    tool_input = hook_input.get("tool_input")
    tool_input = tool_input if isinstance(tool_input, Mapping) else {}
    if not isinstance(tool, str):
        return None
    if tool == "Bash" and isinstance(response, Mapping):
        return _bash(tool_input, response, read)
    if tool == "Read" and isinstance(response, Mapping):
        return _read(tool_input, response, read)
    if tool in ("Grep", "Glob") and isinstance(response, Mapping):
        return _search(tool, response)
    if tool == "WebFetch" and isinstance(response, Mapping) and isinstance(response.get("result"), str):
        from tokenlab.agent.command_line import display_line  # masks a credential in the URL

        text = response["result"]
        label = display_line(f"WebFetch {tool_input.get('url', '')}")
        return Plan(text.encode("utf-8"), label, host_view(text), lambda v: {**response, "result": v})
    if tool.startswith("mcp__"):
        return _mcp(tool, response)
    return None


def _bash(tool_input: Mapping[str, Any], response: Mapping[str, Any], read: Read) -> Plan | None:
    stdout = response.get("stdout")
    command = tool_input.get("command")
    if not isinstance(stdout, str) or not isinstance(command, str) or len(stdout) < MIN_OUTPUT:
        return None
    if response.get("interrupted") or response.get("isImage") or by_tokens_run(command):
        return None
    if response.get("stderr"):
        return None  # stderr arrives merged into stdout; a separate one is a shape not measured
    data = stdout.encode("utf-8", errors="surrogatepass")
    path = response.get("persistedOutputPath")
    if path is not None:
        whole = read(str(path), PERSISTED_LIMIT) if isinstance(path, str) else None
        if whole is None or not whole.decode("utf-8", errors="replace").startswith(stdout[:HOST_CAP]):
            return None
        data = whole
    kept = {k: v for k, v in response.items() if k not in ("persistedOutputPath", "persistedOutputSize")}
    text = data.decode("utf-8", errors="replace")
    from tokenlab.agent.command_line import display_line  # loaded only for an output worth analysing

    return Plan(data, display_line(command), host_view(text), lambda v: {**kept, "stdout": v})


def by_tokens_run(command: str) -> bool:
    """Whether the command runs tokenlab (the PreToolUse rewrite, or the agent's own call)."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    return runs_tokenlab(words)


def _read(tool_input: Mapping[str, Any], response: Mapping[str, Any], read: Read) -> Plan | None:
    file = response.get("file")
    if response.get("type") != "text" or not isinstance(file, Mapping):
        return None
    path, content = file.get("filePath"), file.get("content")
    if not isinstance(path, str) or not isinstance(content, str):
        return None
    name = posixpath.basename(path)
    if name.rpartition(".")[2].lower() in CODE_EXTENSIONS and name not in LOCKFILES:
        return None
    if file.get("startLine", 1) != 1:
        return None  # a page further in: its visible text would restart the line numbers at 1
    data = content.encode("utf-8", errors="surrogatepass")
    whole_asked = tool_input.get("offset") is None and tool_input.get("limit") is None
    shown_whole = file.get("numLines") == file.get("totalLines") and not file.get("truncatedByTokenCap")
    host_cut = False
    if whole_asked:
        on_disk = read(path, READ_LIMIT)
        # The file as stored restores byte for byte; used only when it is what was shown.
        if on_disk is not None and on_disk.decode("utf-8", errors="replace").startswith(content):
            data = on_disk
            host_cut = not shown_whole
            shown_whole = True
    if not shown_whole:
        return None
    text = data.decode("utf-8", errors="replace")
    # Claude Code still appends its note on the part it read before the hook ran.
    prefix = WHOLE_FILE.format(lines=len(text.splitlines())) if host_cut else ""

    def rebuild(visible: str) -> dict[str, Any]:
        visible = prefix + visible
        lines = visible.count("\n") + (0 if visible.endswith("\n") else 1)
        new_file = {k: v for k, v in file.items() if k != "truncatedByTokenCap"}
        new_file.update(content=visible, numLines=lines, startLine=1, totalLines=len(text.splitlines()))
        return {**response, "file": new_file}

    return Plan(
        data,
        f"Read {path}",
        numbered(content),
        rebuild,
        data_only=not data_name(path),
        shown=lambda visible: numbered(prefix + visible),
    )


def numbered(content: str) -> str:
    """Read's content as Claude Code shows it, each line after its number and a tab."""
    return "".join(f"{n}\t{line}\n" for n, line in enumerate(content.rstrip("\n").split("\n"), start=1))


def _search(tool: str, response: Mapping[str, Any]) -> Plan | None:
    content = response.get("content")
    if tool == "Grep" and response.get("mode") == "content" and isinstance(content, str):
        return Plan(content.encode("utf-8"), "Grep", content, lambda v: {**response, "content": v})
    filenames = response.get("filenames")
    if response.get("mode") == "count" or not isinstance(filenames, list):
        return None
    if not filenames or not all(isinstance(name, str) for name in filenames):
        return None
    listing = "\n".join(filenames) + "\n"
    return Plan(listing.encode("utf-8"), tool, listing, lambda v: {**response, "filenames": v.splitlines()})


def _mcp(tool: str, response: Any) -> Plan | None:
    if isinstance(response, str):
        text = sole_text(response) or response
        return Plan(text.encode("utf-8"), tool, host_view(response), lambda v: v)
    if isinstance(response, list) and response and all(_text_block(block) for block in response):
        text = "\n".join(block["text"] for block in response)
        return Plan(text.encode("utf-8"), tool, host_view(text), lambda v: [{"type": "text", "text": v}])
    return None


def sole_text(response: str) -> str | None:
    """The text an MCP tool returned as structured content, `{"result": "<text>"}` (the SDKs
    wrap a tool's plain string so), else None. Analysed as JSON, the text would be one long
    string value, folded whole; analysed as itself, its lines are what gets folded."""
    if not response.startswith("{"):
        return None
    try:
        data = json.loads(response)
    except ValueError:
        return None
    if isinstance(data, dict) and len(data) == 1:
        (value,) = data.values()
        if isinstance(value, str) and "\n" in value:
            return value
    return None


def _text_block(block: Any) -> bool:
    return isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str)


def data_name(path: str) -> bool:
    name = posixpath.basename(path)
    return name in LOCKFILES or name.rpartition(".")[2].lower() in DATA_EXTENSIONS


def host_view(text: str) -> str:
    """About what Claude Code shows the model for `text` without tokenlab: the text itself up
    to its cap; above it, a notice with the file's path and a 2 KB preview."""
    if len(text) <= HOST_CAP:
        return text
    size = len(text.encode("utf-8")) / 1024
    return (
        f"<persisted-output>\nOutput too large ({size:.1f}KB). Full output saved to: "
        "/home/user/.claude/projects/-project/00000000-0000-0000-0000-000000000000/tool-results/x.txt"
        f"\n\nPreview (first 2KB):\n{text[:HOST_PREVIEW]}\n...\n</persisted-output>"
    )


def with_hint(visible: str, opener: str = "tokens") -> str:
    """`visible` with one line saying how to open a ref, naming tokenlab as `opener`, before
    the footer; when the footer says it already, the footer names `opener` instead."""
    if markers.has_expand_hint(visible):
        return markers.with_opener(visible, opener)
    return with_line_before_footer(visible, OPEN_HINT.format(opener=opener))


def with_line_before_footer(visible: str, line: str) -> str:
    """`visible` with `line` just above its footer; as it is when it has no footer."""
    if markers.parse_footer(visible) is None:
        return visible
    cut = visible.rstrip("\n").rfind("\n") + 1
    return visible[:cut] + line + "\n" + visible[cut:]
