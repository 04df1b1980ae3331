"""Git status optimizer: every path stays named, many paths grouped by folder.

What a person reads in `git status` is which paths are staged, changed or untracked; with
a few hundred new files the list is long and each line repeats its status and folder. The
long form (`On branch`, `Changes to be committed:` …), the short form (`XY path`, with or
without `## branch`, `-uall`, `--porcelain`) and `--porcelain=v2` are recognised by shape.

The rendering keeps the branch lines, section headers and closing remarks verbatim and
names every path: an entry whose status and folder it shares with fewer than
`min_group - 1` others stays as git printed it (so do renames and quoted paths), the rest
become one line per status and folder, `new file:   gen/a/ (60 files): f1.txt, f10.txt, …`,
listing every name. The `(use "git …")` hints are left out; the exact output is behind
one ref. Short output is shown as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from tokenlab.optimizers import Omission, OptimizerConfig, OptimizeResult, Part, join_literals, visible
from tokenlab.patterns import compile_on_use


@dataclass(frozen=True)
class GitStatusLimits:
    verbatim_bytes: int = 2048  # shorter output is shown as it is
    min_group: int = 3  # entries sharing status and folder, from this many, share a line


DEFAULT_LIMITS = GitStatusLimits()

_HEADERS = (
    "Changes to be committed:",
    "Changes not staged for commit:",
    "Untracked files:",
    "Unmerged paths:",
    "Ignored files:",
)
_BRANCH_RE = compile_on_use(
    r"(?:On branch |HEAD detached (?:at|from) |Not currently on any branch|No commits yet"
    r"|nothing to commit|nothing added to commit|no changes added to commit)"
)
_LONG_ENTRY_RE = compile_on_use(
    r"(\t(?:new file|modified|deleted|renamed|copied|typechange|both modified|both added"
    r"|both deleted|added by us|added by them|deleted by us|deleted by them|unknown):\s+)(.+)"
)
_HINT_RE = compile_on_use(r"  \((?:use|fix|all|commit|run) .*\)$")
_SHORT_ENTRY_RE = compile_on_use(r"((?:[MTADRCU ][MTADRCU ]|\?\?|!!) )(\S.*)")
_V2_ENTRY_RE = compile_on_use(
    r"(1 [.MTADRCU]{2} [NS][.CMU]{3}(?: \S+){5} )(.+)"
    r"|(2 [.MTADRCU]{2} [NS][.CMU]{3}(?: \S+){6} )(.+)"
    r"|(u [.MTADRCU]{2} [NS][.CMU]{3}(?: \S+){7} )(.+)"
    r"|([?!] )(.+)"
)


@dataclass(frozen=True)
class _Entry:
    line: str  # as printed, without the line break
    status: str  # the text before the path: `\tnew file:   `, `A  `, `1 A. N... …`
    path: str


def looks_like_git_status(sample: bytes) -> bool:
    """The long form's branch line and section headers, or mostly `XY path` lines."""
    text = sample.decode("utf-8", errors="replace")
    lines = [line.rstrip("\r") for line in text.split("\n")[:400] if line.strip()]
    if len(lines) > 1 and text[-1:] != "\n":
        lines.pop()  # the sample may end inside a line
    if not lines:
        return False
    if _BRANCH_RE.match(lines[0]) or lines[0].startswith(_HEADERS):
        return any(line in _HEADERS or line.startswith("nothing to commit") for line in lines)
    if lines[0].startswith("## ") or lines[0].startswith("# branch."):
        lines = [line for line in lines[1:] if not line.startswith("# ")]
        if not lines:
            return True
    elif len(lines) < 3:
        return False
    entries = sum(1 for line in lines if _entry(line) is not None)
    return entries >= 0.95 * len(lines)


def _entry(line: str) -> _Entry | None:
    found = _LONG_ENTRY_RE.fullmatch(line) or _SHORT_ENTRY_RE.fullmatch(line)
    if found and found.group(1).strip():
        return _Entry(line, found.group(1), found.group(2))
    found = _V2_ENTRY_RE.fullmatch(line)
    if found:
        status, path = next((g, found.group(i + 2)) for i, g in enumerate(found.groups()) if g)
        return _Entry(line, status, path)
    return None


def optimize(data: bytes, config: OptimizerConfig) -> OptimizeResult:
    return optimize_git_status(data, DEFAULT_LIMITS)


def optimize_git_status(data: bytes, limits: GitStatusLimits) -> OptimizeResult:
    if len(data) <= limits.verbatim_bytes:
        return OptimizeResult((visible(data),))
    text = visible(data)
    parts: list[Part] = []
    signals: list[str] = []
    block: list[_Entry] = []
    paths = 0
    listing = False  # in `Untracked files:` or `Ignored files:`, where a line is a path
    for raw in text.splitlines(keepends=True):
        line = raw.rstrip("\r\n")
        if line.startswith(_HEADERS):
            listing = line in ("Untracked files:", "Ignored files:")
            entry = None
        elif listing and line.startswith("\t") and line[1:].strip():
            entry = _Entry(line, "\t", line[1:])
        else:
            entry = _entry(line)
        if entry is not None:
            block.append(entry)
            paths += 1
            continue
        parts += _render_block(block, limits, signals)
        block = []
        if _HINT_RE.fullmatch(line):
            continue
        parts.append(raw)
        if line.strip():
            signals.append(line.strip())
    parts += _render_block(block, limits, signals)
    if not text.endswith("\n"):
        parts.append("\n")
    parts += [f"[git status, {paths:,} paths; as printed: ", Omission(data, "git status as printed"), "]\n"]
    return OptimizeResult(tuple(join_literals(parts)), tuple(dict.fromkeys(signals)))


def _render_block(block: list[_Entry], limits: GitStatusLimits, signals: list[str]) -> list[str]:
    """A section's entries: groups of one status and folder share a line, naming each file."""
    groups: dict[tuple[str, str], list[_Entry]] = {}
    for entry in block:
        groups.setdefault(_group_key(entry), []).append(entry)
    lines = []
    for (status, folder), entries in groups.items():
        if not folder or len(entries) < limits.min_group:
            for entry in entries:
                lines.append(entry.line + "\n")
                signals.append(entry.line.strip())
            continue
        names = ", ".join(entry.path[len(folder) :] for entry in entries)
        lines.append(f"{status}{folder} ({len(entries):,} files): {names}\n")
    return lines


def _group_key(entry: _Entry) -> tuple[str, str]:
    """(status, folder) for an entry that may share a line; folder "" keeps it whole."""
    path = entry.path
    if path.startswith('"') or " -> " in path or "\t" in path:
        return entry.line, ""  # quoted, renamed or copied: as printed
    status = entry.status
    if status[:2] in ("1 ", "2 ", "u "):
        status = status[:5]  # porcelain v2: the type and XY, not the per-file modes and hashes
    cut = path.rstrip("/").rfind("/")
    return status, path[: cut + 1] if cut > 0 else ""
