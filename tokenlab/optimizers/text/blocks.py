"""Blocks of record lines inside a document the text optimizer outlines, and where a
failure word is a status rather than part of a name.

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
from os.path import commonprefix


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
_PROSE_WORD_RE = re.compile(rb"[(\"'`*_]*[A-Za-z][a-z'-]*[)\"'`*_,.;:!?]*")
_PROSE_MIN_WORDS = 3
_COLUMN_GAP_RE = re.compile(rb"\S {2,}(?=\S)")
_ALIGNED_FIELD_RE = re.compile(rb"\w: {2,}(?=\S)")
_BULLETS = frozenset((b"-", b"*", b"+", b"\xe2\x80\xa2", b">"))
_PROSE_WORD_SHARE = 0.75
_BLANKISH = b" \t\r\f\v|"

# What may stand before a failure word at a status position: nothing, one `prog:` or
# `[tag]` word, or a field's key (`Status: `, `level=`, `[`).
_STATUS_PREFIX_RE = re.compile(
    rb"[ \t]*(?:<[\w-]{1,20}>)?"  # a markup tag: `<p>Error code …`
    rb"(?:(?:\[[^\]\n]{0,40}\]|[^\sA-Za-z]{1,20}|[^\s:]{1,40}:)[ \t]+){0,3}"  # `[pid 7] +++`, `==42==`, `prog:`
    rb"(?:[\w .-]{0,40}[:=][ \t]*|\[|\()?"  # a field's key: `Status: `, `level=`, `[`
)
_COLUMN_GAP = b"  "
# Failure phrases, read anywhere: what went wrong in words no name or description holds.
FAILURE_PHRASE_RE = re.compile(
    rb"no such file or directory|undefined reference to|\bis not installed\b"
    rb"|\bno information is available\b|collect2: error|= -1 E[A-Z]{2,}\b|\bcannot (?:open|access|find|stat|create)\b"
    rb"|\buninitiali[sz]ed value",
    re.IGNORECASE,
)
# A security advisory's identifier names a vulnerability wherever it stands, in a patch's
# name too (`fixes/CVE-2023-47038`): a line holding one is read first, like a failure.
ADVISORY_RE = re.compile(rb"\b(?:CVE-\d{4}-\d{4,}|GHSA(?:-[2-9cfghjmpqrvwx]{4}){3})\b")


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


_WORD_RUN_RE = re.compile(rb"\w+")
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
    if indents.count(margin) > limits.many_records or _is_table(lines[first:end]):
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
_IDENTITY_ROW_RE = re.compile(
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
_OPEN_VALUE_RE = re.compile(rb'\n[ \t]*[A-Za-z_][\w.-]*(?:[ \t]+|[ \t]*=[ \t]*)"([^\n]*)')
_NAMED_ROW_RE = re.compile(rb'[ \t]*[A-Za-z_][\w.-]*(?:[ \t]+|[ \t]*=[ \t]*)"')
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
_NUMBER_WORD_RE = re.compile(rb"\S*\d\S*|(?<!\S)[0-9a-fA-F]+:?(?!\S)")
_SPACE_RUN_RE = re.compile(rb"\s+")


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


def _states(counts: Counter[bytes]) -> bool:
    """A column of states: few values, at most one of them held by a single row, each
    with a letter or digit (`=>` and `|` are a listing's punctuation)."""
    if len(counts) > _MOST_VALUES or sum(1 for count in counts.values() if count == 1) > 1:
        return False
    return all(_ALNUM_RE.search(value) for value in counts)


def _tally_rows(rows: Sequence[bytes]) -> dict[bytes, tuple[list[bytes], int]]:
    """Each distinct row -> its words and how many rows it is, in the order rows first
    occur. A listing repeats rows: what is counted of them is read once per distinct row
    and weighed; the rows themselves are read again only to say where a rare one stands."""
    return {row: (row.split(), count) for row, count in Counter(rows).items()}


def _column_counts(tally: dict[bytes, tuple[list[bytes], int]], column: int) -> Counter[bytes]:
    """How many rows hold each value of `column`, values in the order rows first hold them."""
    counts: Counter[bytes] = Counter()
    for words, count in tally.values():
        if len(words) > column:
            counts[words[column]] += count
    return counts


def _is_table(rows: Sequence[bytes]) -> bool:
    """Rows of a table (`top`'s processes): several columns of few values each."""
    tally = _tally_rows(rows)
    few_valued = 0
    for column in range(_COLUMNS_READ):
        counts = _column_counts(tally, column)
        if counts.total() < _PRESENT_SHARE * len(rows):
            break
        few_valued += len(counts) <= _MOST_VALUES
    return few_valued >= _TABLE_COLUMNS


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


_MOST_VALUES = 8  # a column with more distinct values than this names rows, not states
_ALNUM_RE = re.compile(rb"[A-Za-z0-9]")
_TABLE_COLUMNS = 3  # few-valued columns that make one-line records a table
_USUAL_SHARE = 0.9  # a value this many rows hold makes the other values of its column unusual
_COLUMNS_READ = 8
_PRESENT_SHARE = 0.9  # a column must be present in this share of the rows
_SIZE_SKEW = 10  # a column of sizes has its largest this many times its median or more


def column_summary(rows: Sequence[bytes], rare: int, skip: int = -1) -> tuple[str, list[int]]:
    """Counts per value of a listing's few-valued columns (`ii ×724`, `amd64 ×500, all
    ×224`), and the rows holding a value of such a column that at most `rare` rows hold
    (the one package in a bad state among 724 installed ones) in a column where one value
    is usual. Columns are whitespace-separated words; column `skip` (a listing's sort key)
    is not summarised."""
    tally = _tally_rows(rows)
    parts: list[str] = []
    rare_kinds: set[bytes] = set()
    for column in range(_COLUMNS_READ):
        counts = _column_counts(tally, column)
        present = counts.total()
        if present < _PRESENT_SHARE * len(rows):
            break
        if column == skip or not _states(counts):
            continue
        listed = ", ".join(f"{value.decode(errors='replace')} ×{count}" for value, count in counts.most_common())
        parts.append(f"column {column + 1}: {listed}")
        if len(counts) > 1 and counts.most_common(1)[0][1] >= _USUAL_SHARE * present:
            rare_kinds.update(
                row
                for row, (words, _) in tally.items()
                if len(words) > column and counts[words[column]] <= rare
            )
    return "; ".join(parts), [at for at, row in enumerate(rows) if row in rare_kinds] if rare_kinds else []


def size_extremes(rows: Sequence[bytes]) -> tuple[str, list[int]]:
    """The range of each column of sizes (`column 3: 7 to 2,928,411, largest shown`) and
    the row holding each largest value: counts per value cannot say which object is the
    largest, and that row is what a reader of a listing of sizes asks for. A column of
    sizes holds a whole number in every row, many distinct ones (a few are states: a
    section index, a version), skewed: the largest is `_SIZE_SKEW` times the median or
    more, where line numbers and offsets spread evenly (and offsets rise, so the rows
    kept around a fold already show their ends)."""
    tally = _tally_rows(rows)
    parts: list[str] = []
    largest_rows: set[int] = set()
    for column in range(_COLUMNS_READ):
        words = _column_counts(tally, column)
        present = words.total()
        if present < len(rows) or not all(word.isdigit() for word in words):
            if present < _PRESENT_SHARE * len(rows):
                break
            continue
        numbers: Counter[int] = Counter()
        for word, count in words.items():
            numbers[int(word)] += count
        if len(numbers) <= _MOST_VALUES or max(numbers) < _SIZE_SKEW * _median(numbers):
            continue
        top = max(numbers)
        largest = next(at for at, row in enumerate(rows) if int(tally[row][0][column]) == top)
        parts.append(f"column {column + 1}: {min(numbers):,} to {top:,}, largest shown")
        largest_rows.add(largest)
    return "; ".join(parts), sorted(largest_rows)


def _median(numbers: Counter[int]) -> int:
    """The upper median of numbers given with how often each occurs."""
    middle = numbers.total() // 2
    seen = 0
    for number in sorted(numbers):
        seen += numbers[number]
        if seen > middle:
            return number
    raise ValueError("no numbers")


# A row's value: what follows its name across a column gap (a tab, or two spaces and more),
# itself with no gap (a row of several columns is a table's): `  -Wabi   \t\t[disabled]`,
# `Cluster state:    in production`.
_VALUE_RE = re.compile(rb"[ \t]*\S(?:\S| (?=\S))*(?: *\t|  )[ \t]*(\S(?:\S| (?=\S))*)?[ \t\r]*")
_MOST_COMMON_VALUES = 12  # a listing whose rows mostly share this few values holds states...
_COMMON_SHARE = 0.75  # ...in this share of its rows at least


def value_summary(rows: Sequence[bytes], rare: int, named: int = 0) -> tuple[str, list[int], list[int]]:
    """Counts per value of a listing whose rows are `name  value` and whose values are
    mostly a few states (`[disabled] ×137, [enabled] ×74`), and the rows whose value at
    most `rare` rows hold (an alias among states, the one setting that differs): the rows
    that say something the counts do not. The values but the most common one name their
    rows, those of fewest rows first, `named` rows in all at most (`[ignored] ×3 (-Wa, -Wb,
    -Wc)`): which names differ from the usual is what such a listing is asked; where every
    other value's rows are named,
    the most common value is every other row's. Values may hold spaces, unlike a column of
    `column_summary`. Returns the summary, the rows of a rare value, and the rows named."""
    tally = Counter(rows)  # each distinct row is matched once (a listing repeats rows)
    match_of = {row: _VALUE_RE.fullmatch(row) for row in tally}
    value_of = {row: match.group(1) or b"" for row, match in match_of.items() if match}
    counts: Counter[bytes] = Counter()
    for row, value in value_of.items():
        counts[value] += tally[row]
    common = [(value, count) for value, count in counts.most_common() if count > rare]
    if len(common) > _MOST_COMMON_VALUES or sum(count for _, count in common) < _COMMON_SHARE * len(rows):
        return "", [], []
    names: dict[bytes, list[bytes]] = {}
    named_rows: list[int] = []
    rare_values = {value for value, count in counts.items() if count <= rare}
    named_values = _values_named(counts, common[0][0], rare, named)
    for at, row in enumerate(rows) if named_values else ():
        match = match_of[row]
        if match and value_of[row] in named_values:
            name = match[0][: match.start(1) if match.group(1) else None].strip()
            names.setdefault(value_of[row], []).append(name)
            named_rows.append(at)
    said = {value: f" ({_names_sharing_start(names[value])})" for value in names}
    # Every other value's rows named (or shown, a rare value's), the rows of the usual
    # value are the rest: said so, each row's value can be read (`-Wunused [disabled]`).
    if len(common) > 1 and named_values.union(rare_values).issuperset(counts.keys() - {common[0][0]}):
        said[common[0][0]] = " (every row not named or shown)"
    listed = ", ".join(
        f"{value.decode(errors='replace') or '(empty)'} ×{count}{said.get(value, '')}"
        for value, count in common
    )
    rare_rows = [at for at, row in enumerate(rows) if value_of.get(row) in rare_values] if rare_values else []
    return f"column 2: {listed}", rare_rows, named_rows


def _values_named(counts: Counter[bytes], usual: bytes, rare: int, named: int) -> set[bytes]:
    """The values whose rows are named: not the usual one nor a rare one (its rows stay),
    those of fewest rows first while `named` rows in all are not passed."""
    values: set[bytes] = set()
    for value, count in sorted(counts.items(), key=lambda item: item[1]):
        if value == usual or count <= rare:
            continue
        if count > named:
            break
        values.add(value)
        named -= count
    return values


def _names_sharing_start(names: list[bytes]) -> str:
    """The names, comma-separated; a long list says the start all its names share once
    (`-W…: abi, address, …`): on a listing's hundred names, a quarter of their tokens."""
    said = b", ".join(names)
    start = commonprefix(names) if len(names) >= _SHARED_START_NAMES else b""
    start = start.rstrip(b"0123456789")  # `m1` and `m10` share `m`, not `m1`
    if len(start) >= 2 and all(len(name) > len(start) for name in names):
        said = start + "…: ".encode() + b", ".join(name[len(start) :] for name in names)
    return said.decode(errors="replace")


_SHARED_START_NAMES = 10  # a list of this many names says their shared start once
_NAMING_SHARE = 0.25  # rows led by one word, this share of a listing at least, name a thing each...
_DISTINCT_NAMES_SHARE = 0.9  # ...when this share of them name a thing of their own


def lead_names(rows: Sequence[bytes], most: int) -> str:
    """``import ×52: 'types', 'operator', …`` for a listing of which a good share of rows
    are led by one word and name a thing each after it (`import 'json' # …`, `Compiling
    serde v1.0`), other rows between: the things in their order, what such a listing is
    read for (which modules were loaded before a failure, in what order). Past `most`
    names, the first third and the last ones are listed: the last came just before
    whatever followed the listing."""
    tally = _tally_rows(rows)
    leads: Counter[bytes] = Counter()
    for words, count in tally.values():
        if len(words) > 1 and words[0][:1].isalpha():
            leads[words[0]] += count
    for lead, count in leads.most_common():
        if count < _NAMING_SHARE * len(rows):
            break
        names = list(
            dict.fromkeys(words[1] for words, _ in tally.values() if len(words) > 1 and words[0] == lead)
        )
        if len(names) >= _DISTINCT_NAMES_SHARE * count:
            return f"{lead.decode(errors='replace')} ×{count}: {_names_listed(names, most)}"
    return ""


def _names_listed(names: list[bytes], most: int) -> str:
    """The names, or past `most` the first third of them and the last ones."""
    said = [name.decode(errors="replace") for name in names]
    if len(said) > most:
        head = most // 3
        said = [*said[:head], f"… +{len(said) - most}", *said[head - most :]]
    return ", ".join(said)
