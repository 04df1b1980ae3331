"""Search within a token budget: ranked snippets, each labelled and pointed at, never whole files.

A search finds every matching line under the given paths (tracked and untracked files of
a git work tree, minus ignored ones; elsewhere every file below non-hidden folders),
groups nearby matches into snippets with a line of context, ranks them, and keeps the
best that fit the budget. Each snippet is labelled with the symbol or heading that
encloses it (from the file's outline) and carries an evidence pointer with the sha256 of
its lines. The last line always says how many matches were left out.

Ranking is deterministic: a match on the line that defines a symbol of that name scores
highest, then whole-word and exact-case matches; files full of matches rank a little
lower per match (the query is less specific there); ties go to path and line order.
"""

from __future__ import annotations

import bisect
import math
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokenlab.counting import tokens
from tokenlab.errors import InputError
from tokenlab.optimizers.lines.words import is_whole_word, window
from tokenlab.reads.pointers import (
    Evidence,
    SourceFile,
    default_node,
    git,
    line_count,
    locate,
    repo_root,
    revision_for,
)

if TYPE_CHECKING:
    from tokenlab.reads.outline import Outline

DEFAULT_BUDGET = 2000
MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_LINE_CHARS = 240
MAX_MATCHES_PER_SNIPPET = 6
MAX_OUTLINED_FILES = 300
_SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__"})


@dataclass(frozen=True)
class SearchRequest:
    query: str
    paths: tuple[Path, ...] = ()
    budget_tokens: int = DEFAULT_BUDGET
    regex: bool = False
    context: int = 1


@dataclass(frozen=True)
class Snippet:
    path: str
    start_line: int
    end_line: int
    match_lines: tuple[int, ...]
    symbol: str
    score: float
    text: str
    evidence: Evidence

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "match_lines": list(self.match_lines),
            "symbol": self.symbol,
            "score": round(self.score, 3),
            "pointer": self.evidence.pointer,
            "sha256": self.evidence.sha256,
        }


@dataclass(frozen=True)
class SearchResponse:
    query: str
    regex: bool
    budget_tokens: int
    tokens: int
    truncated: bool
    content: str
    matches_total: int
    matches_shown: int
    files_matched: int
    files_searched: int
    snippets: tuple[Snippet, ...]
    note: str = ""

    @property
    def matches_left_out(self) -> int:
        return self.matches_total - self.matches_shown

    @property
    def evidence(self) -> tuple[Evidence, ...]:
        return tuple(snippet.evidence for snippet in self.snippets)

    def as_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "regex": self.regex,
            "budget_tokens": self.budget_tokens,
            "tokens": self.tokens,
            "truncated": self.truncated,
            "matches_total": self.matches_total,
            "matches_shown": self.matches_shown,
            "matches_left_out": self.matches_left_out,
            "files_matched": self.files_matched,
            "files_searched": self.files_searched,
            "note": self.note,
            "content": self.content,
            "snippets": [snippet.as_dict() for snippet in self.snippets],
            "evidence": [item.as_dict() for item in self.evidence],
        }

    @property
    def header(self) -> str:
        return (
            f"search {self.query!r}: {self.matches_shown} of {self.matches_total} matches shown, "
            f"{self.tokens}/{self.budget_tokens} tokens" + (" (truncated)" if self.truncated else "")
        )


# --- which files ------------------------------------------------------------------------


def iter_files(paths: tuple[Path, ...], allow: Callable[[Path], bool] | None = None) -> Iterator[Path]:
    """Files under `paths` in a stable order, each once; `allow` vets resolved paths."""
    seen: set[Path] = set()
    for path in paths or (Path.cwd(),):
        if not path.exists():
            raise InputError(f"no such file or folder: {path}")
        candidates = [path] if path.is_file() else sorted(_folder_files(path))
        for candidate in candidates:
            resolved = candidate.resolve()
            if resolved in seen or not resolved.is_file() or (allow and not allow(resolved)):
                continue
            seen.add(resolved)
            yield candidate


def _folder_files(folder: Path) -> Iterator[Path]:
    if repo_root(folder) is not None:
        listing = git(folder, "ls-files", "-z", "--cached", "--others", "--exclude-standard").stdout
        for entry in listing.split(b"\0"):
            if entry:
                yield folder / os.fsdecode(entry)
        return
    for directory, folders, files in os.walk(folder):
        folders[:] = sorted(
            name for name in folders if not name.startswith(".") and name not in _SKIPPED_FOLDERS
        )
        for name in files:
            yield Path(directory) / name


# --- matching and ranking ------------------------------------------------------------------


def compile_query(query: str, regex: bool) -> re.Pattern[str]:
    """Literal queries are smart-case (case-insensitive unless they contain a capital)."""
    if not query:
        raise InputError("the search query is empty")
    flags = re.MULTILINE
    if regex:
        try:
            return re.compile(query, flags)
        except re.error as error:
            raise InputError(f"bad regular expression {query!r}: {error}") from error
    if query == query.lower():
        flags |= re.IGNORECASE
    return re.compile(re.escape(query), flags)


@dataclass
class FileMatches:
    path: Path
    data: bytes
    text: str
    lines: list[int]  # matching line numbers, ascending, each once
    exact: dict[int, float]  # line -> bonus for whole-word / exact-case matches
    outline: Outline | None = None

    @cached_property
    def text_lines(self) -> list[str]:
        return self.text.split("\n")


def _match_file(path: Path, pattern: re.Pattern[str], query: str) -> FileMatches | None:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if b"\0" in data[:8192]:
        return None
    text = data.decode("utf-8", errors="replace")
    starts: list[int] | None = None
    lines: dict[int, float] = {}
    for match in pattern.finditer(text):
        if match.start() == match.end():
            continue
        if starts is None:
            starts = [0, *(found.end() for found in re.finditer("\n", text))]
        line = bisect.bisect_right(starts, match.start())
        bonus = 0.5 * (match.group() == query) + 1.0 * is_whole_word(text, match.start(), match.end())
        lines[line] = max(lines.get(line, 0.0), bonus)
    if not lines:
        return None
    return FileMatches(path, data, text, sorted(lines), lines)


def _definition_lines(found: FileMatches, query: str) -> set[int]:
    """Lines that define a symbol named like the query: near its start, naming it."""
    from tokenlab.reads.symbols import walk

    wanted = query.casefold()
    lines: set[int] = set()
    for symbol in walk(found.outline.symbols) if found.outline else ():
        name = symbol.name.casefold()
        if symbol.kind == "chunk" or wanted not in name:
            continue
        last = min(symbol.end_line, symbol.start_line + 3, len(found.text_lines))
        for line in range(symbol.start_line, last + 1):
            if name in found.text_lines[line - 1].casefold():
                lines.add(line)
                break
    return lines


def _enclosing(outline: Outline | None, line: int) -> str:
    """Dotted names of the symbols around `line` (`Class.method`, `Intro/Renewal`)."""
    if outline is None:
        return ""
    names: list[str] = []
    level = outline.symbols
    while True:
        inside = [
            symbol
            for symbol in level
            if symbol.start_line <= line <= symbol.end_line and symbol.kind != "chunk"
        ]
        if not inside:
            break
        names.append(inside[-1].name)
        level = inside[-1].children
    return ("/" if outline.language == "markdown" else ".").join(names)


@dataclass(frozen=True)
class _Group:
    file: FileMatches
    start: int
    end: int
    matches: tuple[int, ...]
    score: float


def _groups(found: FileMatches, context: int, query: str) -> list[_Group]:
    """Nearby matches of one file merged into snippets, scored by their best line."""
    total_lines = line_count(found.data)
    definitions = _definition_lines(found, query)
    specificity = 1.0 / (1.0 + 0.25 * math.log(len(found.lines)))
    name_bonus = 0.5 if query.casefold() in found.path.name.casefold() else 0.0
    runs: list[list[int]] = []
    for line in found.lines:
        if runs and line - context <= runs[-1][-1] + context + 1 and len(runs[-1]) < MAX_MATCHES_PER_SNIPPET:
            runs[-1].append(line)
        else:
            runs.append([line])
    groups = []
    for run in runs:
        best = max(1.0 + found.exact[line] + (3.0 if line in definitions else 0.0) for line in run)
        score = best * specificity + name_bonus
        start, end = max(1, run[0] - context), min(total_lines, run[-1] + context)
        groups.append(_Group(found, start, end, tuple(run), score))
    return groups


# --- rendering within the budget ------------------------------------------------------------


def _clip(line: str, pattern: re.Pattern[str]) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    match = pattern.search(line)
    return window(line, match.start() if match else 0, MAX_LINE_CHARS)


def _snippet(group: _Group, source: SourceFile, pattern: re.Pattern[str]) -> Snippet:
    lines = group.file.text_lines
    body = []
    for number in range(group.start, group.end + 1):
        mark = ":" if number in group.matches else "-"
        body.append(f"{number}{mark}{_clip(lines[number - 1].rstrip(chr(13)), pattern)}")
    symbol = _enclosing(group.file.outline, group.matches[0])
    pointer = source.pointer(group.start, group.end)
    short = f"{pointer.path}@{pointer.rev[:12]}{pointer.fragment}"
    text = f"## {short}" + (f" ({symbol})" if symbol else "") + "\n" + "\n".join(body) + "\n"
    return Snippet(
        path=source.display_path,
        start_line=group.start,
        end_line=group.end,
        match_lines=group.matches,
        symbol=symbol,
        score=group.score,
        text=text,
        evidence=source.evidence(group.start, group.end),
    )


def _footer(shown: int, total: int, files: int) -> str:
    left = total - shown
    if not left:
        return f"[all {total} matches in {files} files shown]\n"
    return f"[{shown} of {total} matches shown; {left} left out (raise --budget or narrow the paths)]\n"


def search(
    request: SearchRequest,
    *,
    allow: Callable[[Path], bool] | None = None,
    node: str | None = None,
) -> SearchResponse:
    """Ranked snippets for `request.query` under `request.paths` that fit the budget."""
    if request.budget_tokens < 0:
        raise InputError("the budget must be zero or more tokens")
    pattern = compile_query(request.query, request.regex)
    files = list(iter_files(request.paths, allow))
    found = [match for path in files if (match := _match_file(path, pattern, request.query))]
    for index, file_matches in enumerate(found):
        if index < MAX_OUTLINED_FILES:
            from tokenlab.reads.outline import outline

            file_matches.outline = outline(file_matches.path.name, file_matches.text)
    groups = [
        group for file_matches in found for group in _groups(file_matches, request.context, request.query)
    ]
    groups.sort(key=lambda group: (-group.score, str(group.file.path), group.start))
    total = sum(len(group.matches) for group in groups)
    snippets, shown = _fill(groups, pattern, request.budget_tokens, total, len(found), node or default_node())
    footer = _footer(shown, total, len(found))
    content = "".join(snippet.text for snippet in snippets) + footer
    truncated = tokens.count(content) > request.budget_tokens
    if truncated:
        content = _cut(footer, request.budget_tokens)
    note = (
        f"outlines (symbol labels) only for the first {MAX_OUTLINED_FILES} files"
        if len(found) > MAX_OUTLINED_FILES
        else ""
    )
    return SearchResponse(
        query=request.query,
        regex=request.regex,
        budget_tokens=request.budget_tokens,
        tokens=tokens.count(content),
        truncated=truncated,
        content=content,
        matches_total=total,
        matches_shown=shown,
        files_matched=len(found),
        files_searched=len(files),
        snippets=tuple(snippets),
        note=note,
    )


def _fill(
    groups: list[_Group], pattern: re.Pattern[str], budget: int, total: int, files: int, node: str
) -> tuple[list[Snippet], int]:
    """Best-ranked snippets while they fit with the footer; the whole is re-measured exactly."""
    sources: dict[Path, SourceFile] = {}
    snippets: list[Snippet] = []
    used = shown = 0
    for group in groups:
        path = group.file.path
        if path not in sources:
            location = locate(path)
            sources[path] = SourceFile(
                location, group.file.data, revision_for(location, group.file.data), node
            )
        snippet = _snippet(group, sources[path], pattern)
        cost = tokens.count(snippet.text)
        if used + cost + tokens.count(_footer(shown + len(group.matches), total, files)) > budget:
            break
        snippets.append(snippet)
        used += cost
        shown += len(group.matches)
    while (
        snippets and tokens.count("".join(s.text for s in snippets) + _footer(shown, total, files)) > budget
    ):
        shown -= len(snippets.pop().match_lines)
    return snippets, shown


def _cut(text: str, budget: int) -> str:
    encoded = tokens.encoding().encode_ordinary(text)[:budget]
    cut = tokens.encoding().decode(encoded)
    while cut and tokens.count(cut) > budget:
        cut = cut[:-1]
    return cut
