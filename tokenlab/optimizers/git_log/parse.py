"""A git log read into commits (see `optimizer.py`): whether an input is one, and each
commit's hash, decorations, headers, date, message and changes, as offsets in the input.

Parsing runs per commit over offsets in the input; a patch is measured with `bytes.find`
and `bytes.count`, never split into lines, so a 20 MB `git log -p` costs one pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from tokenlab.optimizers import visible
from tokenlab.optimizers.git_log.stat import SUMMARY_RE, Changes, read_listing
from tokenlab.patterns import compile_on_use

_COMMIT_RE = compile_on_use(rb"^commit ([0-9a-f]{7,64})\b([^\r\n]*)", re.MULTILINE)
ONELINE_RE = compile_on_use(rb"^([0-9a-f]{7,64}) ([^\r\n]*)", re.MULTILINE)
# `(HEAD -> main, origin/main, tag: v1.2) `, `(feature/x) `: the refs pointing at a commit.
DECORATION_RE = compile_on_use(
    rb"\((?:HEAD(?: -> [^()\s,]+)?|tag: [^()\s,]+|[^()\s,]+)(?:, (?:tag: )?[^()\s,]+)*\) "
)
_DIFF_HEADER_RE = compile_on_use(rb"^diff --(?:git|cc|combined) ([^\r\n]*)", re.MULTILINE)
_ISO_DATE_RE = compile_on_use(rb"\b(\d{4}-\d\d-\d\d)\b")
_DEFAULT_DATE_RE = compile_on_use(rb"\b([A-Z][a-z]{2}) (\d{1,2}) \d\d:\d\d:\d\d (\d{4})\b")
_RFC_DATE_RE = compile_on_use(rb"\b(\d{1,2}) ([A-Z][a-z]{2}) (\d{4}) \d\d:\d\d")
_RAW_DATE_RE = compile_on_use(rb"(\d{9,11}) ([+-])(\d\d)(\d\d)\s*$")
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


@dataclass
class Commit:
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


# --- recognising ---------------------------------------------------------------------------

_HEADER_LINE_RE = compile_on_use(rb"(?:[A-Z][A-Za-z]*: |tree [0-9a-f]|parent [0-9a-f]|author |gpg: )")
# A subject never starts with a space, with `(` other than decorations, or with a further
# column of hex digits as long as a hash: `000000000024f6d0 0000000000000001 T
# PyEval_InitThreads` is nm's address, size and symbol, not a commit (`3 fixes` is a subject).
_ONELINE_SHAPE_RE = compile_on_use(
    rb"([0-9a-f]{7,64}) (?!\(|\s|[0-9a-f]{7,}\s)|([0-9a-f]{7,64}) " + DECORATION_RE.pattern
)
# A subject is words: `<hash> <word> <number> <number> …` with nothing but numbers and hashes
# after the first word is a row of a table of objects (`3f2a9c1 blob 530 311 12`), not a commit.
_TABLE_ROW_TAIL_RE = compile_on_use(rb"\S+(?:[ \t]+(?:\d+|[0-9a-f]{7,64})){2,}[ \t]*\r?$")
_LISTING_SHAPE_RE = compile_on_use(rb" .* \| |" + SUMMARY_RE.pattern[1:])
# The columns `git log --graph` draws before each line: `* `, `| * `, `| |\`, `|/  `.
GRAPH_CHARACTERS = b"*|/\\ _.-"


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
        lines = [line.lstrip(GRAPH_CHARACTERS) for line in lines]
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


def parse_commits(data: bytes) -> list[Commit]:
    starts = [(m.start(), m) for m in _COMMIT_RE.finditer(data)]
    oneline = not starts
    if oneline:
        starts = [(m.start(), m) for m in ONELINE_RE.finditer(data)]
    commits = []
    for at, (start, match) in enumerate(starts):
        end = starts[at + 1][0] if at + 1 < len(starts) else len(data)
        commit = Commit(start, end, match.group(1).decode("ascii"))
        if oneline:
            _parse_oneline(data, commit, match)
        else:
            _parse_medium(data, commit, match)
        commit.changes = _changes(data, commit.tail, end)
        commits.append(commit)
    return commits


def _parse_oneline(data: bytes, commit: Commit, match: re.Match[bytes]) -> None:
    rest = match.group(2)
    decoration = DECORATION_RE.match(rest)
    if decoration:
        commit.decoration = visible(decoration.group(0)[:-1])
        rest = rest[decoration.end() :]
    commit.subject = visible(rest)
    commit.tail = _line_end(data, match.end())


def _parse_medium(data: bytes, commit: Commit, match: re.Match[bytes]) -> None:
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


def _header(commit: Commit, line: bytes) -> None:
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
