"""A hit list's model: which file each printed line belongs to, and what it is.

Search tools print the same few shapes:

- flat: `path:12:text` for a hit and, with `-A/-B/-C`, `path-12-text` for a context
  line and `--` between groups (grep -rn, git grep -n, rg -n piped, ack, ag); git grep's
  `-p`/`-W` add the enclosing function's line as `path=12=text`, and `-W` prints whole
  functions as context, so a group's context may run far from its hits;
  `path:12:5:text` with a column (rg --vimgrep, --column); `path:text` without `-n`;
- heading: a path line, then its `12:text` hits and `12-text` context lines (rg's
  default on a terminal, `rg --heading`, `git grep --heading`, `ag --group`);
- counts: `path:3` per file (`grep -c`, `rg -c`, `git grep -c`);
- messages: one JSON object per line (`rg --json`), read in `messages.py`;
- scoped: `path scope 12 text`, the enclosing function or `<global>` before the number
  (cscope's line-oriented `-L` output);
- and, in any of them, binary-file notices (`grep: x.pyc: binary file matches`,
  `Binary file x matches`).

A context line is told from a hit by the path it starts with: `path-12-` is only read as
context when `path` is the file of a hit next to it, or of a hit in its `--`-bounded group
when that group names few files, since paths contain `-` and the line's text may contain
`:12:`. Every printed line keeps its input span, so whatever the
rendering leaves out can be handed back byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum

from tokenlab.optimizers import Span
from tokenlab.optimizers.lines.shapes import ANSI_RE
from tokenlab.optimizers.search_results import messages
from tokenlab.patterns import compile_on_use


class Form(str, Enum):
    NUMBERED = "numbered"  # path:12:text
    COLUMNS = "columns"  # path:12:5:text (rg --vimgrep or --column, git grep --column)
    PLAIN = "plain"  # path:text
    HEADING = "heading"  # path, then 12:text
    COUNTS = "counts"  # path:3
    MESSAGES = "JSON message"  # {"type":"match","data":{"path":…,"line_number":12,…}}
    SCOPED = "scoped"  # path scope 12 text


@dataclass(frozen=True)
class SearchLimits:
    verbatim_bytes: int = 2048  # shorter output is shown as it is
    budget_share: float = 0.12  # the visible text aims at this share of the input's bytes
    budget_floor: int = 2048  # ... and may always use this many bytes
    floor_slack: float = 0.15  # a small search whose every hit fits the floor and this share more shows them all
    max_shown: int = 3  # hits shown per file besides definitions, at most
    min_import_files: int = 6  # files importing the name alike before imports are shown apart
    max_import_forms: int = 8  # import lines (number and text) shown once each, at most
    fold_min_bytes: int = 120  # a file's further hits smaller than this are shown, not folded
    max_line_chars: int = 240  # a shown line longer than this is a window around the name
    max_other_lines: int = 20  # lines of other output (errors) shown before the hits
    max_binary_shown: int = 3  # more binary-file notices than this are summarised by folder
    # Each file's hits not shown behind a ref of its own, else all of them behind one ref
    # in the header: a ref costs a line's worth of tokens, and most files fold some hits.
    ref_per_file: bool = False


# The detector reads at most this many lines of the sample, and wants this share of them parsed.
DETECT_LINES = 400
PARSED_SHARE = 0.9

_NUMBER_BETWEEN_COLONS_RE = compile_on_use(r":(\d+):")  # the first one ends a hit's path
_SPACE_RE = compile_on_use(r"\s")
_COUNT_RE = compile_on_use(r"(.+):(\d+)")
_SCOPED_RE = compile_on_use(r"(\S+) (\S+) (\d+) ")
_NUMBER_RE = compile_on_use(r"(\d+)([:=-])")
_CONTEXT_RE = compile_on_use(r"([-=])(\d+)\1")  # a context line, or the enclosing function's
_GROUP_PATHS_MAX = 8  # a `--`-bounded group naming more hit files gives none for context
# A path's last part ends in an extension, as source files' do.
_EXTENSION_RE = compile_on_use(r"\.[A-Za-z0-9_+-]{1,10}")
# Linters and compilers print `path:12:5: message`, `path:12: error: …` and
# `path:12: [C0301(line-too-long), f] …` (pylint's parseable format): not hit lists.
_COLUMN_RE = compile_on_use(r"\d+:")
_DIAGNOSTIC_RE = compile_on_use(r" \[?[A-Za-z]")
_BINARY_NOTICE = ": binary file matches"


@dataclass(frozen=True)
class Printed:
    """One printed line: its span in the input (with its line break) and its parts."""

    span: Span
    number: str  # the line number (`12`, or `12:5` with a column) as printed, "" without `-n`
    mark: str  # ":" a hit, "-" a context line, "=" the enclosing function's line
    text: str  # the file's line, after the path and number
    # How it is shown under its file's heading when not as `12:text`: the whole JSON message
    # (`rg --json`), or the line after its path (`scope 12 text`); shown whole, never a window.
    shown_as: str = ""

    @property
    def shown(self) -> str:
        """The line under its file's heading: `12:text`, `12-text`, the text alone, or
        `shown_as`."""
        if self.shown_as:
            return self.shown_as
        return f"{self.number}{self.mark}{self.text}" if self.number else self.text


@dataclass
class Hit:
    """A matching line and the context lines grep printed with it, in input order."""

    line: Printed
    printed: list[Printed]


@dataclass
class FileHits:
    path: str
    hits: list[Hit] = field(default_factory=list)
    # The path's own line, in the heading form: a ref of the file's hits starts with it,
    # so that they read as the tool printed them.
    heading: Span | None = None


@dataclass(frozen=True)
class Notice:
    """A line that is not a hit: a binary-file notice's path, a count, or other output."""

    span: Span
    text: str  # the path for binary notices and counts, else the line as printed
    count: int = 0


@dataclass
class Listing:
    form: Form
    files: list[FileHits]
    binary: list[Notice]
    counts: list[Notice]
    other: list[Notice]

    @property
    def hit_count(self) -> int:
        return sum(len(found.hits) for found in self.files) + sum(notice.count for notice in self.counts)


def lines_of(data: bytes) -> Iterator[tuple[Span, str]]:
    """Each line's span (with its line break) and its text, decoded, without `\\r\\n`."""
    start = 0
    size = len(data)
    while start < size:
        cut = data.find(b"\n", start)
        end = size if cut < 0 else cut + 1
        line = data[start : cut if cut >= 0 else size]
        if b"\x1b" in line:  # `--color=always`: colours are read through, and left out
            line = ANSI_RE.sub(b"", line)
        text = line.decode("utf-8", errors="replace")
        yield (start, end), text.removesuffix("\r")
        start = end


def looks_like_path(text: str) -> bool:
    """A file path as search tools print it: no spaces, a folder or an extension."""
    if not text or len(text) > 4096 or text[0] in "-[(#" or _SPACE_RE.search(text):
        return False
    name = text.rsplit("/", 1)[-1]
    return "/" in text or "\\" in text or _EXTENSION_RE.search(name) is not None


def binary_notice(line: str) -> str | None:
    """The path named by `grep: x: binary file matches`, `Binary file x matches` or rg's
    `x: binary file matches (found "\\0" byte …)`."""
    if line.startswith("Binary file ") and line.endswith(" matches"):
        return line[len("Binary file ") : -len(" matches")]
    at = line.find(_BINARY_NOTICE)
    if at <= 0:
        return None
    path = line[:at]
    return path.removeprefix("grep: ")


def form_of(printed: list[str]) -> Form | None:
    """Which search output `printed` lines are, if at least `PARSED_SHARE` of them parse as one."""
    lines = [line for line in printed if _counted(line)]
    if len(lines) < 3:
        return None
    need = PARSED_SHARE * len(lines)
    if lines[0].startswith("{"):
        return Form.MESSAGES if messages.is_messages(lines, need) else None
    counts = sum(1 for line in lines if (found := _COUNT_RE.fullmatch(line)) and looks_like_path(found[1]))
    if counts >= need:
        return Form.COUNTS
    numbered = [hit[3] for line in lines if (hit := _numbered(line))]
    contexts = _contexts(printed) if numbered else 0
    # Three hits, or fewer with their context lines (`-W` prints whole functions around one).
    if len(numbered) + min(contexts, 2) >= 3 and len(numbered) + contexts >= need:
        if _hit_texts(numbered):
            return Form.NUMBERED
        columned = [column[1] for text in numbered if (column := _column(text))]
        if len(columned) >= PARSED_SHARE * len(numbered) and _hit_texts(columned):
            return Form.COLUMNS
    scoped = [line[found.end() :] for line in lines if (found := _scoped(line))]
    if len(scoped) >= need and _hit_texts(scoped):
        return Form.SCOPED
    if _heading_lines(lines) >= need:
        return Form.HEADING
    plain = [text for line in lines if (text := _plain_text(line)) is not None]
    if len(plain) >= need and _hit_texts(plain):
        return Form.PLAIN
    return None


def _numbered(line: str) -> tuple[str, str, str, str] | None:
    """(line, path, number, text) of `path:12:text`."""
    found = _NUMBER_BETWEEN_COLONS_RE.search(line)
    if found is None or not looks_like_path(line[: found.start()]):
        return None
    return line, line[: found.start()], found[1], line[found.end() :]


def _scoped(line: str) -> re.Match[str] | None:
    """`path scope 12 text`, when `path` reads as one."""
    found = _SCOPED_RE.match(line)
    return found if found and looks_like_path(found[1]) else None


def _column(text: str) -> tuple[str, str] | None:
    """(column, the rest) of a hit's text that starts with its column, `5:text`."""
    found = _COLUMN_RE.match(text)
    return (text[: found.end() - 1], text[found.end() :]) if found else None


def _plain_text(line: str) -> str | None:
    """The text of a `path:text` hit; not of a pytest node id (`tests/a.py::test_x`)."""
    cut = line.find(":")
    if cut <= 0 or line.startswith(":", cut + 1) or not looks_like_path(line[:cut]):
        return None
    return line[cut + 1 :]


def _hit_texts(texts: list[str]) -> bool:
    """Hits' texts, rather than the column numbers or messages of compiler diagnostics."""
    columns = sum(1 for text in texts if _COLUMN_RE.match(text))
    messages = sum(1 for text in texts if _DIAGNOSTIC_RE.match(text))
    return columns <= 0.5 * len(texts) and messages <= 0.5 * len(texts)


def _counted(line: str) -> bool:
    """A line the detector weighs: not blank, not a group separator, no binary notice."""
    return bool(line.strip()) and line != "--" and binary_notice(line) is None


def _contexts(lines: list[str]) -> int:
    """Lines that read as `path-12-text` context (or `path=12=text`) of a hit near them."""
    paths = [found[1] if (found := _numbered(line)) else None for line in lines]
    grouped = _group_paths(lines, paths)
    count = 0
    near = None
    for at, line in enumerate(lines):
        if paths[at] is not None:
            near = paths[at]
            continue
        if not _counted(line):
            continue
        after = next((path for path in paths[at + 1 : at + 8] if path is not None), None)
        if any(path and _context_of(line, path) for path in (near, after, *grouped[at])):
            count += 1
    return count


def _group_paths(lines: list[str], paths: list[str | None]) -> list[tuple[str, ...]]:
    """For each line, the files of the hits in its `--`-bounded group, when they are few."""
    grouped: list[tuple[str, ...]] = []
    start = 0
    for end in [*(at for at, line in enumerate(lines) if line == "--"), len(lines)]:
        files = tuple(dict.fromkeys(path for path in paths[start:end] if path is not None))
        named = files if len(files) <= _GROUP_PATHS_MAX else ()
        grouped += [named] * (end - start) + ([()] if end < len(lines) else [])
        start = end + 1
    return grouped


def _context_of(line: str, path: str) -> re.Match[str] | None:
    """`-12-` (or `=12=`) right after `path`, when `line` is a context line of that file."""
    if not line.startswith(path):
        return None
    return _CONTEXT_RE.match(line, len(path))


def _heading_lines(lines: list[str]) -> int:
    """Lines of rg's `--heading` form: path lines each followed by `12:text` lines."""
    parsed = 0
    headings = 0
    for at, line in enumerate(lines):
        if _NUMBER_RE.match(line):
            parsed += 1
        elif looks_like_path(line) and at + 1 < len(lines) and _NUMBER_RE.match(lines[at + 1]):
            parsed += 1
            headings += 1
    return parsed if headings else 0


def parse(data: bytes, form: Form) -> Listing:
    lines = list(lines_of(data))
    listing = Listing(form, [], [], [], [])
    if form is Form.HEADING:
        _parse_heading(lines, listing)
    elif form is Form.MESSAGES:
        _parse_messages(lines, listing)
    else:
        _parse_flat(lines, listing)
    return listing


def _parse_flat(lines: list[tuple[Span, str]], listing: Listing) -> None:
    files: dict[str, FileHits] = {}
    parsed = [_flat_hit(text, listing.form) for _, text in lines]
    grouped = _group_paths([text for _, text in lines], [hit[0] if hit else None for hit in parsed])
    pending: dict[str, list[Printed]] = {}  # context printed before a file's next hit
    last_path = None
    for at, (span, text) in enumerate(lines):
        hit = parsed[at]
        context = None if hit and hit[0] == last_path else _flat_context(parsed, at, text, last_path, grouped[at])
        if context is not None:
            path, printed = context[0], Printed(span, context[2], context[1], context[3])
            found = files.get(path)
            if found and found.hits and path == last_path and not pending.get(path):
                found.hits[-1].printed.append(printed)
            else:
                pending.setdefault(path, []).append(printed)
            continue
        if hit is not None:
            path, number, rest = hit
            shown_as = text[len(path) + 1 :] if listing.form is Form.SCOPED else ""
            printed = Printed(span, number, ":", rest, shown_as)
            found = files.setdefault(path, FileHits(path))
            found.hits.append(Hit(printed, [*pending.pop(path, []), printed]))
            last_path = path
            continue
        if text == "--" or not text.strip():
            last_path = None if text == "--" else last_path
            continue
        _notice(listing, span, text)
    listing.files = list(files.values())
    for path, printed_lines in pending.items():  # context with no hit after it: kept as notes
        for printed in printed_lines:
            listing.other.append(Notice(printed.span, f"{path}-{printed.number}-{printed.text}"))


def _flat_hit(line: str, form: Form) -> tuple[str, str, str] | None:
    """(path, number, text) of a hit line in the flat forms, or (path, count, "") of a count."""
    if form in (Form.NUMBERED, Form.COLUMNS):
        found = _numbered(line)
        if found is None:
            return None
        column = _column(found[3]) if form is Form.COLUMNS else None
        if column is not None:
            return found[1], f"{found[2]}:{column[0]}", column[1]
        return found[1], found[2], found[3]
    if form is Form.COUNTS:
        return None
    if form is Form.SCOPED:
        found = _scoped(line)
        return (found[1], found[3], line[found.end() :]) if found else None
    text = _plain_text(line)
    return (line[: line.find(":")], "", text) if text is not None else None


def _flat_context(
    parsed: list[tuple[str, str, str] | None], at: int, line: str, last_path: str | None, grouped: tuple[str, ...]
) -> tuple[str, str, str, str] | None:
    """(path, mark, number, text) of a `path-12-text` (or `path=12=text`) line next to a hit
    of `path`, or in a group with a hit of `path`."""
    after = next((hit[0] for hit in parsed[at + 1 : at + 64] if hit is not None), None)
    for path in (last_path, after, *grouped):
        if path and (found := _context_of(line, path)):
            return path, found[1], found[2], line[found.end() :]
    return None


def _notice(listing: Listing, span: Span, text: str) -> None:
    binary = binary_notice(text)
    if binary is not None:
        listing.binary.append(Notice(span, binary))
        return
    found = _COUNT_RE.fullmatch(text) if listing.form is Form.COUNTS else None
    if found and looks_like_path(found[1]):
        listing.counts.append(Notice(span, found[1], int(found[2])))
        return
    listing.other.append(Notice(span, text))


def _parse_heading(lines: list[tuple[Span, str]], listing: Listing) -> None:
    files: dict[str, FileHits] = {}
    current: FileHits | None = None
    pending: list[Printed] = []
    separated = False  # a `--` since the last hit: context lines now lead to the next hit
    for at, (span, text) in enumerate(lines):
        found = _NUMBER_RE.match(text)
        if found and current is not None:
            printed = Printed(span, found[1], found[2], text[found.end() :])
            if found[2] == ":":
                current.hits.append(Hit(printed, [*pending, printed]))
                pending, separated = [], False
            elif current.hits and not separated:
                current.hits[-1].printed.append(printed)
            else:
                pending.append(printed)
            continue
        if text == "--" or not text.strip():
            separated = separated or text == "--"
            continue
        following = lines[at + 1][1] if at + 1 < len(lines) else ""
        if binary_notice(text) is None and _NUMBER_RE.match(following):
            _leftover(listing, current, pending)
            pending, separated = [], False
            current = files.setdefault(text, FileHits(text, heading=span))
            continue
        _notice(listing, span, text)
    _leftover(listing, current, pending)
    listing.files = list(files.values())


def _parse_messages(lines: list[tuple[Span, str]], listing: Listing) -> None:
    """Hits and context from `match` and `context` messages; a file's `begin` and `end`
    messages travel with its first and last hit (behind its ref), the `summary` and any
    line that is no message are other output."""
    files: dict[str, FileHits] = {}
    pending: dict[str, list[Printed]] = {}
    for span, text in lines:
        found = messages.message(text)
        kind = found["type"] if found else None
        parts = messages.parts_of(found) if found and kind in ("match", "context") else None
        path = messages.path_of(found) if found and kind in ("begin", "end") else None
        if parts is not None:
            printed = Printed(span, parts[1], ":" if kind == "match" else "-", parts[2], text)
            current = files.setdefault(parts[0], FileHits(parts[0]))
            if kind == "match":
                current.hits.append(Hit(printed, [*pending.pop(parts[0], []), printed]))
            elif current.hits and not pending.get(parts[0]):
                current.hits[-1].printed.append(printed)
            else:
                pending.setdefault(parts[0], []).append(printed)
        elif path is not None and (kind == "begin" or path not in files or not files[path].hits):
            pending.setdefault(path, []).append(Printed(span, "", messages.BOOKKEEPING, "", text))
        elif path is not None:
            files[path].hits[-1].printed.append(Printed(span, "", messages.BOOKKEEPING, "", text))
        elif text.strip():
            _notice(listing, span, text)
    for path, printed_lines in pending.items():  # a file's messages with no match after them
        listing.other.extend(Notice(printed.span, printed.shown) for printed in printed_lines)
    listing.files = list(files.values())


def _leftover(listing: Listing, current: FileHits | None, pending: list[Printed]) -> None:
    """Context lines after a file's last hit: they belong to that hit."""
    if current is not None and current.hits:
        current.hits[-1].printed.extend(pending)
        return
    listing.other.extend(Notice(printed.span, printed.shown) for printed in pending)
