"""Git log optimizer: one line per commit, everything else one ref away.

`git log` output (the default, `--format=fuller`/`raw`, `--oneline`, each with `--stat`,
`--name-only`/`--name-status` or `-p`) is mostly bookkeeping an agent rarely reads: 40-digit
hashes, e-mail addresses, full timestamps, stat graphs, patches. A log of several commits
becomes one line per commit -- its hash (in full as `commit <hash>`, the line copied to act
on it, in a log of up to `full_hashes` commits; in a longer one for its first and last
commits and its largest changes, else short), decorations, author name (once at the top when
there is only one), the subject verbatim, `…` when the message goes on -- under a heading
per day (YYYY-MM-DD). When the log lists changes, the line ends with the file count and
the lines added and removed, plus the paths (up to 8) or else the top folders, at the
richest of these levels whose lines fit in a fifth of the input's bytes: a `-p` log names
its paths, a `--stat` log of small commits keeps to the counts. Where paths or folders are
shown, a stat's `N files changed, X insertions(+), Y deletions(-)` line stands as git printed
it (what a person reads first), and a commit whose paths are not all named is followed by
its largest changes and its renames, the stat rows as printed.

A single commit (`git show`, `git log -1 -p`) keeps its whole message and every path it
names: a short header line, the message verbatim, the stat block verbatim or, when long,
its summary line and every path grouped by folder, and the patch through the diff
optimizer.

Nothing is lost. In a log of several commits each commit's exact text, as git printed it,
is what the ref holds: with `Granularity.COARSE` one ref at the top holds all of them in
order, with `Granularity.FINE` each commit's line ends with the ref of that commit. In a
single commit the header lines and a folded stat block have a ref each, and the diff
optimizer's refs hold what it folds. Short logs are shown as they are, and so is a
`--oneline` log without changes: it is already one line per commit. A `--graph --oneline`
log is read after the graph's columns and shown as printed: its lines of graph alone are
where branches fork and merge, and its merges and decorated branch tips are what is read.

Signals (checked by the SIGNAL stage) are what the rendering keeps verbatim by design:
every commit's subject (its first message line, stripped; the first `max_signals`
commits of a long log), and for a single commit each path its stat or name list prints
when that listing is shown as printed (else the stat's summary line), and each path a
`---`/`+++` line of its patch names (the diff optimizer keeps those lines, or names the
path on the line of a file it folds whole).

Parsing runs per commit over offsets in the input; a patch is measured with `bytes.find`
and `bytes.count`, never split into lines, so a 20 MB `git log -p` costs one pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from enum import Enum

from tokenlab.optimizers import (
    Excerpt,
    Granularity,
    Omission,
    OptimizerConfig,
    OptimizeResult,
    Part,
    join_literals,
    visible,
)
from tokenlab.optimizers.git_log.stat import (
    SUMMARY_RE,
    Changes,
    listing_paths,
    looks_like_stat_listing,
    optimize_listing,
    is_cut,
    read_listing,
    largest_rows,
    single_listing,
    standouts,
)

__all__ = ["GitLogLimits", "looks_like_git_log", "looks_like_stat_listing", "optimize", "optimize_git_log"]


@dataclass(frozen=True)
class GitLogLimits:
    """Tunables of the git log optimizer."""

    # Inputs this small (a few hundred tokens) are shown as they are.
    verbatim_bytes: int = 1500
    # In a log, each commit's changes name its paths when it touches at most this many
    # files, else at most `top_folders` of its top folders, else nothing beyond the counts:
    # the richest of these whose commit lines fit in `detail_share` of the input's bytes.
    max_paths: int = 8
    top_folders: int = 3
    detail_share: float = 0.2
    hash_digits: int = 7
    # A commit's full hash as git printed it (`commit <hash>`), the line that is copied to
    # act on it: every commit's in a log of at most `full_hashes` commits; in a longer one,
    # the first's and the last's, and those of its `notable_commits` largest changes that
    # are `notable_factor` times the median change or more.
    full_hashes: int = 50
    notable_commits: int = 3
    notable_factor: int = 4
    # A commit line whose paths are not all named is followed by its largest changes, as
    # printed (what a reviewer opens first), when they stand out: at most this many.
    largest_rows: int = 2
    # A single commit keeps a stat block of at most this many lines verbatim.
    show_stat_lines: int = 40
    # Subjects declared as signals: those of the first this many commits.
    max_signals: int = 300


DEFAULT_LIMITS = GitLogLimits()

_COMMIT_RE = re.compile(rb"^commit ([0-9a-f]{7,64})\b([^\r\n]*)", re.MULTILINE)
_ONELINE_RE = re.compile(rb"^([0-9a-f]{7,64}) ([^\r\n]*)", re.MULTILINE)
# `(HEAD -> main, origin/main, tag: v1.2) `, `(feature/x) `: the refs pointing at a commit.
_DECORATION_RE = re.compile(
    rb"\((?:HEAD(?: -> [^()\s,]+)?|tag: [^()\s,]+|[^()\s,]+)(?:, (?:tag: )?[^()\s,]+)*\) "
)
_DIFF_HEADER_RE = re.compile(rb"^diff --(?:git|cc|combined) ([^\r\n]*)", re.MULTILINE)
_ISO_DATE_RE = re.compile(rb"\b(\d{4}-\d\d-\d\d)\b")
_DEFAULT_DATE_RE = re.compile(rb"\b([A-Z][a-z]{2}) (\d{1,2}) \d\d:\d\d:\d\d (\d{4})\b")
_RFC_DATE_RE = re.compile(rb"\b(\d{1,2}) ([A-Z][a-z]{2}) (\d{4}) \d\d:\d\d")
_RAW_DATE_RE = re.compile(rb"(\d{9,11}) ([+-])(\d\d)(\d\d)\s*$")
_MONTH_NAMES = (
    b"Jan",
    b"Feb",
    b"Mar",
    b"Apr",
    b"May",
    b"Jun",
    b"Jul",
    b"Aug",
    b"Sep",
    b"Oct",
    b"Nov",
    b"Dec",
)
_MONTHS = {name: n for n, name in enumerate(_MONTH_NAMES, 1)}


class _Detail(Enum):
    """How much a log line says about a commit's changes."""

    PATHS = "paths"
    FOLDERS = "folders"
    COUNTS = "counts"


@dataclass
class _Commit:
    start: int
    end: int  # just past the commit's last byte (the next commit's start)
    hash: str
    decoration: str = ""
    author: str = ""
    date: str = ""
    parents: int = 0  # from a `Merge:` header or `parent` lines
    message: tuple[int, int] | None = None  # input span of the indented message lines
    subject: str = ""
    body_lines: int = 0  # non-blank message lines after the subject
    tail: int = 0  # input offset where the changes (stat, names, patch) begin
    changes: Changes | None = None

    @property
    def merge(self) -> bool:
        return self.parents >= 2


def optimize(data: bytes, config: OptimizerConfig) -> OptimizeResult:
    return optimize_git_log(data, config.granularity, DEFAULT_LIMITS)


def optimize_git_log(data: bytes, granularity: Granularity, limits: GitLogLimits) -> OptimizeResult:
    commits = _parse(data)
    if not commits and looks_like_stat_listing(data):
        return optimize_listing(data, limits.verbatim_bytes, limits.show_stat_lines)
    signals = _signals(data, commits, limits) if commits else _graph_subjects(data, limits)
    if len(data) <= limits.verbatim_bytes or not commits:
        return OptimizeResult((visible(data),) if data else (), signals)
    if len(commits) == 1 and commits[0].message is not None:
        parts = _render_single(data, commits[0], granularity, limits)
        return OptimizeResult(tuple(join_literals(parts)), signals)
    if all(commit.message is None and commit.tail == commit.end for commit in commits):
        return OptimizeResult((visible(data),), signals)  # `--oneline`: already one line per commit
    return OptimizeResult(tuple(join_literals(_render_log(data, commits, granularity, limits))), signals)


# --- recognising ---------------------------------------------------------------------------

_HEADER_LINE_RE = re.compile(rb"(?:[A-Z][A-Za-z]*: |tree [0-9a-f]|parent [0-9a-f]|author |gpg: )")
# A subject never starts with a space, with `(` other than decorations, or with a further
# column of hex digits as long as a hash: `000000000024f6d0 0000000000000001 T
# PyEval_InitThreads` is nm's address, size and symbol, not a commit (`3 fixes` is a subject).
_ONELINE_SHAPE_RE = re.compile(
    rb"([0-9a-f]{7,64}) (?!\(|\s|[0-9a-f]{7,}\s)|([0-9a-f]{7,64}) " + _DECORATION_RE.pattern
)
# A subject is words: `<hash> <word> <number> <number> …` with nothing but numbers and hashes
# after the first word is a row of a table of objects (`3f2a9c1 blob 530 311 12`), not a commit.
_TABLE_ROW_TAIL_RE = re.compile(rb"\S+(?:[ \t]+(?:\d+|[0-9a-f]{7,64})){2,}[ \t]*\r?$")
_LISTING_SHAPE_RE = re.compile(rb" .* \| |" + SUMMARY_RE.pattern[1:])
# The columns `git log --graph` draws before each line: `* `, `| * `, `| |\`, `|/  `.
_GRAPH_CHARACTERS = b"*|/\\ _.-"


def looks_like_git_log(sample: bytes) -> bool:
    """`git log`/`git show` output: `commit <hash>` then headers, or mostly `<hash> subject`
    lines (after the graph's columns with `--graph`).

    A `--oneline` hash must hold a digit and a letter, the subject must not start with a
    space (checksum listings) or `(` other than decorations (`git blame`) nor be one word
    followed only by numbers and hashes (a table of objects), and such lines must make up
    most of the input, with stat or patch lines the rest.
    """
    lines = sample.splitlines()
    for at, line in enumerate(lines[:6]):
        if _COMMIT_RE.match(line) and at + 1 < len(lines) and _HEADER_LINE_RE.match(lines[at + 1]):
            return True
    lines = [line for line in lines[:400] if line.strip()]
    if lines and lines[0].startswith(b"* "):  # `--graph`: the commit lines after the graph's columns
        lines = [line.lstrip(_GRAPH_CHARACTERS) for line in lines]
        lines = [line for line in lines if line]  # a line of the graph alone joins or forks branches
    shaped = [_is_oneline(line) for line in lines]
    if len(lines) < 2 or not shaped[0]:
        return False
    if lines[1].startswith(b"diff --git "):
        return True  # `git show --oneline`, `git log --oneline -p`
    commits = sum(shaped)
    listing = sum(1 for line, ok in zip(lines, shaped) if not ok and _LISTING_SHAPE_RE.match(line))
    return (
        commits >= 3 and commits >= 0.8 * len(lines) or commits >= 2 and commits + listing >= 0.9 * len(lines)
    )


def _is_oneline(line: bytes) -> bool:
    found = _ONELINE_SHAPE_RE.match(line)
    if not found:
        return False
    digest = found.group(1) or found.group(2)
    if _TABLE_ROW_TAIL_RE.match(line, found.end()):
        return False
    return any(48 <= c <= 57 for c in digest) and any(97 <= c <= 102 for c in digest)


# --- parsing -----------------------------------------------------------------------------


def _parse(data: bytes) -> list[_Commit]:
    starts = [(m.start(), m) for m in _COMMIT_RE.finditer(data)]
    oneline = not starts
    if oneline:
        starts = [(m.start(), m) for m in _ONELINE_RE.finditer(data)]
    commits = []
    for at, (start, match) in enumerate(starts):
        end = starts[at + 1][0] if at + 1 < len(starts) else len(data)
        commit = _Commit(start, end, match.group(1).decode("ascii"))
        if oneline:
            _parse_oneline(data, commit, match)
        else:
            _parse_medium(data, commit, match)
        commit.changes = _changes(data, commit.tail, end)
        commits.append(commit)
    return commits


def _parse_oneline(data: bytes, commit: _Commit, match: re.Match[bytes]) -> None:
    rest = match.group(2)
    decoration = _DECORATION_RE.match(rest)
    if decoration:
        commit.decoration = visible(decoration.group(0)[:-1])
        rest = rest[decoration.end() :]
    commit.subject = visible(rest)
    commit.tail = _line_end(data, match.end())


def _parse_medium(data: bytes, commit: _Commit, match: re.Match[bytes]) -> None:
    commit.decoration = visible(match.group(2).strip())
    at = _line_end(data, match.end())
    while at < commit.end:  # header lines, up to the blank line
        end = _line_end(data, at)
        line = data[at:end].rstrip(b"\r\n")
        at = end
        if not line:
            break
        _header(commit, line)
    start = at
    while at < commit.end:  # message lines are indented by four spaces; blank ones too
        end = _line_end(data, at)
        line = data[at:end].rstrip(b"\r\n")
        if not line.startswith(b"    ") and not (not line and data.startswith(b"    ", end)):
            break
        at = end
    commit.tail = at
    if at > start:
        commit.message = (start, at)
        lines = [line.strip() for line in data[start:at].splitlines()]
        commit.subject = visible(lines[0])
        commit.body_lines = sum(1 for line in lines[1:] if line)


def _header(commit: _Commit, line: bytes) -> None:
    """One `Key: value` header (`raw` format: `key value`); unknown keys are skipped."""
    key, _, value = line.partition(b" ")
    key = key.rstrip(b":").lower()
    value = value.strip()
    if key == b"author":
        commit.author = visible(value.split(b" <", 1)[0].strip())
        if not commit.date and _RAW_DATE_RE.search(value):
            commit.date = _date(value)
    elif key == b"authordate" or (key == b"date" and not commit.date):
        commit.date = _date(value)
    elif key == b"merge":
        commit.parents = 2
    elif key == b"parent":
        commit.parents += 1


def _date(value: bytes) -> str:
    """The date as YYYY-MM-DD, in the time zone git printed it in; else as printed."""
    if found := _ISO_DATE_RE.search(value):
        return found.group(1).decode()
    if found := _DEFAULT_DATE_RE.search(value):
        month, day, year = found.groups()
        if month in _MONTHS:
            return f"{int(year):04d}-{_MONTHS[month]:02d}-{int(day):02d}"
    if found := _RFC_DATE_RE.search(value):
        day, month, year = found.groups()
        if month in _MONTHS:
            return f"{int(year):04d}-{_MONTHS[month]:02d}-{int(day):02d}"
    if found := _RAW_DATE_RE.search(value):
        seconds, sign, hours, minutes = found.groups()
        offset = timedelta(hours=int(hours), minutes=int(minutes)) * (-1 if sign == b"-" else 1)
        return datetime.fromtimestamp(int(seconds), timezone(offset)).date().isoformat()
    return visible(value)


def _line_end(data: bytes, at: int) -> int:
    end = data.find(b"\n", at)
    return len(data) if end < 0 else end + 1


def _changes(data: bytes, start: int, end: int) -> Changes | None:
    """The stat or name list, then the patch, between a commit's message and its end."""
    if not data[start:end].strip():
        return None
    changes = Changes()
    patch = data.find(b"diff --", start, end)
    while patch > start and data[patch - 1] != 0x0A:
        patch = data.find(b"diff --", patch + 1, end)
    listing_end = patch if patch >= 0 else end
    if data[start:listing_end].strip():
        changes.stat = (start, listing_end)
        read_listing(data[start:listing_end], changes)
    if patch >= 0:
        changes.patch = (patch, end)
        _read_patch(data, patch, end, changes, counted=bool(changes.summary))
    return changes


def _read_patch(data: bytes, start: int, end: int, changes: Changes, counted: bool) -> None:
    headers = list(_DIFF_HEADER_RE.finditer(data, start, end))
    paths = []
    for at, header in enumerate(headers):
        section_end = headers[at + 1].start() if at + 1 < len(headers) else end
        paths.append(_patch_path(data, header, section_end))
        if counted:
            continue
        hunks = data.find(b"\n@@", header.end(), section_end)
        if hunks >= 0:
            changes.added += data.count(b"\n+", hunks, section_end)
            changes.removed += data.count(b"\n-", hunks, section_end)
    if not changes.paths:
        changes.paths = paths
    if not counted:
        changes.files = len(paths)


def _patch_path(data: bytes, header: re.Match[bytes], section_end: int) -> str:
    names = header.group(1).rstrip(b"\r")
    if not data.startswith(b"diff --git", header.start()):
        return visible(names)  # `diff --cc path`
    renamed = data.find(b"\nrename to ", header.end(), min(section_end, header.end() + 4096))
    if renamed >= 0:
        old = data.find(b"\nrename from ", header.end(), renamed)
        new_path = data[renamed + 11 : _line_end(data, renamed + 1)].rstrip(b"\r\n")
        if old >= 0:
            old_path = data[old + 13 : _line_end(data, old + 1)].rstrip(b"\r\n")
            return visible(old_path + b" => " + new_path)
        return visible(new_path)
    rest = names[2:] if names.startswith(b"a/") else names
    half = (len(rest) - 3) // 2
    if rest[half : half + 3] == b" b/" and rest[:half] == rest[half + 3 :]:
        return visible(rest[:half])
    split = rest.rfind(b" b/")
    return visible(rest[split + 3 :] if split >= 0 else rest)


# --- rendering ---------------------------------------------------------------------------


def _render_log(
    data: bytes, commits: list[_Commit], granularity: Granularity, limits: GitLogLimits
) -> list[Part]:
    first = commits[0].start
    authors = {commit.author for commit in commits}
    single_author = len(authors) == 1 and "" not in authors
    dates = sorted(commit.date for commit in commits if commit.date[:4].isdigit())
    facts = [f"{len(commits)} commits" + (f" by {next(iter(authors))}" if single_author else "")]
    if dates:
        facts.append(dates[0] if dates[0] == dates[-1] else f"{dates[0]} .. {dates[-1]}")
    parts: list[Part] = [visible(data[:first]), f"[git log: {', '.join(facts)}; "]
    if granularity is Granularity.COARSE:
        parts += ["every commit in full: ", Omission(data[first:], "git log, every commit in full"), "]\n"]
    else:
        parts.append("each commit in full: the ref ending its line]\n")
    lines = _commit_lines(data, commits, limits, with_author=not single_author, full=_full_hashes(commits, limits))
    day = None
    for commit, line in zip(commits, lines):
        if commit.date != day:
            day = commit.date
            parts.append(f"{day}:\n" if day else "")
        parts.append(line)
        if granularity is Granularity.FINE:
            parts += [" ", Omission(data[commit.start : commit.end], f"git commit {commit.hash[:12]}")]
        parts.append("\n")
    return parts


def _full_hashes(commits: list[_Commit], limits: GitLogLimits) -> set[int]:
    """The commits whose line shows their full hash (see `GitLogLimits.full_hashes`)."""
    if len(commits) <= limits.full_hashes:
        return set(range(len(commits)))
    sizes = sorted(
        ((commit.changes.added + commit.changes.removed, -at) for at, commit in enumerate(commits) if commit.changes),
        reverse=True,
    )
    median = sizes[len(sizes) // 2][0] if sizes else 0
    notable = {-at for size, at in sizes[: limits.notable_commits] if size and size >= limits.notable_factor * median}
    return {0, len(commits) - 1} | notable


def _commit_lines(
    data: bytes, commits: list[_Commit], limits: GitLogLimits, with_author: bool, full: set[int]
) -> list[str]:
    """Each commit's line, at the richest level of detail about its changes that fits."""
    days = [
        commit.date for at, commit in enumerate(commits) if at == 0 or commit.date != commits[at - 1].date
    ]
    budget = limits.detail_share * len(data) - sum(len(day) + 2 for day in days) - len(commits)
    for detail in (_Detail.PATHS, _Detail.FOLDERS):
        lines = [_commit_line(data, commit, limits, with_author, detail, at in full) for at, commit in enumerate(commits)]
        if sum(map(len, lines)) <= budget:
            return lines
    return [_commit_line(data, commit, limits, with_author, _Detail.COUNTS, at in full) for at, commit in enumerate(commits)]


def _commit_line(
    data: bytes, commit: _Commit, limits: GitLogLimits, with_author: bool, detail: _Detail, full: bool
) -> str:
    words = [f"commit {commit.hash}" if full else commit.hash[: limits.hash_digits]]
    if commit.decoration:
        words.append(commit.decoration)
    if with_author and commit.author:
        words.append(commit.author + ":")
    if commit.merge and not commit.subject.startswith("Merge"):
        words.append("(merge)")
    words.append(commit.subject if commit.subject or commit.message else "(no message)")
    if commit.body_lines:
        words.append("…")
    changes = commit.changes
    if not changes:
        return " ".join(words)
    words.append(f"[{_changes_text(changes, limits, detail)}]")
    named = detail is _Detail.PATHS and len(changes.paths) <= limits.max_paths
    if detail is _Detail.COUNTS or named or not changes.stat:
        return " ".join(words)
    rows = largest_rows(data[changes.stat[0] : changes.stat[1]], limits.largest_rows)
    return "\n".join([" ".join(words), *rows])


def _changes_text(changes: Changes, limits: GitLogLimits, detail: _Detail) -> str:
    """File count, lines added and removed, and, as detail allows, the paths or top folders."""
    if changes.summary and detail is not _Detail.COUNTS:  # as git printed it: what a person reads first
        text = changes.summary
    else:
        text = f"{changes.files} file{'s' if changes.files != 1 else ''}"
        if changes.added or changes.removed:
            text += f" +{changes.added} -{changes.removed}"
    if detail is _Detail.PATHS and 0 < len(changes.paths) <= limits.max_paths:
        return text + ": " + ", ".join(changes.paths)
    where = list(dict.fromkeys(map(_top_folder, changes.paths)))
    if where and detail is not _Detail.COUNTS:
        more = " …" if len(where) > limits.top_folders else ""
        text += ": " + ", ".join(where[: limits.top_folders]) + more
    return text


def _top_folder(path: str) -> str:
    """`src/` for `src/app/main.py`; a file at the top, a rename spanning folders, or a
    path git cut short (`.../internal/Repo.java`: its top folder is gone), as is."""
    if is_cut(path):
        return path
    cut = path.find("/")
    return path[: cut + 1] if cut > 0 and "{" not in path[:cut] and " => " not in path[:cut] else path


def _render_single(
    data: bytes, commit: _Commit, granularity: Granularity, limits: GitLogLimits
) -> list[Part]:
    assert commit.message is not None
    parts: list[Part] = [visible(data[: commit.start])]
    words = ["commit", commit.hash, commit.decoration, commit.date, commit.author]
    if commit.merge:
        words.append("(merge)")
    header = data[commit.start : commit.message[0]]
    parts += [
        " ".join(word for word in words if word),
        "; header: ",
        Omission(header, "git commit header"),
        "\n",
    ]
    parts.append(visible(data[commit.message[0] : commit.tail]))
    changes = commit.changes
    if changes and changes.stat:
        parts += single_listing(data, changes, changes.stat, limits.show_stat_lines)
    if changes and changes.patch:
        parts += _patch_parts(data, changes.patch, granularity)
    return parts


def _patch_parts(data: bytes, span: tuple[int, int], granularity: Granularity) -> list[Part]:
    """The patch through the diff optimizer; its input ranges refer to the patch alone, so
    they are dropped rather than shifted (the pipeline then counts these parts as text)."""
    from tokenlab.optimizers.diff.optimizer import DiffConfig, optimize_diff

    result = optimize_diff(data[span[0] : span[1]], granularity, DiffConfig())
    return [
        part.text
        if isinstance(part, Excerpt)
        else Omission(part.data, part.reason)
        if isinstance(part, Omission)
        else part
        for part in result.parts
    ]


# --- signals -------------------------------------------------------------------------------


def _signals(data: bytes, commits: list[_Commit], limits: GitLogLimits) -> tuple[str, ...]:
    """The subjects, and a single commit's paths, that the rendering shows verbatim."""
    found = [subject for commit in commits[: limits.max_signals] if (subject := commit.subject.strip())]
    if len(commits) == 1 and commits[0].message is not None and commits[0].changes:
        changes = commits[0].changes
        if changes.stat:
            listing = data[changes.stat[0] : changes.stat[1]]
            if listing.count(b"\n") <= limits.show_stat_lines:
                found += listing_paths(listing)  # shown as printed
            elif changes.summary:
                found.append(changes.summary)  # the paths are shown by folder, not whole
                found += standouts(listing)
        if changes.patch:
            found += _patch_paths(data[changes.patch[0] : changes.patch[1]])
    return tuple(dict.fromkeys(found))


def _graph_subjects(data: bytes, limits: GitLogLimits) -> tuple[str, ...]:
    """The subjects of a `--graph --oneline` log, shown as printed: each commit line's text
    after the graph's columns, its hash and its decorations."""
    if not data.startswith(b"* "):
        return ()
    found: list[str] = []
    for line in data.splitlines():
        commit = _ONELINE_RE.match(line.lstrip(_GRAPH_CHARACTERS))
        if commit and len(found) < limits.max_signals:
            subject = (
                _DECORATION_RE.sub(b"", commit.group(2), count=1)
                if commit.group(2).startswith(b"(")
                else commit.group(2)
            )
            if text := visible(subject).strip():
                found.append(text)
    return tuple(dict.fromkeys(found))


def _patch_paths(patch: bytes) -> list[str]:
    """The path each file's `---`/`+++` lines name, as the diff optimizer's parser reads
    them: those lines stay visible, and a file folded whole is named on its line."""
    from tokenlab.optimizers.diff.parse import Lines, scan

    return [
        path
        for section in scan(Lines(patch))
        if section.has_path_lines and (path := visible(section.new_path or section.old_path).strip())
    ]
