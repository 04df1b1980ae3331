"""The structured results of `tokens mcp`'s tools: the objects the CLI prints with `--json`.

They are the tools' output schemas, and the SDK checks every result against them, so
a change to a CLI's `--json` shape that is not made here fails the MCP tests.
"""

from __future__ import annotations

from typing import Any, Literal

from typing_extensions import TypedDict


class Evidence(TypedDict):
    pointer: str
    sha256: str


class ReadOutput(TypedDict):
    """As `tokens read --json`."""

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
    outline: list[dict[str, Any]] | None
    evidence: list[Evidence]


class Snippet(TypedDict):
    path: str
    start_line: int
    end_line: int
    match_lines: list[int]
    symbol: str
    score: float
    pointer: str
    sha256: str


class SearchOutput(TypedDict):
    """As `tokens search --json`."""

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
    snippets: list[Snippet]
    evidence: list[Evidence]


class Packed(TypedDict):
    path: str
    view: Literal["full", "section", "outline", "stub"]
    detail: str
    tokens: int
    relevance: float
    evidence: list[Evidence]


class LeftOut(TypedDict):
    path: str
    reason: str


class PackOutput(TypedDict):
    """As `tokens pack --json`."""

    query: str | None
    budget_tokens: int
    tokens: int
    candidates: int
    chosen: list[Packed]
    left_out: list[LeftOut]
    content: str


class DerefOutput(TypedDict):
    """As `tokens deref --json`."""

    pointer: str
    commit: str
    path: str
    start_line: int | None
    end_line: int | None
    sha256: str
    content: str
    verified: bool | None


class ChangesOutput(TypedDict):
    """As `tokens changes --json`."""

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
    evidence: list[Evidence]


class RefViewOutput(TypedDict):
    """As `tokens show-ref --json` with a drill-down option."""

    id: str
    mode: Literal["lines", "grep", "json", "head", "tail"]
    total_lines: int
    total_bytes: int
    ranges: list[list[int]]
    text: str
    tokens: int
    budget_tokens: int
    truncated: bool
    matches: int | None
    matches_shown: int | None
    next: str | None
    next_params: dict[str, str] | None
    json_path: str | None
    note: str


class Visible(TypedDict):
    text: str
    bytes: int
    tokens: int


class StoredRef(TypedDict):
    id: str
    reason: str
    bytes: int


class CompressOutput(TypedDict):
    """As `tokens analyze --json`."""

    source: str
    type: str | None
    raw: dict[str, int]
    visible: Visible
    marker_tokens: int
    referenced_tokens: int
    saved_pct: float
    refs: list[StoredRef]
    secrets_masked: int
    signal: dict[str, Any]
    recovery: dict[str, Any]
    trace: list[dict[str, str]]


class RunOutput(CompressOutput):
    """As `tokens run --shell COMMAND --json`."""

    command: str
    shell: bool
    exit_status: int
    timed_out: bool
    duration_s: float
