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

`parse.py` reads the commits, as offsets in the input, in one pass; this module renders
them.
"""

from __future__ import annotations

from dataclasses import dataclass
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
from tokenlab.optimizers.git_log.parse import (
    DECORATION_RE,
    GRAPH_CHARACTERS,
    ONELINE_RE,
    Commit,
    parse_commits,
)
from tokenlab.optimizers.git_log.stat import (
    Changes,
    is_cut,
    largest_rows,
    listing_paths,
    looks_like_stat_listing,
    optimize_listing,
    single_listing,
    standouts,
)

__all__ = ["GitLogLimits", "optimize", "optimize_git_log"]


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



class _Detail(Enum):
    """How much a log line says about a commit's changes."""

    PATHS = "paths"
    FOLDERS = "folders"
    COUNTS = "counts"



def optimize(data: bytes, config: OptimizerConfig) -> OptimizeResult:
    return optimize_git_log(data, config.granularity, DEFAULT_LIMITS)


def optimize_git_log(data: bytes, granularity: Granularity, limits: GitLogLimits) -> OptimizeResult:
    commits = parse_commits(data)
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


# --- rendering ---------------------------------------------------------------------------


def _render_log(
    data: bytes, commits: list[Commit], granularity: Granularity, limits: GitLogLimits
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


def _full_hashes(commits: list[Commit], limits: GitLogLimits) -> set[int]:
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
    data: bytes, commits: list[Commit], limits: GitLogLimits, with_author: bool, full: set[int]
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
    data: bytes, commit: Commit, limits: GitLogLimits, with_author: bool, detail: _Detail, full: bool
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
    data: bytes, commit: Commit, granularity: Granularity, limits: GitLogLimits
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


def _signals(data: bytes, commits: list[Commit], limits: GitLogLimits) -> tuple[str, ...]:
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
        commit = ONELINE_RE.match(line.lstrip(GRAPH_CHARACTERS))
        if commit and len(found) < limits.max_signals:
            subject = (
                DECORATION_RE.sub(b"", commit.group(2), count=1)
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
