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

The token, Host and body-size checks are `guard.Guard`'s, shared with `tokens mcp --http`.
FastAPI is an optional extra (`tokenlab[serve]`); only this module imports it.
"""

from __future__ import annotations

import base64
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated, Any, Literal, Self, TypeVar

import orjson
from fastapi import Depends, FastAPI, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator
from pydantic.config import JsonDict

from tokenlab.errors import InputError, RefNotFoundError, StoreUnavailableError, TokenlabError
from tokenlab.reads import views
from tokenlab.reads.pointers import (
    PointerTargetError,
    VerificationError,
    base_folder,
    parse_pointer,
)
from tokenlab.reads.summary import Summarizer
from tokenlab.serve.confine import ForbiddenPathError, NotFoundError, confine
from tokenlab.serve.confine import confine_pointer as _confine_pointer
from tokenlab.serve.guard import WORK_SLOTS, Guard
from tokenlab.serve.shapes import DerefOut, ErrorOut, PackOut, ReadOut, RefOut, RefViewOut, SearchOut

T = TypeVar("T")
DEFAULT_MAX_BODY_BYTES = 64 * 1024
DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024
MAX_BUDGET_TOKENS = 1_000_000


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
    (StoreUnavailableError, 503),
)


def status_for(error: TokenlabError) -> int:
    for kind, status in _STATUS:
        if isinstance(error, kind):
            return status
    return 400 if error.exit_code == 2 else 500


# --- request bodies (the responses are `shapes.py`'s) ----------------------------------------


# Field patterns. Each is a subset of what the CLI's parser accepts (`LineRange.parse`,
# `parse_pointer`, `parse_ref_id`), enforced here, so a request that matches the schema is
# never refused for its form. What a pattern cannot say is in `_RULES` and answered 400.
LINES_PATTERN = r"^[1-9][0-9]{0,8}(-([1-9][0-9]{0,8})?)?$"
REF_ID_PATTERN = r"^(#ref:)?ctx_[0-9a-f]{6,64}$"
SHA256_PATTERN = r"^[0-9a-fA-F]{64}$"
_SEGMENT = r"(?:[^/.\x00][^/\x00]*|\.(?:[^/.\x00][^/\x00]*)?|\.\.[^/\x00]+)"  # never ".."
_FIRST = r"(?:[^\s\x1c-\x1f/.\x00][^/\x00]*|\.(?:[^/.\x00][^/\x00]*)?|\.\.[^/\x00]+)"
POINTER_PATTERN = (
    rf"^(?:nas://[^/\x00]+/[^/\x00]*/{_SEGMENT}(?:/{_SEGMENT})*|(?:/{_SEGMENT}|{_FIRST})(?:/{_SEGMENT})*)"
    r"@[0-9A-Za-z._/~^][0-9A-Za-z._/~^-]*(#L[1-9][0-9]{0,8}(-L[1-9][0-9]{0,8})?)?$"
)
_RULES = (
    "Rules the schema cannot state, answered 400: a line range's end may not precede its "
    "start (`lines`, a pointer's `#L`); `lines` past the end of the file; a `section` the "
    "file does not have; a `grep` that is not a valid regular expression; a `json_path` "
    "into a ref that is not JSON or does not hold it. Ref drill-down options combine as "
    "`tokens show-ref`'s do: `lines` and `grep` together, or one of `json_path`, `head`, "
    "`tail`; `context` and `ignore_case` only with `grep`."
)


def _json_integer(value: object) -> object:
    """A JSON Schema integer: 5 or 5.0, never `true` or "5"."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# Strict (JSON `true` is not an integer, "1" is not a boolean), but 5.0 is the integer 5.
Integer = Annotated[int, BeforeValidator(_json_integer)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


# What `view` needs beside it, as the schema says it (`_view_has_its_argument` enforces it).
_VIEW_NEEDS: JsonDict = {
    "allOf": [
        {
            "if": {"properties": {"view": {"const": view}}, "required": ["view"]},
            "then": {"properties": {field: {"type": "string"}}, "required": [field]},
        }
        for view, field in (("section", "section"), ("lines", "lines"))
    ]
}


class ReadBody(_Body):
    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra=_VIEW_NEEDS)

    path: str = Field(
        min_length=1,
        pattern=r"\S",
        description="File under the served root (relative to it, or absolute inside it).",
    )
    view: Literal["auto", "outline", "section", "lines", "full"] = Field(
        "auto", description="`section` needs `section`, `lines` needs `lines`."
    )
    budget_tokens: Integer = Field(views.DEFAULT_BUDGET, ge=0, le=MAX_BUDGET_TOKENS)
    section: str | None = Field(None, min_length=1, description="Heading, symbol (Class.method) or key path.")
    lines: str | None = Field(None, pattern=LINES_PATTERN, description="A-B, A or A- (1-based).")

    @model_validator(mode="after")
    def _view_has_its_argument(self) -> Self:
        if self.view == "section" and self.section is None:
            raise ValueError("view section needs section")
        if self.view == "lines" and self.lines is None:
            raise ValueError("view lines needs lines")
        return self


class SummaryReadBody(ReadBody):
    """`ReadBody` on a server with a summarizer, which also offers the summary view."""

    view: Literal["auto", "outline", "section", "lines", "full", "summary"] = Field(  # type: ignore[assignment]
        "auto", description="`section` needs `section`, `lines` needs `lines`."
    )


class SearchBody(_Body):
    query: str = Field(min_length=1, max_length=4096, description="Text, or a Python regex with `regex`.")
    paths: list[Annotated[str, Field(min_length=1, pattern=r"\S")]] = Field(
        default_factory=list, description="Files or folders under the root (default: the root)."
    )
    budget_tokens: Integer = Field(2000, ge=0, le=MAX_BUDGET_TOKENS)
    regex: bool = False
    context: Integer = Field(1, ge=0, le=20)


class DerefBody(_Body):
    pointer: str = Field(
        pattern=POINTER_PATTERN,
        description="nas://node/tree/path@commit#L1-L2 or path@commit#L1-L2 (no `..` segment).",
    )
    verify: str | None = Field(
        None, pattern=SHA256_PATTERN, description="Expected sha256; 409 when the lines differ."
    )


class PackBody(_Body):
    paths: list[Annotated[str, Field(min_length=1, pattern=r"\S")]] = Field(
        default_factory=list, max_length=10_000, description="Files or folders under the root (default: the root)."
    )
    query: str | None = Field(None, min_length=1, max_length=4096, description="What the pack is for.")
    budget_tokens: Integer = Field(8000, ge=0, le=MAX_BUDGET_TOKENS)


# --- the app ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ServerSettings:
    """What every route needs; kept on `app.state.settings`."""

    root: Path
    node: str | None
    store_dir: str | Path | None  # a `--store` value
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


async def _settings(request: Request) -> ServerSettings:
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


def pack_files(body: PackBody, settings: Settings) -> Response:
    """The best views of many files within `budget_tokens` (as `tokens pack --json`)."""
    from tokenlab.pack import PackRequest, pack
    from tokenlab.store import shared_store

    root = settings.root
    paths = tuple(confine(root, path) for path in body.paths) or (root,)
    request = PackRequest(paths=paths, query=body.query, budget_tokens=body.budget_tokens)
    cache = shared_store(settings.store_dir).root
    result = pack(request, cache, node=settings.node, allow=lambda path: path.is_relative_to(root))
    return settings.reply(result.as_dict())


def get_ref(
    ref_id: Annotated[str, PathParam(pattern=REF_ID_PATTERN, description="ctx_<hex> or #ref:ctx_<hex>.")],
    settings: Settings,
    lines: Annotated[
        str | None, Query(pattern=LINES_PATTERN, description="Line range A-B (1-based), A, or A-.")
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
    from tokenlab.store import shared_store

    # The ref first: an id that is not in the store is 404 whatever the options say.
    record = shared_store(settings.store_dir).load(ref_id)
    drill = (lines, grep, context, ignore_case, json_path, head, tail, budget_tokens)
    if any(value is not None for value in drill):
        from tokenlab.refs.expand import RefQuery, expand_data

        query = RefQuery(lines, grep, context or 0, bool(ignore_case), json_path, head, tail, budget_tokens)
        return settings.reply(expand_data(record.data, query, ref_id=record.id).as_dict())
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
    store_dir: str | Path | None = None,
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
    refusals = {400, 413, 500} | ({401} if token is not None else set())
    host_checked = {403} if allowed_hosts is not None else set()
    for method, path, endpoint, model, errors in (
        ("POST", "/v1/files/read", read_file, ReadOut, {403, 404}),
        ("POST", "/v1/search", search_files, SearchOut, {403, 404}),
        ("POST", "/v1/deref", deref_pointer, DerefOut, {403, 404, 409}),
        ("POST", "/v1/pack", pack_files, PackOut, {403, 404}),
        ("GET", "/v1/refs/{ref_id}", get_ref, RefOut | RefViewOut, {404} | host_checked),
    ):
        body = SummaryReadBody if endpoint is read_file and summarizer is not None else None
        app.add_api_route(
            path,
            in_turn(endpoint, body),
            methods=[method],
            responses={200: {"model": model}, **_error_responses(refusals | errors)},
            response_class=Response,
        )
    app.add_middleware(Guard, token=token, allowed_hosts=allowed_hosts, max_body=max_body_bytes)
    if token is not None:
        _declare_bearer(app)
    return app


# --- documented refusals ------------------------------------------------------------------

_ERRORS = {
    400: "The request is well formed but cannot be answered as asked. " + _RULES,
    401: "The server was started with a token and this request lacks `Authorization: Bearer <token>`.",
    403: "A path outside the served root (`..`, an absolute path elsewhere, a symlink that "
    "leads out, percent-encoded tricks), or a Host header other than a loopback name.",
    404: "No such file under the root, commit, line range in that file, or ref in the store.",
    409: "`verify` does not match the sha256 of the lines the pointer names.",
    413: "The request body is over the server's cap, or the answer would be: lower `budget_tokens`.",
    500: "The server could not answer (for example, a store entry failed its hash check).",
}


def _error_responses(codes: set[int]) -> dict[int | str, dict[str, Any]]:
    responses: dict[int | str, dict[str, Any]] = {}
    for code in sorted(codes):
        responses[code] = {"model": ErrorOut, "description": _ERRORS[code]}
        if code == 401:
            responses[code]["headers"] = {
                "WWW-Authenticate": {"description": "`Bearer`", "schema": {"type": "string"}}
            }
    return responses


def _declare_bearer(app: FastAPI) -> None:
    """Say in the OpenAPI schema that every operation needs the bearer token."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = build()
            schemes = schema.setdefault("components", {}).setdefault("securitySchemes", {})
            schemes["bearer"] = {"type": "http", "scheme": "bearer"}
            schema["security"] = [{"bearer": []}]
        return app.openapi_schema or {}

    app.openapi = openapi  # type: ignore[method-assign]


def in_turn(endpoint: Callable[..., T], body: type[BaseModel] | None = None) -> Callable[..., Any]:
    """`endpoint` as an async route that runs in `WORK_SLOTS`, with the same parameters
    (its `body` parameter typed as `body`, when given)."""
    signature = inspect.signature(endpoint, eval_str=True)
    if body is not None:
        signature = signature.replace(
            parameters=[
                param.replace(annotation=body) if param.name == "body" else param
                for param in signature.parameters.values()
            ]
        )

    async def route(**arguments: Any) -> T:
        return await WORK_SLOTS.run(partial(endpoint, **arguments))

    route.__signature__ = signature  # type: ignore[attr-defined]
    route.__name__, route.__doc__ = endpoint.__name__, endpoint.__doc__
    return route
