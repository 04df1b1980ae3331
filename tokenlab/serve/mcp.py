"""`tokens mcp`: budgeted reads, search, pointers, refs and compression as MCP tools.

Built on the official SDK's `MCPServer` (an optional extra, `tokenlab[mcp]`; only this
module imports it). Each tool is a plain typed method whose signature becomes its input
schema, and it calls the same library function as the CLI command of the same job. Its
structured result is exactly the object that command prints with `--json`, and its output
schema is that object's model in `shapes.py`, so the two cannot drift; its text content is
what the command prints without `--json` (the header line, then the content), which is
what an agent reads and costs fewer tokens than JSON.

Safety, the same as `tokens serve`:
- every path an agent names goes through `tokenlab.serve.confine` (the very function `serve`
  uses): `..`, absolute paths elsewhere and symlinks that lead out are tool errors, never
  reads;
- arguments are capped by their schemas (string lengths, budgets, timeouts), and every
  failure is an MCP tool error (`is_error`) with a one-line message; a bug in a tool is
  the SDK's generic tool error, never a crashed server;
- `run_command` exists only when the server is started with `allow_run`: it runs any
  command with the server's rights, which an agent's own shell tool already governs.

Refs are resources too: `tokenlab://ref/ctx_…` (a template, so any ref in the store can
be read); `resources/list` names the refs this server made (compress, run_command).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio.to_thread
import orjson
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError
from mcp_types import CallToolResult, ContentBlock, Resource, TextContent, ToolAnnotations
from pydantic import Field

from tokenlab.errors import InputError, RefNotFoundError, TokenlabError
from tokenlab.serve.confine import confine, confine_pointer
from tokenlab.serve.shapes import (
    ChangesOut,
    CompressOut,
    DerefOut,
    PackOut,
    ReadOut,
    RefViewOut,
    RunOut,
    SearchOut,
)

REF_SCHEME = "tokenlab://ref/"
MAX_BUDGET = 1_000_000
MAX_PATH = 4096
MAX_PATTERN = 4096
MAX_TEXT = 4 << 20  # characters of text to compress
MAX_COMMAND = 16 << 10
MAX_TIMEOUT = 3600.0
DEFAULT_TIMEOUT = 300.0
LISTED_REFS = 256  # refs made by this server that resources/list names, newest last

INSTRUCTIONS = (
    "Token-budgeted access to the files under one folder. Prefer read_file over reading whole "
    "files: it returns the most detailed view (full, outline, section, lines) that fits "
    "budget_tokens. search returns ranked snippets with evidence pointers; deref returns the "
    "exact lines a pointer names. Markers like #ref:ctx_… stand for omitted bytes: expand_ref "
    "shows lines, grep matches or a JSON subtree of one; resources tokenlab://ref/<id> hold the "
    "exact bytes. compress shrinks text you already hold, keeping failures and summaries visible."
)


# --- arguments ----------------------------------------------------------------------------

PathArg = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_PATH,
        description="A file under the served folder: relative to it, or absolute inside it.",
    ),
]
Budget = Annotated[int, Field(ge=0, le=MAX_BUDGET, description="Token budget (o200k_base tokens).")]
LinesArg = Annotated[
    str | None,
    Field(max_length=64, description="Line range A-B (1-based, inclusive), A, or A- (to the end)."),
]


def _result(payload: dict[str, Any], text: str, *more: str) -> CallToolResult:
    blocks: list[ContentBlock] = [TextContent(type="text", text=part) for part in (text, *more) if part]
    return CallToolResult(content=blocks or [TextContent(type="text", text="")], structured_content=payload)


def _failure(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=one_line(message))], is_error=True)


def one_line(message: str) -> str:
    """A tool error as one line: pydantic's multi-line reports joined, its doc links dropped."""
    lines = [line.strip() for line in message.splitlines()]
    return "; ".join(line for line in lines if line and not line.startswith("For further information"))


def _with_header(header: str, content: str) -> str:
    return f"{header}\n\n{content}" if content else header


@dataclass
class Settings:
    root: Path
    store_dir: str | Path | None = None  # a `--store` value: a folder or a database URL
    allow_run: bool = False


class Tools:
    """The tools, bound to one served root and store; each method is one MCP tool."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.root = settings.root.resolve()
        self._made: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()
        # Runs a tool call off the event loop: the SDK's default (anyio's 40-thread pool)
        # unless `http_app` puts the calls in `tokens serve`'s work slots.
        self.run_in: Callable[[Callable[[], CallToolResult]], Awaitable[CallToolResult]]
        self.run_in = anyio.to_thread.run_sync

    def _store(self) -> Any:
        from tokenlab.store import shared_store

        return shared_store(self.settings.store_dir)

    def read_file(
        self,
        path: PathArg,
        budget_tokens: Budget = 4000,
        view: Annotated[
            Literal["auto", "outline", "section", "lines", "full", "summary"],
            Field(description="auto: the most detailed view that fits; others degrade when they do not."),
        ] = "auto",
        section: Annotated[
            str | None,
            Field(max_length=MAX_PATTERN, description="Heading, symbol (Class.method) or key path (a.b.c)."),
        ] = None,
        lines: LinesArg = None,
    ) -> Annotated[CallToolResult, ReadOut]:
        """Read a file within a token budget: the whole file when it fits, else an outline
        (symbols with line ranges), a section, or lines. Ask for a section (a heading,
        Class.method, or a.b.c key path) or lines A-B to zoom in. Same as `tokens read --json`."""
        from tokenlab.reads import views

        request = views.ReadRequest(
            path=confine(self.root, path),
            view=views.View(view),
            budget_tokens=budget_tokens,
            section=section,
            lines=views.LineRange.parse(lines) if lines is not None else None,
        )
        response = views.read(request, views.ReadOptions())
        return _result(response.as_dict(), _with_header(response.header, response.content))

    def search(
        self,
        query: Annotated[
            str, Field(min_length=1, max_length=MAX_PATTERN, description="Text to find (smart case).")
        ],
        paths: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=MAX_PATH)]] | None,
            Field(
                max_length=256, description="Files or folders under the served folder (default: all of it)."
            ),
        ] = None,
        budget_tokens: Budget = 2000,
        regex: Annotated[bool, Field(description="query is a Python regular expression.")] = False,
        context: Annotated[int, Field(ge=0, le=20, description="Lines of context around each match.")] = 1,
    ) -> Annotated[CallToolResult, SearchOut]:
        """Search the files (git-tracked and untracked, not ignored) for text or a regex:
        ranked snippets labelled with their enclosing symbol, each with an evidence pointer
        for deref, within the budget; never whole files. Same as `tokens search --json`."""
        from tokenlab.reads.search import SearchRequest
        from tokenlab.reads.search import search as find

        root = self.root
        folders = tuple(confine(root, item) for item in paths or ()) or (root,)
        request = SearchRequest(query, folders, budget_tokens, regex, context)
        response = find(request, allow=lambda found: found.is_relative_to(root))
        return _result(response.as_dict(), _with_header(response.header, response.content))

    def pack(
        self,
        paths: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=MAX_PATH)]] | None,
            Field(
                max_length=10_000, description="Files or folders under the served folder (default: all of it)."
            ),
        ] = None,
        query: Annotated[
            str | None,
            Field(min_length=1, max_length=MAX_PATTERN, description="What the pack is for: ranks files, picks sections."),
        ] = None,
        budget_tokens: Budget = 8000,
    ) -> Annotated[CallToolResult, PackOut]:
        """The best views of many files within one budget: per file its full text, the
        sections matching the query, an outline of its most important symbols, or a one-line
        stub, ranked by the query (BM25) and the reference graph (PageRank); each span with an
        evidence pointer and sha256, and what was left out. Same as `tokens pack --json`."""
        from tokenlab.pack import PackRequest
        from tokenlab.pack import pack as run_pack

        root = self.root
        folders = tuple(confine(root, item) for item in paths or ()) or (root,)
        request = PackRequest(paths=folders, query=query, budget_tokens=budget_tokens)
        result = run_pack(request, self._store().root, allow=lambda found: found.is_relative_to(root))
        return _result(result.as_dict(), _with_header(result.header, result.content))

    def deref(
        self,
        pointer: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_PATH + 256,
                description="nas://node/tree/path@commit#L1-L2 or path@commit#L1-L2, as search and read_file give.",
            ),
        ],
        verify_sha256: Annotated[
            str | None,
            Field(max_length=128, description="Fail unless the lines hash to this sha256."),
        ] = None,
    ) -> Annotated[CallToolResult, DerefOut]:
        """The exact lines an evidence pointer names, from its commit (not the working tree),
        optionally checked against their sha256. Same as `tokens deref --json`."""
        from tokenlab.reads.pointers import base_folder, parse_pointer
        from tokenlab.reads.pointers import deref as dereference

        parsed = parse_pointer(pointer)
        confine_pointer(self.root, parsed.path, parsed.rev, base_folder(parsed, self.root))
        found = dereference(parsed, repo=self.root)
        if verify_sha256 is not None:
            found.verify(verify_sha256)
        payload = {**found.as_dict(), "verified": None if verify_sha256 is None else True}
        header = f"{found.pointer.short}: {len(found.data)} bytes, sha256 {found.sha256}"
        return _result(payload, _with_header(header, str(payload["content"])))

    def changes(
        self,
        path: PathArg,
        since: Annotated[
            str, Field(min_length=1, max_length=256, description="Older commit (hash, tag, HEAD~3).")
        ],
        to: Annotated[
            str | None, Field(max_length=256, description="Newer commit (default: the working tree).")
        ] = None,
        budget_tokens: Budget = 4000,
    ) -> Annotated[CallToolResult, ChangesOut]:
        """What changed in a file or folder between two commits (or a commit and the working
        tree): the diff when it fits the budget, else a compressed one with refs and evidence
        pointers. Same as `tokens changes --json`."""
        from tokenlab.reads.changes import ChangesRequest
        from tokenlab.reads.changes import changes as compare

        request = ChangesRequest(confine(self.root, path), since, to, budget_tokens)
        response = compare(request, store_dir=self.settings.store_dir)
        return _result(response.as_dict(), _with_header(response.header, response.content))

    def expand_ref(
        self,
        id: Annotated[
            str, Field(min_length=1, max_length=80, description="ctx_… or #ref:ctx_… from a marker.")
        ],
        lines: LinesArg = None,
        grep: Annotated[
            str | None,
            Field(min_length=1, max_length=MAX_PATTERN, description="Python regex over the ref's lines."),
        ] = None,
        context: Annotated[int, Field(ge=0, le=1000, description="Lines around each grep match.")] = 0,
        ignore_case: Annotated[bool, Field(description="Case-insensitive grep.")] = False,
        json_path: Annotated[
            str | None,
            Field(max_length=MAX_PATTERN, description='Subtree of a JSON ref: items[737].error, a["b.c"].'),
        ] = None,
        head: Annotated[int | None, Field(ge=1, description="The first N lines.")] = None,
        tail: Annotated[int | None, Field(ge=1, description="The last N lines.")] = None,
        budget_tokens: Annotated[
            int | None, Field(ge=0, le=MAX_BUDGET, description="Token budget (default 4000).")
        ] = None,
    ) -> Annotated[CallToolResult, RefViewOut]:
        """Drill into a #ref:ctx_… marker: its lines, the lines matching a regex (grep, with
        context), a JSON subtree, or its head or tail, within the budget. When the answer is
        truncated, `next_params` are the arguments that continue. Same as `tokens show-ref --json`."""
        from tokenlab import ledger
        from tokenlab.agent.host_env import host_of
        from tokenlab.refs.expand import RefQuery, expand_ref

        query = RefQuery(lines, grep, context, ignore_case, json_path, head, tail, budget_tokens)
        store = self._store()
        view = expand_ref(store, id, query)
        ledger.note_ref_open(store.root, id, host_of(os.environ))
        return _result(view.as_dict(), _with_header(view.header, view.text))

    def compress(
        self,
        text: Annotated[str, Field(max_length=MAX_TEXT, description="Tool output, a log, JSON, a diff…")],
        source: Annotated[
            str,
            Field(min_length=1, max_length=MAX_PATH, description="A label for it (a command or file name)."),
        ] = "<text>",
    ) -> Annotated[CallToolResult, CompressOut]:
        """Compress text you already hold (a log, JSON, a diff, a listing): failures, errors
        and summaries stay visible, the rest goes behind #ref:ctx_… markers that expand_ref
        or the resource tokenlab://ref/<id> give back byte for byte. Same as `tokens analyze - --json`."""
        from tokenlab.commands import analysis_output

        answer = analysis_output(
            text.encode("utf-8", "surrogatepass"),
            label=source,
            signals=(),
            granularity="coarse",
            redact=True,
            store=self._store(),
            as_json=True,
        )
        payload: dict[str, Any] = orjson.loads(answer.stdout)
        self._remember(payload["refs"])
        if answer.exit_code:
            return _failure(
                f"{payload['signal']['status']} signals, {payload['recovery']['status']} recovery"
            )
        return _result(payload, payload["visible"]["text"], self._refs_note(payload["refs"]))

    def run_command(
        self,
        command: Annotated[
            str, Field(min_length=1, max_length=MAX_COMMAND, description="A /bin/sh command line.")
        ],
        timeout_s: Annotated[
            float, Field(gt=0, le=MAX_TIMEOUT, description="End the command's process group after this.")
        ] = DEFAULT_TIMEOUT,
    ) -> Annotated[CallToolResult, RunOut]:
        """Run a shell command in the served folder and return its output compressed: failures
        and summaries visible, the rest behind refs. Same as `tokens run --shell CMD --json`."""
        from tokenlab.agent.capture import SHELL
        from tokenlab.agent.command_line import display_line
        from tokenlab.agent.run import Caller, Command, RunOptions, output
        from tokenlab.agent.run import run as run_it

        # Standard input is the MCP stream under stdio: the command must never read it.
        what = Command((SHELL, "-c", "exec </dev/null\n" + command), display_line(command), shell=True)
        store = self._store()
        result = run_it(what, store, RunOptions(timeout=timeout_s))
        payload: dict[str, Any] = orjson.loads(output(result, store.root, Caller.here(), as_json=True, trace=False).stdout)
        self._remember(payload["refs"])
        return _result(payload, result.streams[0].visible, self._refs_note(payload["refs"]))

    # --- refs made here, for resources/list ------------------------------------------------

    def _remember(self, refs: list[dict[str, Any]]) -> None:
        with self._lock:
            for ref in refs:
                self._made[ref["id"]] = ref
                self._made.move_to_end(ref["id"])
            while len(self._made) > LISTED_REFS:
                self._made.popitem(last=False)

    def made(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._made.values())

    @staticmethod
    def _refs_note(refs: list[dict[str, Any]]) -> str:
        if not refs:
            return ""
        named = ", ".join(f"{ref['id']} ({ref['bytes']:,} bytes, {ref['reason']})" for ref in refs[:8])
        more = f" and {len(refs) - 8} more" if len(refs) > 8 else ""
        return f"refs: {named}{more}. Drill in with expand_ref(id=…), or read {REF_SCHEME}<id>."

    def read_ref(self, ref_id: str) -> str | bytes:
        """The exact bytes of a ref: text when they are UTF-8, else a blob."""
        try:
            record = self._store().load(ref_id)
        except (RefNotFoundError, InputError) as error:  # no such ref, or not a ref id
            raise ResourceNotFoundError(str(error)) from None
        except TokenlabError as error:
            raise ResourceError(str(error)) from None
        try:
            return str(record.data.decode("utf-8"))
        except UnicodeDecodeError:
            return bytes(record.data)


READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
TOOLS: tuple[tuple[str, ToolAnnotations], ...] = (
    ("read_file", READ_ONLY),
    ("search", READ_ONLY),
    ("pack", READ_ONLY),
    ("deref", READ_ONLY),
    ("changes", READ_ONLY),
    ("expand_ref", READ_ONLY),
    ("compress", ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)),
)
RUN_TOOL = ("run_command", ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=True))


class TokenlabServer(MCPServer[Any]):
    """MCPServer whose resources/list names the refs this server made."""

    def __init__(self, tools: Tools) -> None:
        from tokenlab import __version__

        super().__init__(
            "tokenlab",
            version=__version__,
            instructions=INSTRUCTIONS,
            log_level="WARNING",
            warn_on_duplicate_tools=False,
            middleware=[_one_line_errors],
        )
        self.tools = tools

    async def list_resources(self) -> list[Resource]:
        return [
            Resource(
                uri=f"{REF_SCHEME}{ref['id']}",
                name=ref["id"],
                description=ref["reason"],
                mime_type="text/plain",
                size=ref["bytes"],
            )
            for ref in self.tools.made()
        ]


async def _one_line_errors(ctx: Any, call_next: Any) -> Any:
    """Tool errors from the SDK (arguments that fail the schema) as one line, like the tools' own.

    The chain hands results on in their wire form (a dict) or as the result model."""
    result = await call_next(ctx)
    if ctx.method != "tools/call":
        return result
    if isinstance(result, CallToolResult):
        result = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(result, dict) and result.get("isError"):
        texts = [block.get("text", "") for block in result.get("content", []) if block.get("type") == "text"]
        result = {**result, "content": [{"type": "text", "text": one_line(" ".join(texts))}]}
    return result


def _guarded(tools: Tools, name: str) -> Any:
    """The tool method, with domain errors (and unreadable files) as one-line tool errors,
    run on a worker thread by `tools.run_in` (the SDK's signature and schema are the method's)."""
    import functools

    method = getattr(tools, name)

    def guarded(**kwargs: Any) -> CallToolResult:
        try:
            result: CallToolResult = method(**kwargs)
            return result
        except TokenlabError as error:
            return _failure(str(error))
        except OSError as error:
            return _failure(f"{error.strerror or error}: {error.filename or ''}".rstrip(": "))

    @functools.wraps(method)
    async def call(**kwargs: Any) -> CallToolResult:
        if name == RUN_TOOL[0]:  # waits on a command for up to an hour: never holds a work slot
            return await anyio.to_thread.run_sync(functools.partial(guarded, **kwargs))
        return await tools.run_in(functools.partial(guarded, **kwargs))

    return call


def build_server(settings: Settings) -> TokenlabServer:
    """The MCP server for `settings`: its tools, and refs as a resource template."""
    tools = Tools(settings)
    server = TokenlabServer(tools)
    for name, hints in TOOLS + ((RUN_TOOL,) if settings.allow_run else ()):
        description = " ".join((getattr(Tools, name).__doc__ or "").split())
        server.add_tool(_guarded(tools, name), name=name, description=description, annotations=hints)

    @server.resource(
        REF_SCHEME + "{ref_id}",
        name="ref",
        description="The exact bytes behind a #ref:ctx_… marker (text, or a blob when not UTF-8).",
        mime_type="text/plain",
    )
    def ref(ref_id: str) -> str | bytes:
        return tools.read_ref(ref_id)

    return server


def http_app(server: TokenlabServer, *, token: str | None, loopback: bool, max_body: int) -> Any:
    """The streamable HTTP app behind `tokens serve`'s guard: bearer token, Host, body cap."""
    from mcp.server.transport_security import TransportSecuritySettings

    from tokenlab.serve.guard import LOOPBACK_HOSTS, WORK_SLOTS, Guard

    # Every client of an HTTP server shares its cores: one tool call per core computes at a
    # time, the rest queue first come first served, as `tokens serve`'s routes do.
    server.tools.run_in = WORK_SLOTS.run
    app = server.streamable_http_app(
        max_request_body_size=max_body,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    return Guard(app, token=token, allowed_hosts=LOOPBACK_HOSTS if loopback else None, max_body=max_body)
