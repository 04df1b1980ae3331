"""Drill-down into refs: lines, grep, a JSON subtree, head or tail of a stored ref, in a budget.

A marker hides bytes; `expand_ref` is the way back. It answers one question about a ref
(these lines, the lines matching this pattern, this JSON subtree, the first or last N
lines) with exact bytes when they fit `budget_tokens` (exact o200k_base counts), and
otherwise with the most it can show plus what it left out and how to ask for the rest:
`truncated`, the match count, and `next`, the options that continue where it stopped.
Line numbers are those of the ref's bytes (lines end at `\\n`; a `\\r` stays in its line).

Refs can be 100 MB and more, so nothing here loops over lines in Python: line starts are
found with `bytes.count`/`bytes.find` over 64 KiB checkpoints, grep runs one compiled
bytes regex over the buffer and counts matching lines, and a JSON path is walked over
the bytes by `json_path.Walker`, which skips what precedes the target without parsing it.
"""

from __future__ import annotations

import bisect
import itertools
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from tokenlab.counting import tokens
from tokenlab.errors import InputError
from tokenlab.reads.views import LineRange
from tokenlab.refs.json_path import Walker, parse_path, path_name

if TYPE_CHECKING:
    from tokenlab.store import Store

DEFAULT_BUDGET = 4000
LONG_LINE = 2000  # characters: a longer line is shown as a window of WINDOW characters
WINDOW = 240
_CHUNK = 1 << 16
_CLI_NAMES = {
    "grep": "--grep",
    "ignore_case": "--ignore-case",
    "context": "--context",
    "json_path": "--json-path",
    "lines": "--lines",
}


@dataclass(frozen=True)
class RefQuery:
    """What to show of a ref; at most one of lines/grep (which combine), json_path, head, tail."""

    lines: str | None = None
    grep: str | None = None
    context: int = 0
    ignore_case: bool = False
    json_path: str | None = None
    head: int | None = None
    tail: int | None = None
    budget_tokens: int | None = None

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> RefQuery:
        """The query named by the fields in `options` (a request, parsed arguments); other
        keys are ignored."""
        return cls(**{name: options[name] for name in QUERY_FIELDS if name in options})

    @property
    def budget(self) -> int:
        return DEFAULT_BUDGET if self.budget_tokens is None else self.budget_tokens

    @property
    def mode(self) -> str:
        for name in ("json_path", "grep", "head", "tail"):
            if getattr(self, name) is not None:
                return "json" if name == "json_path" else name
        return "lines"

    def check(self) -> None:
        groups = [self.lines is not None or self.grep is not None, self.json_path is not None]
        groups += [self.head is not None, self.tail is not None]
        if sum(groups) > 1:
            raise InputError("choose one of --lines/--grep (they combine), --json-path, --head, --tail")
        if self.budget < 0:
            raise InputError("the budget must be zero or more tokens")
        for name in ("head", "tail"):
            value = getattr(self, name)
            if value is not None and value < 1:
                raise InputError(f"--{name} must be 1 or more lines")
        if self.context < 0:
            raise InputError("--context must be zero or more lines")
        if (self.context or self.ignore_case) and self.grep is None:
            raise InputError("--context and --ignore-case go with --grep")


QUERY_FIELDS = tuple(item.name for item in fields(RefQuery))


@dataclass(frozen=True)
class RefView:
    """One drill-down answer: `text` (never over `budget_tokens`) and what it leaves out."""

    id: str
    mode: str
    total_lines: int
    total_bytes: int
    ranges: tuple[tuple[int, int], ...]
    text: str
    tokens: int
    budget_tokens: int
    truncated: bool
    matches: int | None = None
    matches_shown: int | None = None
    next_params: tuple[tuple[str, str], ...] = ()
    json_path: str | None = None
    note: str = ""
    raw: bytes | None = field(default=None, repr=False, compare=False)  # exact bytes of `text`

    @property
    def next(self) -> str | None:
        """The `show-ref` options that show what this answer left out, or None."""
        if not self.next_params:
            return None
        words: list[str] = []
        for name, value in self.next_params:
            words += [_CLI_NAMES[name]] if value == "true" else [_CLI_NAMES[name], value]
        return shlex.join(words)

    @property
    def lines_label(self) -> str:
        if not self.ranges:
            return "no lines"
        shown = ", ".join(f"L{a}" if a == b else f"L{a}-L{b}" for a, b in self.ranges[:4])
        return shown + (f" (+{len(self.ranges) - 4} ranges)" if len(self.ranges) > 4 else "")

    @property
    def header(self) -> str:
        """The one line the CLI prints on stderr."""
        parts = [f"{self.id}: {self.lines_label} of {self.total_lines:,} lines"]
        if self.json_path is not None:
            parts[0] += f", json path {self.json_path}"
        parts.append(f"{self.tokens:,}/{self.budget_tokens:,} tokens")
        if self.matches is not None:
            plural = "" if self.matches == 1 else "s"
            parts.append(f"{self.matches:,} matching line{plural}, {self.matches_shown:,} shown")
        if self.truncated:
            parts.append("truncated")
        if self.next:
            parts.append(f"more: {self.next}")
        if self.note:
            parts.append(self.note)
        return "; ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "mode": self.mode,
            "total_lines": self.total_lines,
            "total_bytes": self.total_bytes,
            "ranges": [list(pair) for pair in self.ranges],
            "text": self.text,
            "tokens": self.tokens,
            "budget_tokens": self.budget_tokens,
            "truncated": self.truncated,
            "matches": self.matches,
            "matches_shown": self.matches_shown,
            "next": self.next,
            "next_params": dict(self.next_params) or None,
            "json_path": self.json_path,
            "note": self.note,
        }


def expand_ref(store: Store, ref_id: str, query: RefQuery) -> RefView:
    """Part of a stored ref, chosen by `query`, that fits its budget (default 4000 tokens).
    The query is checked before the ref is read."""
    query.check()
    record = store.load(ref_id)
    return expand_data(record.data, query, ref_id=record.id)


def expand_data(data: bytes, query: RefQuery, *, ref_id: str = "") -> RefView:
    """`expand_ref` over bytes already in hand (pure)."""
    query.check()
    index = LineIndex(data)
    answer = _Answer(ref_id, query, index)
    if query.json_path is not None:
        return _json_view(answer, query.json_path)
    if query.grep is not None:
        return _grep_view(answer, query.grep)
    if query.head is not None:
        return answer.span(1, min(query.head, index.total), from_end=False)
    if query.tail is not None:
        return answer.span(max(1, index.total - query.tail + 1), index.total, from_end=True)
    start, end = _scope(index, query.lines)
    return answer.span(start, end, from_end=False)


# --- lines of a large buffer, without a Python loop over them -------------------------------


class LineIndex:
    """1-based lines of `data`: newline counts per 64 KiB checkpoint, then C-level finds."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        counts = (data.count(b"\n", at, at + _CHUNK) for at in range(0, len(data), _CHUNK))
        self.before = list(itertools.accumulate(counts, initial=0))  # newlines before chunk i
        self.total = self.before[-1] + (1 if data and not data.endswith(b"\n") else 0)

    def start(self, line: int) -> int:
        """Byte offset where `line` starts; len(data) past the last line."""
        if line <= 1:
            return 0
        if line > self.total:
            return len(self.data)
        wanted = line - 1  # newlines before the line
        chunk = bisect.bisect_left(self.before, wanted) - 1
        at, seen = chunk * _CHUNK, self.before[chunk]
        while seen < wanted:
            at, seen = self.data.find(b"\n", at) + 1, seen + 1
        return at

    def line_of(self, offset: int) -> int:
        """The line holding byte `offset` (a newline belongs to the line it ends)."""
        offset = max(0, min(offset, len(self.data)))
        chunk = offset // _CHUNK
        return self.before[chunk] + self.data.count(b"\n", chunk * _CHUNK, offset) + 1

    def text(self, first: int, last: int) -> bytes:
        return self.data[self.start(first) : self.start(last + 1)]


def _scope(index: LineIndex, lines: str | None) -> tuple[int, int]:
    if lines is None:
        return 1, index.total
    wanted = LineRange.parse(lines)
    if wanted.start > index.total:
        raise InputError(f"--lines starts at {wanted.start} but the ref has {index.total} lines")
    return wanted.start, index.total if wanted.end is None else min(wanted.end, index.total)


# --- fitting ------------------------------------------------------------------------------


def byte_limit(budget: int) -> int:
    """Bytes beyond which a text surely exceeds `budget` (a character is at most 4 bytes)."""
    return budget * tokens.max_chars_per_token() * 4


def fits_bytes(data: bytes, budget: int) -> bool:
    return len(data) <= byte_limit(budget) and tokens.fits(_decode(data), budget)


def largest_fitting(count: int, render: Any, budget: int) -> int:
    """The largest k in 0..count with `tokens.fits(render(k), budget)`; render grows with k."""
    low, high, best = 1, count, 0
    while low <= high:
        middle = (low + high) // 2
        if tokens.fits(render(middle), budget):
            best, low = middle, middle + 1
        else:
            high = middle - 1
    return best


def cut(text: str, budget: int) -> str:
    """The longest prefix of `text` plus "…" that fits; empty when nothing does."""
    text = text[: budget * tokens.max_chars_per_token()]
    keep = largest_fitting(len(text), lambda k: text[:k] + "…", budget)
    return text[:keep] + "…" if keep else ""


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


class _Answer:
    """Builds RefViews for one query over one ref."""

    def __init__(self, ref_id: str, query: RefQuery, index: LineIndex) -> None:
        self.ref_id, self.query, self.index = ref_id, query, index

    def view(self, text: str, ranges: tuple[tuple[int, int], ...], **extra: Any) -> RefView:
        return RefView(
            id=self.ref_id,
            mode=self.query.mode,
            total_lines=self.index.total,
            total_bytes=len(self.index.data),
            ranges=ranges,
            text=text,
            tokens=tokens.count(text),
            budget_tokens=self.query.budget,
            truncated=extra.pop("truncated", False),
            **extra,
        )

    def span(self, first: int, last: int, *, from_end: bool) -> RefView:
        """Lines first..last, or as many as fit from the start (from the end for --tail)."""
        index, budget = self.index, self.query.budget
        count = max(0, last - first + 1)
        limit = byte_limit(budget)

        def lines(k: int) -> tuple[int, int]:
            return (last - k + 1, last) if from_end else (first, first + k - 1)

        def raw(k: int) -> bytes:
            return index.text(*lines(k)) if k else b""

        if fits_bytes(raw(count), budget):
            return self._exact(raw(count), (first, last) if count else None)
        if from_end:
            reach = index.line_of(max(index.start(last + 1) - limit, index.start(first)))
            bound = last - reach + 1
        else:
            bound = index.line_of(index.start(first) + limit) - first + 1
        shown = largest_fitting(min(count, bound), lambda k: _decode(raw(k)), budget)
        if shown == 0:
            return self._cut_line(lines(1)[0], (first, last))
        a, b = lines(shown)
        rest = f"{first}-{a - 1}" if from_end else f"{b + 1}-{last}"
        return self._exact(raw(shown), (a, b), truncated=True, next_params=(("lines", rest),))

    def _exact(self, data: bytes, lines: tuple[int, int] | None, **extra: Any) -> RefView:
        return self.view(_decode(data), (lines,) if lines else (), raw=data, **extra)

    def _cut_line(self, line: int, asked: tuple[int, int]) -> RefView:
        index = self.index
        begin, end = index.start(line), index.start(line + 1)
        length = end - begin
        head = _decode(index.data[begin : min(end, begin + byte_limit(self.query.budget))])
        text = cut(head, self.query.budget)
        note = f"L{line} alone ({length:,} bytes) does not fit; its start is shown"
        hint = ""
        if asked[1] > asked[0]:
            hint = f"{line + 1}-{asked[1]}" if line == asked[0] else f"{asked[0]}-{line - 1}"
        return self.view(
            text,
            ((line, line),) if text else (),
            truncated=True,
            note=note + "; try --grep or --json-path, or a larger budget",
            next_params=(("lines", hint),) if hint else (),
        )


# --- grep ---------------------------------------------------------------------------------


def compile_pattern(pattern: str, ignore_case: bool) -> re.Pattern[bytes]:
    """The pattern as a bytes regex (matched against the ref's UTF-8 bytes), or a one-line error."""
    flags = re.MULTILINE | (re.IGNORECASE if ignore_case else 0)
    try:
        return re.compile(pattern.encode("utf-8"), flags)
    except (re.error, UnicodeEncodeError) as error:
        raise InputError(
            f"bad --grep regex {pattern!r}: {error} (patterns match UTF-8 bytes; "
            "write non-ASCII characters literally)"
        ) from None


_CASE_ESCAPE = re.compile(r"\\[A-Z]")


def folded(pattern: str, ignore_case: bool, data: bytes) -> tuple[re.Pattern[bytes], bytes]:
    """The regex and the bytes to run it over: `-i` lowers both when that is the same search.

    A bytes regex folds ASCII letters only, as `bytes.lower` does, and lowering keeps every
    offset; a case-sensitive escape (`\\D`, `\\S`, `\\W`, `\\B`…) keeps IGNORECASE instead.
    Lowered, the scan runs at literal speed (IGNORECASE over 100 MB takes half a second).
    """
    regex = compile_pattern(pattern, ignore_case)
    if not ignore_case or _CASE_ESCAPE.search(pattern) or not pattern.isascii():
        return regex, data
    return compile_pattern(pattern.lower(), False), data.lower()


def find_matches(
    regex: re.Pattern[bytes], index: LineIndex, span: tuple[int, int], keep: int, data: bytes
) -> tuple[int, list[tuple[int, int, int]]]:
    """How many lines in `span` (byte offsets) match, and the first `keep` as (line, start, end).

    `data` is the ref's bytes or a same-length folding of them.
    """
    begin, end = span
    found: list[tuple[int, int, int]] = []
    total, line_end, line, at = 0, begin - 1, index.line_of(begin), begin
    for match in regex.finditer(data, begin, end):
        start = match.start()
        if start <= line_end:
            continue  # another match on a line already counted
        if start >= end and (end == 0 or data[end - 1] == 0x0A):
            break  # an empty match at the start of the line after the span
        total += 1
        line_end = data.find(b"\n", start)
        line_end = len(data) if line_end < 0 else line_end
        if len(found) < keep:
            line, at = line + data.count(b"\n", at, start), start
            found.append((line, start, match.end()))
    return total, found


def _show_line(data: bytes, start: int, end: int, hit: tuple[int, int] | None) -> str:
    """One line for display without its line break; a long line as a window (around `hit`)."""
    if end - start <= LONG_LINE:
        return _decode(data[start:end]).rstrip("\r")
    left = max(start, hit[0] - WINDOW // 2) if hit else start
    right = min(end, (min(hit[1], left + WINDOW) if hit else left) + WINDOW // 2)
    text = _decode(data[left:right]).rstrip("\r")
    return ("…" if left > start else "") + text + ("…" if right < end else "") + f" [{end - start:,} bytes]"


def _grep_view(answer: _Answer, pattern: str) -> RefView:
    query, index = answer.query, answer.index
    regex, haystack = folded(pattern, query.ignore_case, index.data)
    first, last = _scope(index, query.lines)
    span = (index.start(first), index.start(last + 1))
    total, found = find_matches(regex, index, span, query.budget // 2 + 1, haystack)
    del haystack
    blocks = _blocks(found, query.context, first, last)
    lines = _block_lines(index, found, blocks)

    def render(k: int) -> str:
        return _render_blocks(lines, blocks[:k])

    shown = largest_fitting(len(found), render, query.budget)
    text = render(shown)
    truncated = shown < total
    if found and shown == 0:
        text = cut(render(1), query.budget)
    ranges = _merge(blocks[:shown] if shown else blocks[:1] if text else [])
    params: tuple[tuple[str, str], ...] = ()
    if truncated:
        resume = found[shown - 1][0] + 1 if shown else found[0][0]
        resume += 0 if shown or not text else 1  # a cut first match: move past it
        params = (("grep", pattern),)
        params += (("ignore_case", "true"),) if query.ignore_case else ()
        params += (("context", str(query.context)),) if query.context else ()
        params += (("lines", f"{resume}-{last}"),) if resume <= last else ()
    note = "" if total else "no line matches"
    if truncated and shown == 0:
        note = "the first match alone does not fit; it is cut"
    return answer.view(
        text, ranges, truncated=truncated, matches=total, matches_shown=shown, next_params=params, note=note
    )


def _blocks(found: list[tuple[int, int, int]], context: int, first: int, last: int) -> list[tuple[int, int]]:
    return [(max(first, line - context), min(last, line + context)) for line, _, _ in found]


def _merge(blocks: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    merged: list[tuple[int, int]] = []
    for a, b in blocks:
        if merged and a <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return tuple(merged)


def _block_lines(
    index: LineIndex, found: list[tuple[int, int, int]], blocks: list[tuple[int, int]]
) -> dict[int, str]:
    """Every line the blocks show, rendered once: `L<n>: ` for a match, `L<n>- ` for context."""
    data, shown = index.data, {}
    for (line, start, end), (a, b) in zip(found, blocks, strict=True):
        at = data.rfind(b"\n", 0, start) + 1
        for _ in range(line - a):
            at = data.rfind(b"\n", 0, at - 1) + 1
        for number in range(a, b + 1):
            stop = data.find(b"\n", at)
            stop = len(data) if stop < 0 else stop
            if number == line or number not in shown:
                hit = (start, end) if number == line else None
                mark = ":" if hit else "-"
                shown[number] = f"L{number}{mark} {_show_line(data, at, stop, hit)}"
            at = stop + 1
    return shown


def _render_blocks(lines: dict[int, str], blocks: list[tuple[int, int]]) -> str:
    """The blocks' lines in order, `--` between groups that are not adjacent."""
    out: list[str] = []
    for number, (a, b) in enumerate(_merge(blocks)):
        if number:
            out.append("--")
        out += [lines[line] for line in range(a, b + 1)]
    return "\n".join(out) + "\n" if out else ""


def _json_view(answer: _Answer, path: str) -> RefView:
    segments = parse_path(path)
    data, index = answer.index.data, answer.index
    start, end = Walker(data, answer.ref_id).locate(segments)
    first, last = index.line_of(start), index.line_of(max(start, end - 1))
    subtree = data[start:end]
    budget, name = answer.query.budget, path_name(segments)
    if fits_bytes(subtree, budget):
        return answer.view(_decode(subtree), ((first, last),), raw=subtree, json_path=name)

    def piece(k: int) -> bytes:
        return data[start : min(end, index.start(first + k))]

    bound = index.line_of(start + byte_limit(budget)) - first + 1
    shown = largest_fitting(min(last - first, bound), lambda k: _decode(piece(k)), budget)
    note = f"{name} is {end - start:,} bytes on L{first}-L{last}; narrow the path or raise the budget"
    if shown == 0:
        text = cut(_decode(data[start : min(end, start + byte_limit(budget))]), budget)
        return answer.view(text, ((first, first),) if text else (), truncated=True, json_path=name, note=note)
    rest = (("lines", f"{first + shown}-{last}"),)
    return answer.view(
        _decode(piece(shown)),
        ((first, first + shown - 1),),
        truncated=True,
        raw=piece(shown),
        json_path=name,
        note=note,
        next_params=rest,
    )
