"""`tokens serve`: budgeted reads, search, deref and store refs over HTTP (FastAPI).

The request and response shapes are the CLI's (`--json` output), so an agent gets the
same answer either way. The server is meant for one user's agents on one machine:

- it binds to loopback unless told otherwise, and then accepts only loopback Host
  headers (a web page cannot reach it through DNS rebinding);
- it serves only files under `root`: a path with a `..` segment, an absolute path
  elsewhere, a symlink that leads out, or any of these hidden behind percent-encoding is
  refused with 403 before anything is read;
- request bodies over `max_body_bytes` get 413 before they are parsed, and a response
  that would exceed `max_response_bytes` is refused with 413 and a hint to lower the budget;
- with a token, every request (the OpenAPI schema included) needs `Authorization: Bearer`.

FastAPI is an optional extra (`tokenlab[serve]`); only this module imports it.
"""

from __future__ import annotations

import base64
import hmac
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal
from urllib.parse import unquote

import orjson
from fastapi import Depends, FastAPI, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from tokenlab.errors import InputError, RefNotFoundError, TokenlabError
from tokenlab.reads import views
from tokenlab.reads.pointers import (
    WORKTREE,
    PointerTargetError,
    VerificationError,
    base_folder,
    parse_pointer,
)
from tokenlab.reads.summary import Summarizer

DEFAULT_MAX_BODY_BYTES = 64 * 1024
DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024
MAX_BUDGET_TOKENS = 1_000_000


class ForbiddenPathError(InputError):
    """A path outside the served root (HTTP 403)."""


class NotFoundError(InputError):
    """A path under the root that does not exist (HTTP 404)."""


class ResponseTooLargeError(InputError):
    """The response would exceed the server's cap (HTTP 413)."""


_STATUS: tuple[tuple[type[TokenlabError], int], ...] = (
    (ForbiddenPathError, 403),
    (NotFoundError, 404),
    (RefNotFoundError, 404),
    (PointerTargetError, 404),
    (ResponseTooLargeError, 413),
    (VerificationError, 409),
    (InputError, 400),
)


def status_for(error: TokenlabError) -> int:
    for kind, status in _STATUS:
        if isinstance(error, kind):
            return status
    return 400 if error.exit_code == 2 else 500


# --- confinement --------------------------------------------------------------------------


def _decoded_forms(raw: str) -> list[str]:
    """The path as given and as percent-decoded (repeatedly), so encoded tricks are seen."""
    forms = [raw]
    for _ in range(4):
        decoded = unquote(forms[-1])
        if decoded == forms[-1]:
            break
        forms.append(decoded)
    return forms


def confine(root: Path, raw: str) -> Path:
    """The resolved file `raw` names under `root`; ForbiddenPathError for anything else."""
    if not raw.strip():
        raise InputError("the path is empty")
    for form in _decoded_forms(raw):
        if "\0" in form:
            raise ForbiddenPathError("NUL bytes are not allowed in paths")
        if ".." in PurePosixPath(form.replace("\\", "/")).parts:
            raise ForbiddenPathError(f"'..' is not allowed in paths: {raw!r}")
    candidate = Path(raw) if os.path.isabs(raw) else root / raw
    for form in _decoded_forms(raw)[1:]:
        if os.path.isabs(form) and not Path(os.path.normpath(form)).is_relative_to(root):
            raise ForbiddenPathError(f"{raw!r} decodes to a path outside the served root")
    if not Path(os.path.normpath(candidate)).is_relative_to(root):
        raise ForbiddenPathError(f"{raw!r} is outside the served root")
    resolved = candidate.resolve()
    if not resolved.is_relative_to(root):
        raise ForbiddenPathError(f"{raw!r} leads outside the served root (through a symlink)")
    if not resolved.exists():
        raise NotFoundError(f"no such file under the served root: {raw}")
    return resolved


# --- request and response shapes ------------------------------------------------------------


class ReadBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str = Field(description="File under the served root (relative to it, or absolute inside it).")
    view: Literal["auto", "outline", "section", "lines", "full", "summary"] = "auto"
    budget_tokens: int = Field(views.DEFAULT_BUDGET, ge=0, le=MAX_BUDGET_TOKENS)
    section: str | None = Field(None, description="Heading, symbol (Class.method) or key path.")
    lines: str | None = Field(None, description="A-B, A or A- (1-based).")


class SearchBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(min_length=1, max_length=4096)
    paths: list[str] = Field(
        default_factory=list, description="Files or folders under the root (default: the root)."
    )
    budget_tokens: int = Field(2000, ge=0, le=MAX_BUDGET_TOKENS)
    regex: bool = False
    context: int = Field(1, ge=0, le=20)


class DerefBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pointer: str = Field(description="nas://node/tree/path@commit#L1-L2 or path@commit#L1-L2.")
    verify: str | None = Field(None, description="Expected sha256; 409 when the lines differ.")


class EvidenceOut(BaseModel):
    pointer: str
    sha256: str


class OutlineSymbolOut(BaseModel):
    kind: str
    name: str
    start_line: int
    end_line: int
    detail: str | None = None
    children: list[OutlineSymbolOut]


OutlineSymbolOut.model_rebuild()


class ReadOut(BaseModel):
    path: str
    view: str
    requested_view: str
    budget_tokens: int
    tokens: int
    generated: bool
    stale: bool
    truncated: bool
    degraded_from: str | None
    cut: str | None
    note: str
    content: str
    outline: list[OutlineSymbolOut] | None
    evidence: list[EvidenceOut]


class SnippetOut(BaseModel):
    path: str
    start_line: int
    end_line: int
    match_lines: list[int]
    symbol: str
    score: float
    pointer: str
    sha256: str


class SearchOut(BaseModel):
    query: str
    regex: bool
    budget_tokens: int
    tokens: int
    truncated: bool
    matches_total: int
    matches_shown: int
    matches_left_out: int
    files_matched: int
    files_searched: int
    note: str
    content: str
    snippets: list[SnippetOut]
    evidence: list[EvidenceOut]


class DerefOut(BaseModel):
    pointer: str
    commit: str
    path: str
    start_line: int | None
    end_line: int | None
    sha256: str
    content: str
    verified: bool | None


class RefOut(BaseModel):
    id: str
    sha256: str
    source: str
    content_type: str
    reason: str
    length: int
    encoding: Literal["utf-8", "base64"]
    data: str


class RefViewOut(BaseModel):
    """A drill-down answer (as `tokens show-ref --json`); `text` never exceeds `budget_tokens`."""

    id: str
    mode: Literal["lines", "grep", "json", "head", "tail"]
    total_lines: int
    total_bytes: int
    ranges: list[list[int]] = Field(description="Shown line ranges, [first, last], 1-based inclusive.")
    text: str
    tokens: int
    budget_tokens: int
    truncated: bool = Field(description="True when the answer leaves out part of what was asked.")
    matches: int | None = Field(description="grep: lines matching in the range asked.")
    matches_shown: int | None
    next: str | None = Field(description="`show-ref` options that show the rest.")
    next_params: dict[str, str] | None = Field(description="The same as query parameters of this route.")
    json_path: str | None
    note: str


# --- the guard: token, host and body size, before any route runs ----------------------------


class Guard:
    """Pure ASGI middleware: bearer token, allowed Host headers, then the body-size cap."""

    def __init__(
        self, app: ASGIApp, token: str | None, allowed_hosts: Sequence[str] | None, max_body: int
    ) -> None:
        self.app, self.token, self.max_body = app, token, max_body
        self.allowed_hosts = None if allowed_hosts is None else {host.lower() for host in allowed_hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {key.decode("latin-1").lower(): value for key, value in scope["headers"]}
        refusal = self._refusal(headers)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > self.max_body:
                await _refuse(413, f"request body over {self.max_body} bytes")(scope, receive, send)
                return
            if not message.get("more_body"):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _refusal(self, headers: dict[str, bytes]) -> ASGIApp | None:
        if self.allowed_hosts is not None and _host_name(headers.get("host", b"")) not in self.allowed_hosts:
            return _refuse(403, "Host header not allowed (the server answers loopback names only)")
        if self.token is not None:
            expected = f"Bearer {self.token}".encode()
            if not hmac.compare_digest(headers.get("authorization", b""), expected):
                return _refuse(401, "missing or wrong bearer token", {"www-authenticate": "Bearer"})
        length = headers.get("content-length", b"0")
        if not length.isdigit() or int(length) > self.max_body:
            return _refuse(413, f"request body over {self.max_body} bytes")
        return None


def _host_name(host: bytes) -> str:
    text = host.decode("latin-1").strip().lower()
    if text.startswith("["):
        return text[1:].partition("]")[0]
    return text.rpartition(":")[0] if text.count(":") == 1 else text


def _refuse(status: int, detail: str, headers: dict[str, str] | None = None) -> ASGIApp:
    return JSONResponse({"detail": detail}, status_code=status, headers=headers)


# --- the app ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ServerSettings:
    """What every route needs; kept on `app.state.settings`."""

    root: Path
    node: str | None
    store_dir: Path | None
    summarizer: Summarizer | None
    max_response_bytes: int

    def reply(self, payload: dict[str, Any]) -> Response:
        """The payload as JSON, unless it would exceed the response cap."""
        data = orjson.dumps(payload)
        if len(data) > self.max_response_bytes:
            raise ResponseTooLargeError(
                f"the response would be {len(data)} bytes, over this server's cap of "
                f"{self.max_response_bytes}; ask for a smaller budget_tokens"
            )
        return Response(data, media_type="application/json")


def _settings(request: Request) -> ServerSettings:
    settings: ServerSettings = request.app.state.settings
    return settings


Settings = Annotated[ServerSettings, Depends(_settings)]


def read_file(body: ReadBody, settings: Settings) -> Response:
    """The most detailed view of a file that fits `budget_tokens` (as `tokens read --json`)."""
    request = views.ReadRequest(
        path=confine(settings.root, body.path),
        view=views.View(body.view),
        budget_tokens=body.budget_tokens,
        section=body.section,
        lines=views.LineRange.parse(body.lines) if body.lines is not None else None,
    )
    options = views.ReadOptions(node=settings.node, summarizer=settings.summarizer)
    return settings.reply(views.read(request, options).as_dict())


def search_files(body: SearchBody, settings: Settings) -> Response:
    """Ranked snippets with pointers within `budget_tokens` (as `tokens search --json`)."""
    from tokenlab.reads.search import SearchRequest, search

    root = settings.root
    paths = tuple(confine(root, path) for path in body.paths) or (root,)
    request = SearchRequest(body.query, paths, body.budget_tokens, body.regex, body.context)
    return settings.reply(
        search(request, allow=lambda path: path.is_relative_to(root), node=settings.node).as_dict()
    )


def deref_pointer(body: DerefBody, settings: Settings) -> Response:
    """The exact lines a pointer names, from its commit; 409 when `verify` does not match."""
    from tokenlab.reads.pointers import deref

    pointer = parse_pointer(body.pointer)
    _confine_pointer(settings.root, pointer.path, pointer.rev, base_folder(pointer, settings.root))
    result = deref(pointer, repo=settings.root, node=settings.node)
    if body.verify is not None:
        result.verify(body.verify)
    return settings.reply({**result.as_dict(), "verified": None if body.verify is None else True})


def get_ref(
    ref_id: str,
    settings: Settings,
    lines: Annotated[
        str | None, Query(max_length=64, description="Line range A-B (1-based), A, or A-.")
    ] = None,
    grep: Annotated[
        str | None,
        Query(min_length=1, max_length=4096, description="Python regex over the ref's UTF-8 bytes."),
    ] = None,
    context: Annotated[int | None, Query(ge=0, le=1000, description="Lines around each match.")] = None,
    ignore_case: Annotated[bool | None, Query(description="Case-insensitive grep.")] = None,
    json_path: Annotated[
        str | None, Query(max_length=4096, description="Subtree of a JSON ref: items[737].error.")
    ] = None,
    head: Annotated[int | None, Query(ge=1, description="The first N lines.")] = None,
    tail: Annotated[int | None, Query(ge=1, description="The last N lines.")] = None,
    budget_tokens: Annotated[
        int | None, Query(ge=0, le=MAX_BUDGET_TOKENS, description="Token budget (default 4000).")
    ] = None,
) -> Response:
    """A ref from the compression store: its metadata and exact bytes (UTF-8 or base64).

    With any query parameter, a drill-down answer instead (as `tokens show-ref --json`):
    the lines, grep matches, JSON subtree, head or tail asked for, within `budget_tokens`.
    """
    from tokenlab.store import Store

    drill = (lines, grep, context, ignore_case, json_path, head, tail, budget_tokens)
    if any(value is not None for value in drill):
        from tokenlab.agent.expand import expand_ref

        view = expand_ref(
            Store.resolve(settings.store_dir),
            ref_id,
            lines=lines,
            grep=grep,
            context=context or 0,
            ignore_case=bool(ignore_case),
            json_path=json_path,
            head=head,
            tail=tail,
            budget_tokens=budget_tokens,
        )
        return settings.reply(view.as_dict())
    record = Store.resolve(settings.store_dir).load(ref_id)
    try:
        data, encoding = record.data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        data, encoding = base64.b64encode(record.data).decode("ascii"), "base64"
    return settings.reply(
        {
            "id": record.id,
            "sha256": record.sha256,
            "source": record.source,
            "content_type": record.content_type,
            "reason": record.reason,
            "length": record.length,
            "encoding": encoding,
            "data": data,
        }
    )


async def _domain_error(_: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, TokenlabError)
    return JSONResponse({"detail": str(error)}, status_code=status_for(error))


def create_app(
    root: Path,
    token: str | None = None,
    *,
    node: str | None = None,
    store_dir: Path | None = None,
    summarizer: Summarizer | None = None,
    allowed_hosts: Sequence[str] | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
) -> FastAPI:
    """The HTTP app serving files under `root`; `token` (if set) is required on every request."""
    app = FastAPI(
        title="tokenlab",
        summary="Budgeted reads, search and evidence pointers for coding agents.",
        version="1",
    )
    app.state.settings = ServerSettings(root.resolve(), node, store_dir, summarizer, max_response_bytes)
    app.add_exception_handler(TokenlabError, _domain_error)
    for method, path, endpoint, model in (
        ("POST", "/v1/files/read", read_file, ReadOut),
        ("POST", "/v1/search", search_files, SearchOut),
        ("POST", "/v1/deref", deref_pointer, DerefOut),
        ("GET", "/v1/refs/{ref_id}", get_ref, RefOut | RefViewOut),
    ):
        app.add_api_route(
            path, endpoint, methods=[method], responses={200: {"model": model}}, response_class=Response
        )
    app.add_middleware(Guard, token=token, allowed_hosts=allowed_hosts, max_body=max_body_bytes)
    return app


def _confine_pointer(root: Path, path: str, rev: str, base: Path | None) -> None:
    """A pointer's file must lie under the root: on disk for `worktree`, by name for commits."""
    target = Path(path) if base is None else base / path
    if rev == WORKTREE:
        if target.exists():
            confine(root, str(target))
        elif not Path(os.path.normpath(target)).is_relative_to(root):
            raise ForbiddenPathError(f"{path!r} is outside the served root")
    elif not Path(os.path.normpath(target)).is_relative_to(root):
        raise ForbiddenPathError(f"{path!r} is outside the served root")
