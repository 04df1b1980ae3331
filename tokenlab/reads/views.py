"""Budgeted reads: the most useful view of a file that fits in N tokens, said honestly.

This module turns a request (view, budget, section or lines) into a ladder of candidate
views (see `ladder`) and the chosen candidate into the response object the CLI and the
HTTP server print: content, exact token count, the view it degraded from, and evidence
pointers with the sha256 of the lines they name.

Nothing is silently cut: a view that does not fit degrades to a coarser one and the
response names the view it degraded from. Only when even the stub does not fit is the
stub itself cut, and then `truncated` is true and `cut` says what went.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokenlab.counting import tokens
from tokenlab.errors import InputError
from tokenlab.reads.ladder import (
    Candidate,
    Ladder,
    OutlineRungs,
    View,
    cut_to_fit,
    outline_dicts,
    rebuild,
    symbol_levels,
)
from tokenlab.reads.pointers import Evidence, SourceFile, open_source

if TYPE_CHECKING:
    from tokenlab.reads.outline import Outline, Symbol
    from tokenlab.reads.summary import Summarizer

DEFAULT_BUDGET = 4000
_LINES_RE = re.compile(r"\s*(\d+)\s*(?:(-)\s*(\d*)\s*)?\Z")

__all__ = [
    "DEFAULT_BUDGET",
    "LineRange",
    "ReadOptions",
    "ReadRequest",
    "ReadResponse",
    "View",
    "read",
    "read_source",
]


@dataclass(frozen=True)
class LineRange:
    start: int
    end: int | None  # None: to the end of the file

    @classmethod
    def parse(cls, text: str) -> LineRange:
        """`A-B`, `A` (one line) or `A-` (to the end); lines are 1-based."""
        match = _LINES_RE.match(text)
        if not match:
            raise InputError(f"--lines expects A-B, A or A- (1-based), not {text!r}")
        start = int(match.group(1))
        end = None if match.group(2) and not match.group(3) else int(match.group(3) or start)
        if start < 1 or (end is not None and end < start):
            raise InputError(f"--lines {text}: lines start at 1 and the end may not precede the start")
        return cls(start, end)


@dataclass(frozen=True)
class ReadRequest:
    path: Path
    view: View = View.AUTO
    budget_tokens: int = DEFAULT_BUDGET
    section: str | None = None
    lines: LineRange | None = None

    @property
    def effective_view(self) -> View:
        """`auto` with --section or --lines means that view."""
        if self.view is View.AUTO and self.section is not None:
            return View.SECTION
        if self.view is View.AUTO and self.lines is not None:
            return View.LINES
        return self.view


@dataclass(frozen=True)
class ReadOptions:
    node: str | None = None
    summarizer: Summarizer | None = None


@dataclass(frozen=True)
class ReadResponse:
    path: str
    view: str
    requested_view: str
    budget_tokens: int
    tokens: int
    generated: bool
    truncated: bool
    degraded_from: str | None
    content: str
    outline: list[dict[str, Any]] | None
    evidence: tuple[Evidence, ...]
    stale: bool = False
    cut: str | None = None
    note: str = ""
    raw: bytes | None = field(default=None, repr=False, compare=False)

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "view": self.view,
            "requested_view": self.requested_view,
            "budget_tokens": self.budget_tokens,
            "tokens": self.tokens,
            "generated": self.generated,
            "stale": self.stale,
            "truncated": self.truncated,
            "degraded_from": self.degraded_from,
            "cut": self.cut,
            "note": self.note,
            "content": self.content,
            "outline": self.outline,
            "evidence": [item.as_dict() for item in self.evidence],
        }

    @property
    def header(self) -> str:
        """The one line the CLI prints on stderr."""
        flags = [f"requested {self.requested_view}"]
        if self.degraded_from:
            flags.append(f"degraded from {self.degraded_from}")
        flags += [name for name in ("generated", "stale", "truncated") if getattr(self, name)]
        pointer = self.evidence[0].pointer if self.evidence else ""
        return (
            f"{self.path}: {self.view}, {self.tokens}/{self.budget_tokens} tokens "
            f"({'; '.join(flags)}) {pointer}".rstrip()
        )


# --- building the ladder for each requested view ------------------------------------------


class FileReader:
    """Everything one read of one file needs, computed at most once."""

    def __init__(self, source: SourceFile, options: ReadOptions) -> None:
        self.source = source
        self.options = options
        self.text = source.data.decode("utf-8", errors="replace")
        self._outline: Outline | None = None
        self.notes: list[str] = []

    @property
    def outline(self) -> Outline:
        if self._outline is None:
            from tokenlab.reads.outline import outline

            self._outline = outline(self.source.display_path, self.text)
        return self._outline

    @property
    def offsets(self) -> list[int]:
        return self.source.offsets

    def slice(self, start: int, end: int) -> bytes:
        return self.source.data[self.offsets[start - 1] : self.offsets[end]]

    def whole(self) -> tuple[tuple[int, int], ...]:
        count = self.source.line_count
        return ((1, count),) if count else ()

    def full(self) -> Candidate:
        return Candidate(View.FULL, self.text, self.whole(), raw=self.source.data)

    def exact_lines(self, view: View, start: int, end: int, note: str = "") -> Candidate:
        raw = self.slice(start, end)
        return Candidate(view, raw.decode("utf-8", errors="replace"), ((start, end),), raw=raw, note=note)

    def summary(self, required: bool) -> Candidate | None:
        """The generated summary; when `auto` merely offers it, a failing summarizer is a note."""
        from tokenlab.reads.summary import SummaryError

        if self.options.summarizer is None:
            return None
        try:
            made = self.options.summarizer.summarize(self.source)
        except SummaryError as error:
            if required:
                raise
            self.notes.append(f"summary unavailable: {error}")
            return None
        return Candidate(
            View.SUMMARY, made.text, self.whole(), generated=True, stale=made.stale, note=made.note
        )

    def stub(self, ranges: tuple[tuple[int, int], ...], label: str = "") -> Candidate:
        """One line: the pointer (which names the file) and the size of what it points at."""
        source = self.source
        if ranges and ranges[0] != (1, source.line_count):
            start, end = ranges[0]
            size = (
                f"{end - start + 1:,} of {source.line_count:,} lines, {len(self.slice(start, end)):,} bytes"
            )
        else:
            size = f"{source.line_count:,} lines, {len(source.data):,} bytes, {self.outline.language}"
        pointer = source.pointer(*ranges[0]) if ranges else source.pointer()
        return Candidate(
            View.STUB, f"{pointer.uri} ({label.strip() + ': ' if label else ''}{size})\n", ranges
        )

    def outline_rungs(
        self, symbols: tuple[Symbol, ...] | None = None
    ) -> list[Callable[[], Candidate | None]]:
        outline = self.outline if symbols is None else replace(self.outline, symbols=symbols)
        return OutlineRungs(outline, self.text).rungs()


def _section_symbol(reader: FileReader, name: str) -> Symbol:
    from tokenlab.reads.outline import find_section

    symbol = find_section(reader.outline, name)
    if symbol is None:
        names = ", ".join(symbol.name for symbol in reader.outline.symbols[:12])
        raise InputError(
            f"no section {name!r} in {reader.source.display_path}"
            + (f"; top-level symbols: {names}" if names else " (its outline has no symbols)")
        )
    return symbol


def _line_span(reader: FileReader, lines: LineRange) -> tuple[int, int, str]:
    total = reader.source.line_count
    if lines.start > total:
        raise InputError(
            f"--lines starts at {lines.start} but {reader.source.display_path} has {total} lines"
        )
    end = total if lines.end is None else min(lines.end, total)
    note = f"end clamped to the last line, L{total}" if lines.end is not None and lines.end > total else ""
    return lines.start, end, note


def _overlapping(reader: FileReader, start: int, end: int) -> tuple[Symbol, ...]:
    levels = symbol_levels(reader.outline.symbols)
    return rebuild(levels, lambda _, __, symbol: symbol.start_line <= end and symbol.end_line >= start)


@dataclass(frozen=True)
class Plan:
    """The rungs for a requested view: `linear` exact or generated views, then outline rungs."""

    rungs: list[Callable[[], Candidate | None]]
    linear: int
    stub_ranges: tuple[tuple[int, int], ...]
    stub_label: str = ""


def build_ladder(reader: FileReader, request: ReadRequest) -> Plan:
    """The rungs for the requested view, the ranges its stub names, and the stub's label."""
    view = request.effective_view
    rungs: list[Callable[[], Candidate | None]] = []
    if view is View.SECTION:
        if not request.section:
            raise InputError("--view section needs --section NAME")
        symbol = _section_symbol(reader, request.section)
        span = (symbol.start_line, symbol.end_line)
        rungs += [lambda: reader.exact_lines(View.SECTION, *span), *reader.outline_rungs((symbol,))]
        return Plan(rungs, 1, (span,), f" {symbol.name}")
    if view is View.LINES:
        if request.lines is None:
            raise InputError("--view lines needs --lines A-B")
        start, end, note = _line_span(reader, request.lines)
        rungs += [lambda: reader.exact_lines(View.LINES, start, end, note)]
        rungs += reader.outline_rungs(_overlapping(reader, start, end))
        return Plan(rungs, 1, ((start, end),))
    if view is View.SUMMARY and reader.options.summarizer is None:
        raise InputError("the summary view needs a summarizer (--summarizer CMD or $TOKENLAB_SUMMARIZER)")
    if view in (View.AUTO, View.FULL):
        rungs.append(reader.full)
    if view is View.SUMMARY or (view is View.AUTO and reader.options.summarizer is not None):
        rungs.append(lambda: reader.summary(required=view is View.SUMMARY))
    return Plan(rungs + reader.outline_rungs(), len(rungs), reader.whole())


def _evidence(
    reader: FileReader, candidate: Candidate, anchor: tuple[tuple[int, int], ...]
) -> tuple[Evidence, ...]:
    """The range the read is about first (file, section or lines), then what the view shows."""
    ranges = (
        [*anchor, *candidate.ranges]
        if candidate.view in (View.OUTLINE, View.STUB)
        else list(candidate.ranges)
    )
    if not ranges:
        return (reader.source.evidence(),)
    return tuple(reader.source.evidence(start, end) for start, end in dict.fromkeys(ranges))


def _respond(
    reader: FileReader,
    request: ReadRequest,
    candidate: Candidate,
    anchor: tuple[tuple[int, int], ...],
    **extra: Any,
) -> ReadResponse:
    view = request.effective_view
    requested = View.FULL if view is View.AUTO else view
    degraded = candidate.view is not requested or not candidate.complete
    if view is View.AUTO and candidate.view in (View.FULL, View.SUMMARY):
        degraded = False
    outline_note = reader.outline.note if candidate.outline else ""
    notes = [note for note in (candidate.note, outline_note, *reader.notes, _lossy(reader)) if note]
    return ReadResponse(
        path=reader.source.display_path,
        view=candidate.view.value,
        requested_view=request.view.value if request.view is View.AUTO else view.value,
        budget_tokens=request.budget_tokens,
        tokens=tokens.count(candidate.content),
        generated=candidate.generated,
        truncated=extra.get("truncated", False),
        degraded_from=requested.value if degraded else None,
        content=candidate.content,
        outline=outline_dicts(candidate.outline.symbols) if candidate.outline else None,
        evidence=_evidence(reader, candidate, anchor),
        stale=candidate.stale,
        cut=extra.get("cut"),
        note="; ".join(notes),
        raw=candidate.raw,
    )


def _lossy(reader: FileReader) -> str:
    if "\ufffd" in reader.text and reader.text.encode("utf-8") != reader.source.data:
        return "not valid UTF-8: undecodable bytes are shown as U+FFFD (evidence hashes cover the raw bytes)"
    return ""


def read_source(source: SourceFile, request: ReadRequest, options: ReadOptions | None = None) -> ReadResponse:
    """The most detailed view of `source` for `request` that fits its budget."""
    if request.budget_tokens < 0:
        raise InputError("the budget must be zero or more tokens")
    reader = FileReader(source, options or ReadOptions())
    plan = build_ladder(reader, request)
    stub_ranges, label = plan.stub_ranges, plan.stub_label
    ladder = Ladder([*plan.rungs, lambda: reader.stub(stub_ranges, label)], plan.linear)
    index = ladder.first_fitting(request.budget_tokens)
    if index is not None:
        candidate = ladder.candidate(index)
        assert candidate is not None
        return _respond(reader, request, candidate, stub_ranges)
    stub = reader.stub(stub_ranges, label)
    content = cut_to_fit(stub.content, request.budget_tokens)
    cut = (
        f"even the one-line stub ({tokens.count(stub.content)} tokens) does not fit; "
        f"it was cut to {tokens.count(content)} tokens"
    )
    return _respond(reader, request, replace(stub, content=content), stub_ranges, truncated=True, cut=cut)


def read(request: ReadRequest, options: ReadOptions | None = None) -> ReadResponse:
    """Read `request.path` from disk and return its budgeted view."""
    options = options or ReadOptions()
    return read_source(open_source(request.path, options.node), request, options)
