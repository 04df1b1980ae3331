"""Blocks of record lines inside a document the text optimizer outlines, and where a
failure word is a status rather than part of a name. What a folded listing's note counts
is in `listing_counts.py`.

The prose outline keeps a paragraph's first line and folds the rest. A run of lines with
no blank line between them is a paragraph only when its lines are wrapped prose; a
schema dump, a syscall trace, a version table or a compiler's `-v` report has no blank
lines either, and its first line is no summary of the others. So each block (lines
between blank lines) is read once: when fewer than half of its lines are prose (mostly
plain words), it is a *record block*, and:

- a small one (at most `small_lines` lines or `small_bytes` bytes) stays whole;
- a larger one is cut into records at its own margin (the lines least indented, each
  with the deeper lines under it): every record's first line stays, and each record's
  body is read the same way, so a small body stays whole and a large one keeps its own
  record lines. A block of more than `many_records` records is a listing: it is left to
  the outline's sampling (first and last lines, rare shapes), as keeping every row of a
  724-row package list would save nothing;
- unless it is a small listing of distinct entries (at most `listing_bytes`, its rows
  distinct once numbers are masked: man pages found by a keyword, modules with their
  summaries, a `key: value` report). Each row is an item of its own, not a repeat of the
  one before it, so sampling would hide the very rows it was printed for.

In a dump of named values (`NAME "value"`, `key = value`, `key: value`, one name a row:
a build tool's variables, a runtime's properties, kernel parameters), the rows naming
what runs are read first: a name whose last word is `version`, `id`, `generator`,
`processor`, `arch`, `machine` or `platform`, with a short value on its line
(`CMAKE_CXX_COMPILER_ID "GNU"`, `java.vm.version = 17.0.2`, `os.arch = amd64`). They stay wherever the outline
folds their listing (`identity_rows`), unless their name is repeated (records each with
an `id` are records, not a dump).

A quoted value that runs on over lines (`NAME "#define X …` to a line ending the quote,
among rows of one-line named values: a compiler probe's source in a build tool's
variables, a function in a shell's `set` listing) is one value: its lines after the
named row fold whole, whatever they look like (`#` lines are no headings, `error` in
them is no failure), and the named row stays (`quoted_value_bodies`).

Inside record blocks a failure *word* (`error`, `fail…`) is a failure only where a tool
reports status: at the start of the line or of a `prog:` message, right after a field's
key (`Status: failed`, `severity=error`, `[ERROR]`), or as a column of its own between
runs of spaces. Inside a name, a description or a symbol (`liberror-perl`, `a fast
memory error detector`, `fatal_error`) it is data. Failure *phrases* (`No such file or
directory`, `undefined reference`, `is not installed`, a syscall's `= -1 ENOENT`) say
what went wrong wherever they stand.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tokenlab.optimizers.text.listing_counts import is_table
from tokenlab.patterns import compile_on_use


@dataclass(frozen=True)
class BlockLimits:
    small_lines: int = 10  # a record block (or a record's body) this short stays whole...
    small_bytes: int = 600  # ...as does one this small (about 150 tokens)
    many_records: int = 40  # more records than this make a listing, sampled by the outline...
    listing_bytes: int = 6144  # ...unless it is this small (about 1.5k tokens) and its rows are distinct
    distinct_share: float = 0.9  # rows distinct once numbers are masked make a listing of entries
    prose_share: float = 0.5  # a block with more than this share of prose lines is prose
    document_prose_share: float = 0.35  # a document with this share of prose lines is documentation
    series_bytes: int = 8192  # blocks alike in more bytes than this are a large repetitive section
    lines_read: int = 50  # a block's or document's prose share is read on this many lines


DEFAULT_BLOCK_LIMITS = BlockLimits()

# A word of prose: letters, lower case after the first, with the punctuation around words.
_PROSE_WORD_RE = compile_on_use(rb"[(\"'`*_]*[A-Za-z][a-z'-]*[)\"'`*_,.;:!?]*")
_PROSE_MIN_WORDS = 3
_COLUMN_GAP_RE = compile_on_use(rb"\S {2,}(?=\S)")
_ALIGNED_FIELD_RE = compile_on_use(rb"\w: {2,}(?=\S)")
_BULLETS = frozenset((b"-", b"*", b"+", b"\xe2\x80\xa2", b">"))
_PROSE_WORD_SHARE = 0.75
_BLANKISH = b" \t\r\f\v|"

# What may stand before a failure word at a status position: nothing, one `prog:` or
# `[tag]` word, or a field's key (`Status: `, `level=`, `[`).
_STATUS_PREFIX_RE = compile_on_use(
    rb"[ \t]*(?:<[\w-]{1,20}>)?"  # a markup tag: `<p>Error code …`
    rb"(?:(?:\[[^\]\n]{0,40}\]|[^\sA-Za-z]{1,20}|[^\s:]{1,40}:)[ \t]+){0,3}"  # `[pid 7] +++`, `==42==`, `prog:`
    rb"(?:[\w .-]{0,40}[:=][ \t]*|\[|\()?"  # a field's key: `Status: `, `level=`, `[`
)
_COLUMN_GAP = b"  "
# Failure phrases, read anywhere: what went wrong in words no name or description holds.
FAILURE_PHRASE_RE = compile_on_use(
    rb"no such file or directory|undefined reference to|\bis not installed\b"
    rb"|\bno information is available\b|collect2: error|= -1 E[A-Z]{2,}\b|\bcannot (?:open|access|find|stat|create)\b"
    rb"|\buninitiali[sz]ed value",
    re.IGNORECASE,
)
# A security advisory's identifier names a vulnerability wherever it stands, in a patch's
# name too (`fixes/CVE-2023-47038`): a line holding one is read first, like a failure.
ADVISORY_RE = compile_on_use(rb"\b(?:CVE-\d{4}-\d{4,}|GHSA(?:-[2-9cfghjmpqrvwx]{4}){3})\b")


def is_prose(line: bytes) -> bool:
    """Mostly plain words, not in tab-separated or space-aligned columns nor a field whose
    value is aligned after its key's colon (`Database cluster state:   in production`):
    wrapped prose, not a record."""
    body = line.strip()
    if b"\t" in body or len(_COLUMN_GAP_RE.findall(body)) >= 2 or _ALIGNED_FIELD_RE.search(body):
        return False
    words = body.split()
    if words and words[0] in _BULLETS:
        words = words[1:]
    if len(words) < _PROSE_MIN_WORDS:
        return False
    plain = sum(1 for word in words if _PROSE_WORD_RE.fullmatch(word))
    return plain >= _PROSE_WORD_SHARE * len(words)


def record_blocks(
    lines: Sequence[bytes], skipped: bytearray, limits: BlockLimits = DEFAULT_BLOCK_LIMITS
) -> list[tuple[int, int]]:
    """(first, end) line ranges of the record blocks: runs of non-blank lines, none of
    them `skipped` (fenced code), fewer than `prose_share` of them prose; none in a
    document that is mostly prose (documentation outlines its paragraphs), and none in a
    series of blocks alike (`>> Issue: …` findings, disassembled functions) larger than
    `series_bytes`, which the outline folds."""
    if is_documentation(lines, limits):
        return []
    blocks: list[tuple[int, int]] = []
    first = -1
    for index in range(len(lines) + 1):
        inside = index < len(lines) and not skipped[index] and lines[index].strip(_BLANKISH)
        if inside and first < 0:
            first = index
        elif not inside and first >= 0:
            read = lines[first : min(index, first + limits.lines_read)]
            if index - first > 1 and sum(1 for line in read if is_prose(line)) <= limits.prose_share * len(read):
                blocks.append((first, index))
            first = -1
    return _without_large_series(lines, blocks, limits)


def is_documentation(lines: Sequence[bytes], limits: BlockLimits = DEFAULT_BLOCK_LIMITS) -> bool:
    """At least `document_prose_share` of the lines (a spread sample) are prose."""
    filled = [line for line in lines if line.strip(_BLANKISH)]
    sample = filled[:: max(1, len(filled) // (limits.lines_read * 20))]
    return sum(1 for line in sample if is_prose(line)) >= limits.document_prose_share * max(1, len(sample))


_WORD_RUN_RE = compile_on_use(rb"\w+")
_DIGITS = frozenset(b"0123456789")


def signature(line: bytes) -> bytes:
    """A block's first line as its series knows it: its first word, unless that holds a digit (an address), and the punctuation of
    its second (`>> Issue: [B403:blacklist]`
    → `>> w:`, `0000000000001000 <_init>:` → `w <w>:`, `Dynamic section at` → `Dynamic w`)."""
    words = line.split()[:2]
    if words and any(byte in _DIGITS for byte in words[0]):
        words[0] = b"w"
    return b" ".join([*words[:1], *(_WORD_RUN_RE.sub(b"w", word) for word in words[1:])])


def row_signature(line: bytes) -> bytes:
    """A listing's row as its rows know it: its first two words, a word holding a digit
    set aside (`   14 root  20 …` → `w root`; `32 files changed` → `w files`)."""
    return b" ".join(b"w" if any(byte in _DIGITS for byte in word) else word for word in line.split()[:2])


def _without_large_series(
    lines: Sequence[bytes], blocks: list[tuple[int, int]], limits: BlockLimits
) -> list[tuple[int, int]]:
    sizes: Counter[bytes] = Counter()
    counts: Counter[bytes] = Counter()
    signatures = [signature(lines[first]) for first, _ in blocks]
    for (first, end), shape in zip(blocks, signatures, strict=True):
        counts[shape] += 1
        sizes[shape] += sum(len(line) + 1 for line in lines[first:end])
    return [
        block
        for block, shape in zip(blocks, signatures, strict=True)
        if counts[shape] < 3 or sizes[shape] <= limits.series_bytes
    ]


def kept_record_lines(
    lines: Sequence[bytes], first: int, end: int, limits: BlockLimits = DEFAULT_BLOCK_LIMITS
) -> list[int]:
    """The lines of a record block that stay: all of a small block, else each record's
    first line and what its body keeps by the same rule; none of a long listing."""
    if _small(lines, first, end, limits) or is_small_listing_of_entries(lines, first, end, limits):
        return list(range(first, end))
    # One pass in a comprehension, not a call per line: a listing of 100,000 rows is read
    # here only to be left to the outline.
    indents = [len(line) - len(line.lstrip(b" \t|")) for line in lines[first:end]]
    margin = min(indents)
    if indents.count(margin) > limits.many_records or is_table(lines[first:end]):
        return []
    starts = [first + offset for offset, indent in enumerate(indents) if indent == margin]
    kept: list[int] = []
    for start, next_start in zip(starts, [*starts[1:], end], strict=True):
        kept.append(start)
        if next_start > start + 1:
            kept += kept_record_lines(lines, start + 1, next_start, limits)
    return kept


# A named value whose name's last word says what runs, its value short and on its line:
# `CMAKE_VERSION "3.25.1"`, `java.vm.version = 17`, `machine: x86_64`. Group 1 is the name.
_IDENTITY_ROW_RE = compile_on_use(
    rb"\n[ \t]*((?:[A-Za-z][\w.-]*?[_.-])?(?i:version|id|generator|processor|arch|machine|platform))"
    rb"(?:[ \t]*(?:==?|:)[ \t]*|[ \t]+)(?:\"[^\"\n]{1,60}\"|[^\s\"][^\n]{0,59}?)[ \t\r]*(?=\n|\Z)"
)
_IDENTITY_ROWS_KEPT = 24  # a dump naming more than this many versions is a listing of them


def identity_rows(data: bytes) -> list[int]:
    """Where the rows of a dump of named values that say what runs start (see the module's
    docstring): each name at most twice (a value printed again), at most
    `_IDENTITY_ROWS_KEPT`. One pass over the input, led by a literal newline."""
    found = [(match.start() + 1, match[1]) for match in _IDENTITY_ROW_RE.finditer(b"\n" + data)]
    names = Counter(name for _start, name in found)
    kept = [start - 1 for start, name in found if names[name] <= 2]
    return kept if len(kept) <= _IDENTITY_ROWS_KEPT else []


# A named row opening a quoted value (`NAME "…`, `NAME = "…`, `NAME="…`); group 1 is the
# rest of its line. `_NAMED_ROW_RE` is any line starting so.
_OPEN_VALUE_RE = compile_on_use(rb'\n[ \t]*[A-Za-z_][\w.-]*(?:[ \t]+|[ \t]*=[ \t]*)"([^\n]*)')
_NAMED_ROW_RE = compile_on_use(rb'[ \t]*[A-Za-z_][\w.-]*(?:[ \t]+|[ \t]*=[ \t]*)"')
_VALUE_BODY_MIN_LINES = 3  # a shorter value's lines are read as any lines
_VALUE_BODY_MAX_LINES = 10_000  # no closing quote this far: no value


def _quotes(text: bytes) -> int:
    """The quotes of a line that are not escaped (`\\"`)."""
    return text.count(b'"') - text.count(b'\\"')


def quoted_value_bodies(data: bytes, lines: Sequence[bytes], line_at: Callable[[int], int]) -> list[tuple[int, int]]:
    """(first, end) lines of each quoted value's body (see the module's docstring): from
    the line after its named row to the line ending the quote, a named row before or after
    it (a lone unbalanced quote in prose opens nothing)."""
    bodies: list[tuple[int, int]] = []
    for match in _OPEN_VALUE_RE.finditer(b"\n" + data):
        row = line_at(match.start())
        if (bodies and row < bodies[-1][1]) or _quotes(match[1]) % 2:
            continue  # inside the value before, or closed on its own line
        end = next(
            (at + 1 for at in range(row + 1, min(len(lines), row + _VALUE_BODY_MAX_LINES)) if _quotes(lines[at]) % 2),
            None,
        )
        if end is None or end - row - 1 < _VALUE_BODY_MIN_LINES or not lines[end - 1].rstrip().endswith(b'"'):
            continue
        around = [lines[row - 1]] if row else []
        around += [lines[end]] if end < len(lines) else []
        if any(_NAMED_ROW_RE.match(line) for line in around):
            bodies.append((row + 1, end))
    return bodies


# A word holding a digit, or made of hex digits only (`0a4:`, `d (GLIBC_2.2.5)`): a number.
_NUMBER_WORD_RE = compile_on_use(rb"\S*\d\S*|(?<!\S)[0-9a-fA-F]+:?(?!\S)")
_SPACE_RUN_RE = compile_on_use(rb"\s+")


def is_small_listing_of_entries(
    lines: Sequence[bytes], first: int, end: int, limits: BlockLimits = DEFAULT_BLOCK_LIMITS
) -> bool:
    """At most `listing_bytes`, and at least `distinct_share` of its rows distinct once
    numbers and runs of spaces are masked: entries, not repeats of a line."""
    # Each line takes a byte at least, its newline: more lines than bytes allowed are
    # too large without adding up their lengths.
    if end - first > limits.listing_bytes:
        return False
    if sum(len(line) + 1 for line in lines[first:end]) > limits.listing_bytes:
        return False
    masked = {_SPACE_RUN_RE.sub(b" ", _NUMBER_WORD_RE.sub(b"#", line.strip())) for line in lines[first:end]}
    return len(masked) >= limits.distinct_share * (end - first)


def _small(lines: Sequence[bytes], first: int, end: int, limits: BlockLimits) -> bool:
    if end - first <= limits.small_lines:
        return True
    size = 0
    for index in range(first, end):
        size += len(lines[index]) + 1
        if size > limits.small_bytes:
            return False
    return True


def at_status(line: bytes, position: int, length: int) -> bool:
    """Whether the failure word at `position` stands where a tool reports status."""
    if _STATUS_PREFIX_RE.fullmatch(line, 0, position):
        return True
    end = position + length
    before_gap = line[max(0, position - 2) : position] == _COLUMN_GAP
    after_gap = end >= len(line.rstrip()) or line[end : end + 2] == _COLUMN_GAP
    return before_gap and after_gap
