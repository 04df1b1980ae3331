"""The response objects, one pydantic model each: what `tokens serve` documents in its
OpenAPI schema, what `tokens mcp` declares as each tool's output schema, and the shape
`--json` prints.

`--json` is printed from the library's own results (`as_dict()`), because pydantic is not
a dependency of the base install; `tests/test_shapes.py` holds every `--json` object to
its model here, field for field, so a field added in one place and missed in another fails
the tests. HTTP and MCP use these classes directly (the SDK checks every tool result against
them).

Only pydantic is imported: no FastAPI, no MCP SDK.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

# --- reads, search, pointers, packs: tokens serve and tokens mcp -------------------------------


class ErrorOut(BaseModel):
    """Every refusal but 422's: one line saying what was wrong."""

    detail: str


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


class PackedOut(BaseModel):
    path: str
    view: Literal["full", "section", "outline", "stub"]
    detail: str
    tokens: int
    relevance: float
    evidence: list[EvidenceOut]


class LeftOutOut(BaseModel):
    path: str
    reason: str


class PackOut(BaseModel):
    """As `tokens pack --json`: `content` (the whole document) never exceeds `budget_tokens`."""

    query: str | None
    budget_tokens: int
    tokens: int
    candidates: int
    chosen: list[PackedOut]
    left_out: list[LeftOutOut]
    content: str


# --- tokens changes, tokens analyze and tokens run: tokens mcp ---------------------------------


class ChangesOut(BaseModel):
    path: str
    since: str
    to: str
    view: str
    budget_tokens: int
    tokens: int
    truncated: bool
    degraded_from: str | None
    cut: str | None
    note: str
    files_changed: int
    hunks: int
    content: str
    evidence: list[EvidenceOut]


class VisibleOut(BaseModel):
    text: str
    bytes: int
    tokens: int


class StoredRefOut(BaseModel):
    id: str
    reason: str
    bytes: int


class CompressOut(BaseModel):
    """As `tokens analyze --json`."""

    source: str
    type: str | None
    raw: dict[str, int]
    visible: VisibleOut
    marker_tokens: int
    referenced_tokens: int
    saved_pct: float
    refs: list[StoredRefOut]
    secrets_masked: int
    signal: dict[str, Any]
    recovery: dict[str, Any]
    trace: list[dict[str, str]]


class RunOut(CompressOut):
    """As `tokens run --shell COMMAND --json` (one stream: without `--split`)."""

    command: str
    shell: bool
    exit_status: int
    timed_out: bool
    duration_s: float


# --- tokens proxy: its own answers, in the shape of the API the client speaks ----------------


class ProxyAnthropicErrorDetail(BaseModel):
    type: Literal["api_error"]
    message: str


class ProxyAnthropicErrorOut(BaseModel):
    """`tokens proxy`'s refusal or unreachable upstream (403, 502) on an Anthropic path."""

    type: Literal["error"]
    error: ProxyAnthropicErrorDetail


class ProxyOpenAIErrorDetail(BaseModel):
    message: str
    type: Literal["api_error"]
    param: None
    code: None


class ProxyOpenAIErrorOut(BaseModel):
    """`tokens proxy`'s refusal or unreachable upstream (403, 502) on any other path."""

    error: ProxyOpenAIErrorDetail
