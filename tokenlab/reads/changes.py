"""What changed in a file or folder between two commits, within a token budget.

An agent that read a file at commit C does not need the whole file again, only the
change since C. `changes` returns the unified diff when it fits; otherwise the diff as
the diff optimizer compresses it (omitted parts go to the store, behind `#ref:` markers);
otherwise one line per hunk; otherwise one line per file; and when even that does not
fit, the per-file list cut to the budget with `truncated: true`.

Every hunk that has lines on the newer side gets an evidence pointer into the newer
revision: the `--to` commit, or without `--to` the working tree (a file that matches HEAD
exactly is pointed at in HEAD's commit, like every other read).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tokenlab.counting import tokens
from tokenlab.errors import InputError
from tokenlab.reads.pointers import (
    WORKTREE,
    Evidence,
    Location,
    SourceFile,
    default_node,
    git,
    read_at_commit,
    repo_root,
    resolve_commit,
    revision_for,
)

DEFAULT_BUDGET = 4000
_HUNK_RE = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)")


@dataclass(frozen=True)
class ChangesRequest:
    path: Path
    since: str
    to: str | None = None
    budget_tokens: int = DEFAULT_BUDGET


@dataclass(frozen=True)
class Hunk:
    path: str
    new_start: int
    new_length: int
    old_start: int
    old_length: int
    heading: str


@dataclass(frozen=True)
class ChangesResponse:
    path: str
    since: str
    to: str
    view: str
    budget_tokens: int
    tokens: int
    truncated: bool
    degraded_from: str | None
    content: str
    files_changed: int
    hunks: int
    evidence: tuple[Evidence, ...]
    cut: str | None = None
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "since": self.since,
            "to": self.to,
            "view": self.view,
            "budget_tokens": self.budget_tokens,
            "tokens": self.tokens,
            "truncated": self.truncated,
            "degraded_from": self.degraded_from,
            "cut": self.cut,
            "note": self.note,
            "files_changed": self.files_changed,
            "hunks": self.hunks,
            "content": self.content,
            "evidence": [item.as_dict() for item in self.evidence],
        }

    @property
    def header(self) -> str:
        flags = [f"degraded from {self.degraded_from}"] if self.degraded_from else []
        flags += ["truncated"] if self.truncated else []
        extra = f" ({'; '.join(flags)})" if flags else ""
        return (
            f"{self.path}: changes {self.since[:12]}..{self.to[:12]}, {self.view}, "
            f"{self.tokens}/{self.budget_tokens} tokens, "
            f"{self.files_changed} files, {self.hunks} hunks{extra}"
        )


def parse_hunks(diff: str) -> list[Hunk]:
    """Hunk headers of a git diff, each with the file it belongs to (`+++ b/…` side)."""
    hunks: list[Hunk] = []
    path = ""
    remaining_old = remaining_new = 0
    for line in diff.split("\n"):
        if remaining_old > 0 or remaining_new > 0:
            if line.startswith(("-", " ")) or line == "":
                remaining_old -= 1
            if line.startswith(("+", " ")) or line == "":
                remaining_new -= 1
            continue
        if line.startswith("+++ "):
            target = line[4:].split("\t")[0]
            path = "" if target == "/dev/null" else target.removeprefix("b/")
        elif line.startswith("--- ") and not path:
            continue
        elif line.startswith("diff --git "):
            path = ""
        elif match := _HUNK_RE.match(line):
            old_start, old_length, new_start, new_length, heading = match.groups()
            remaining_old = int(old_length if old_length is not None else 1)
            remaining_new = int(new_length if new_length is not None else 1)
            hunks.append(
                Hunk(path, int(new_start), remaining_new, int(old_start), remaining_old, heading.strip())
            )
    return hunks


class _Newer:
    """Reads files on the newer side of the comparison and points into them."""

    def __init__(self, repo: Path, to: str | None, node: str) -> None:
        self.repo, self.to, self.node = repo, to, node
        self._sources: dict[str, SourceFile | None] = {}

    def source(self, relpath: str) -> SourceFile | None:
        if relpath not in self._sources:
            self._sources[relpath] = self._load(relpath)
        return self._sources[relpath]

    def _load(self, relpath: str) -> SourceFile | None:
        location = Location(self.repo / relpath, self.repo, relpath)
        if self.to is not None:
            return SourceFile(location, read_at_commit(self.repo, self.to, relpath), self.to, self.node)
        file = self.repo / relpath
        if not file.is_file():
            return None
        data = file.read_bytes()
        return SourceFile(location, data, revision_for(location, data), self.node)

    def evidence(self, hunk: Hunk) -> Evidence | None:
        source = self.source(hunk.path) if hunk.path and hunk.new_length else None
        if source is None or hunk.new_start + hunk.new_length - 1 > source.line_count:
            return None
        return source.evidence(hunk.new_start, hunk.new_start + hunk.new_length - 1)


def _hunk_list(hunks: list[Hunk], newer: _Newer) -> str:
    lines, current = [], None
    for hunk in hunks:
        if hunk.path != current:
            current = hunk.path
            lines.append(f"{hunk.path or '(deleted file)'}:")
        source = newer.source(hunk.path) if hunk.path and hunk.new_length else None
        end = hunk.new_start + hunk.new_length - 1
        where = f"L{hunk.new_start}-L{end}" if hunk.new_length else f"deletion after L{hunk.new_start}"
        rev = f" @{source.revision[:12]}" if source else ""
        heading = f" {hunk.heading}" if hunk.heading else ""
        lines.append(
            f"  {where} (was L{hunk.old_start}, -{hunk.old_length} +{hunk.new_length}){heading}{rev}"
        )
    return "\n".join(lines) + "\n"


def _stat(repo: Path, revisions: list[str], pathspec: str) -> str:
    result = git(repo, "diff", "--no-color", "--no-ext-diff", "--stat=200", *revisions, "--", pathspec)
    return result.stdout.decode("utf-8", "replace")


@dataclass(frozen=True)
class _Comparison:
    repo: Path
    pathspec: str
    label: str
    since: str
    to: str | None

    @property
    def revisions(self) -> list[str]:
        return [self.since] + ([self.to] if self.to else [])

    @property
    def span(self) -> str:
        return f"{self.since[:12]}..{(self.to or WORKTREE)[:12]}"


def _compare(request: ChangesRequest) -> _Comparison:
    target = request.path.resolve()
    if not target.exists():
        raise InputError(f"no such file or folder: {request.path}")
    repo = repo_root(target if target.is_dir() else target.parent)
    if repo is None:
        raise InputError(f"{request.path} is not inside a git repository")
    pathspec = target.relative_to(repo).as_posix() if target != repo else "."
    since = resolve_commit(repo, request.since)
    to = resolve_commit(repo, request.to) if request.to else None
    return _Comparison(repo, pathspec, pathspec, since, to)


def changes(
    request: ChangesRequest, *, store_dir: str | Path | None = None, node: str | None = None
) -> ChangesResponse:
    """The change to `request.path` from `since` to `to` (or the working tree), fitted to the budget."""
    if request.budget_tokens < 0:
        raise InputError("the budget must be zero or more tokens")
    compared = _compare(request)
    diff_bytes = git(
        compared.repo, "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames",
        *compared.revisions, "--", compared.pathspec,
    ).stdout  # fmt: skip
    diff = diff_bytes.decode("utf-8", "replace")
    hunks = parse_hunks(diff)
    newer = _Newer(compared.repo, compared.to, node or default_node())
    evidence = tuple(item for hunk in hunks if (item := newer.evidence(hunk)) is not None)
    files = sum(1 for line in diff.split("\n") if line.startswith("diff --git "))

    def respond(view: str, content: str, cut: str | None = None) -> ChangesResponse:
        return ChangesResponse(
            path=compared.label,
            since=compared.since,
            to=compared.to or WORKTREE,
            view=view,
            budget_tokens=request.budget_tokens,
            tokens=tokens.count(content),
            truncated=cut is not None,
            degraded_from=None if view == "diff" and cut is None else "diff",
            content=content,
            files_changed=files,
            hunks=len(hunks),
            evidence=evidence,
            cut=cut,
        )

    def compressed() -> str:
        from tokenlab.pipeline import analyze
        from tokenlab.store import open_store

        source = f"git diff {compared.span} -- {compared.label}"
        return analyze(diff_bytes, source=source, store=open_store(store_dir)).visible

    empty = f"no changes to {compared.label} in {compared.span}\n"
    rungs: list[tuple[str, Callable[[], str]]] = [("diff", lambda: diff or empty)]
    if diff:
        rungs += [
            ("compressed", compressed),
            ("hunks", lambda: _hunk_list(hunks, newer)),
            ("stat", lambda: _stat(compared.repo, compared.revisions, compared.pathspec)),
        ]
    for view, render in rungs:
        content = render()
        if tokens.count(content) <= request.budget_tokens:
            return respond(view, content)
    count = tokens.count(content)
    cut_content = _cut_lines(content, request.budget_tokens)
    return respond(
        view,
        cut_content,
        f"even the per-file summary ({count} tokens) does not fit; its first lines are shown",
    )


def _cut_lines(text: str, budget: int) -> str:
    """Whole leading lines that fit with a final "…" line; empty when none do."""
    lines = text.splitlines(keepends=True)
    low, high, best = 0, len(lines), ""
    while low <= high:
        middle = (low + high) // 2
        attempt = "".join(lines[:middle]) + "…\n"
        if tokens.count(attempt) <= budget:
            best, low = attempt, middle + 1
        else:
            high = middle - 1
    return best
