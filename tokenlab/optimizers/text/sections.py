"""Sections of a dump, and which of them stay whole.

A dump is made of sections of very different sizes: a binary's 20-line header beside its
10,000-row relocation table, a 4-line query plan beside the 60-line bytecode listing of
the same query, a 40-row library list beside 400 lines of version requirements. The
outline folds each line by what it is, so a small section is cut like a large one: a plan
tree keeps its first line, while a large listing of kept-looking lines stays. Reading the
document as sections first spends the folding where it pays:

- a section of at most `whole_lines` lines (and `whole_bytes` bytes) stays whole;
- larger ones stay whole too, smallest first, while they add up to no more than the
  document's budget (`budget_bytes`, or `budget_share` of the document if more), so the
  largest sections are the ones folded;
- a section left to the outline keeps its last line as well as its first: a list's
  newest entry, a table's total;
- a section of prose is a paragraph, outlined as such, whatever its size;
- sections that open alike (`/lib/…/libc.so.6:`, one per library) and together are
  larger than `series_bytes` are one large repetitive section: the first stays whole when
  small; the others are left to the outline, or, when each is named by a `Label:` line,
  show that line (and the status fields and failures the outline keeps), their bodies
  folded.

A section starts after a blank or rule line, at a heading, at a short `Label:` line
whose next line is indented deeper or is a label too (and after the lines indented under
it), and at a table's header (the line above a rule of dash groups, `----  -------`); a
table ends at its first row without columns (the query result after a bytecode listing).
A table's rows with a value in a column headed `errors` or `failed` are statuses and
stay, as failure lines do. Boundaries are found by whole-document searches, so a
document without any (100,000 one-byte lines) costs no per-line work here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tokenlab.optimizers.text.blocks import is_prose, signature
from tokenlab.patterns import compile_on_use


@dataclass(frozen=True)
class SectionLimits:
    whole_lines: int = 30  # a section this short stays whole...
    whole_bytes: int = 4096  # ...when it is no larger than this
    budget_bytes: int = 4096  # larger sections stay whole, smallest first, up to this much...
    budget_share: float = 0.05  # ...or this share of the document, when that is more
    budget_lines: int = 100  # a section longer than this is folded whatever the budget
    series_bytes: int = 8192  # sections opening alike and larger than this together are folded
    series_members: int = 3  # sections opening alike make a series from this many on
    lines_read: int = 50  # whether a section is prose is read on this many lines


DEFAULT_SECTION_LIMITS = SectionLimits()

# A blank line, or a rule line (`-----`, `=====`), which separates like one.
_BLANK_LINE_RE = compile_on_use(rb"\n[ \t\r\f\v|]*(?:[-=_*~]{3,}[ \t\r]*)?(?=\n)")
# A short line ending in a colon (`Version information:`, `  Locally applied patches:`),
# its words one space apart (a line of code quoted after a prefix is indented inside).
_LABEL_RE = compile_on_use(rb"\n([ \t]*)[^\s:](?:[^\s:]| (?=[^\s:])){0,78}:[ \t\r]*(?=\n)")
# A rule under a table's header: at least two groups of dashes (`----  ------`, `---+---`).
_RULE_RE = compile_on_use(rb"\n[ \t]*[-=]{2,}(?:[ \t+|]+[-=]{2,})+[ \t\r]*(?=\n)")
_COLUMNS_RE = compile_on_use(rb"\S(?: {2,}|\t| \| )\S")
# A column header naming failures: its non-empty, non-zero cells are statuses.
_STATUS_HEADER_RE = compile_on_use(rb"(?i)(?<!\S)(?:errors?|fail(?:ed|s|ures?)?)(?!\S)")
_CELL_RE = compile_on_use(rb"\S+")
_RULE_BYTES = b" \t\r-=+|"
_ZERO = frozenset((b"0", b"-", b"0.00", b"0.0"))
_BLANKISH = b" \t\r\f\v|"  # a pydoc gutter line ("     |  ") separates like a blank line


def _indent(line: bytes) -> int:
    return len(line) - len(line.lstrip(b" \t"))


def _next_filled(lines: Sequence[bytes], index: int) -> int:
    """The first line after `index` holding more than blanks, or len(lines)."""
    index += 1
    while index < len(lines) and not lines[index].strip(_BLANKISH):
        index += 1
    return index


def section_starts(
    data: bytes, lines: Sequence[bytes], line_at: Callable[[int], int], headings: dict[int, int]
) -> list[int]:
    """Sorted first lines of the sections (blank lines belong to none: a blank line's
    index is a start too, and `sections` drops the blank ones)."""
    padded = b"\n" + data
    starts: set[int] = {0}
    for match in _BLANK_LINE_RE.finditer(padded):
        blank = line_at(match.start())
        starts.update((blank, blank + 1))
    starts.update(index for index, level in headings.items() if level)
    # A label holds a colon and a rule dashes or equals signs: their absence is found by
    # `in` far faster than by trying the pattern on every line.
    for match in _LABEL_RE.finditer(padded) if b":" in data else ():
        index = line_at(match.start())
        after = _next_filled(lines, index)
        margin = len(match.group(1))
        if after < len(lines) and (_indent(lines[after]) > margin or lines[after].rstrip().endswith(b":")):
            starts.add(index)
            starts.add(_label_end(lines, after, margin))
    for match in _RULE_RE.finditer(padded) if b"-" in data or b"=" in data else ():
        rule = line_at(match.start())
        if rule > 0:
            starts.add(rule - 1)
            starts.update(_table_end(lines, rule))
    return sorted(start for start in starts if start < len(lines))


def _label_end(lines: Sequence[bytes], first: int, margin: int) -> int:
    """Where the lines indented under a label end: at the first line back at its margin."""
    if _indent(lines[first]) <= margin:
        return first
    index = first
    while index < len(lines) and (_indent(lines[index]) > margin or not lines[index].strip(_BLANKISH)):
        index += 1
    return index


def _table_end(lines: Sequence[bytes], rule: int) -> list[int]:
    """The first row under a table's rule that has no columns (a result, a footer)."""
    for index in range(rule + 1, len(lines)):
        line = lines[index]
        if not line.strip(_BLANKISH):
            return []
        if not _COLUMNS_RE.search(line):
            return [index]
    return []


def _separates(line: bytes) -> bool:
    """A blank or rule line: it belongs to no section."""
    return not line.strip(_BLANKISH).strip(b"-=_*~")


def sections(lines: Sequence[bytes], starts: list[int]) -> list[tuple[int, int]]:
    """(first, end) line ranges between the starts, blank and rule lines left out."""
    ranges: list[tuple[int, int]] = []
    for first, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        while first < end and _separates(lines[first]):
            first += 1
        while end > first and _separates(lines[end - 1]):
            end -= 1
        if end > first:
            ranges.append((first, end))
    return ranges


def _mostly_prose(lines: Sequence[bytes]) -> bool:
    return sum(1 for line in lines if is_prose(line)) > len(lines) / 2


@dataclass(frozen=True)
class SectionPlan:
    whole: list[tuple[int, int]]  # sections shown whole
    series_rest: list[tuple[int, int]]  # later members of a large series: their opening line stays
    folded: list[tuple[int, int]]  # larger ones left to the outline (no prose): their last line stays


def plan_sections(
    lines: Sequence[bytes], ranges: list[tuple[int, int]], limits: SectionLimits = DEFAULT_SECTION_LIMITS
) -> SectionPlan:
    """The sections that stay whole, and those that keep only their opening line (see the
    module docstring)."""
    if len(ranges) < 2:
        return SectionPlan([], [], [])
    sizes = [sum(len(line) + 1 for line in lines[first:end]) for first, end in ranges]
    shapes = [signature(lines[first]) for first, _ in ranges]
    members: Counter[bytes] = Counter(shapes)
    series_sizes: Counter[bytes] = Counter()
    for shape, size in zip(shapes, sizes, strict=True):
        series_sizes[shape] += size
    seen: set[bytes] = set()
    whole: list[tuple[int, int]] = []
    series_rest: list[tuple[int, int]] = []
    folded: list[tuple[int, int]] = []
    candidates: list[tuple[int, tuple[int, int]]] = []
    for (first, end), size, shape in zip(ranges, sizes, shapes, strict=True):
        in_series = members[shape] >= limits.series_members and series_sizes[shape] > limits.series_bytes
        if in_series and shape in seen:
            if lines[first].rstrip().endswith(b":"):  # a named section: its name says which
                series_rest.append((first, end))
            continue
        seen.add(shape)
        small = end - first <= limits.whole_lines and size <= limits.whole_bytes
        if _mostly_prose(lines[first : min(end, first + limits.lines_read)]):
            continue  # a paragraph: the outline keeps its first line and folds the rest
        if not small and (in_series or end - first > limits.budget_lines):
            folded.append((first, end))
        elif small:
            whole.append((first, end))
        else:
            candidates.append((size, (first, end)))
    budget = max(limits.budget_bytes, int(limits.budget_share * sum(sizes)))
    for size, section in sorted(candidates):
        if size <= budget:
            budget -= size
            whole.append(section)
        else:
            folded.append(section)
    return SectionPlan(sorted(whole), series_rest, sorted(folded))


def status_rows(data: bytes, lines: Sequence[bytes], line_at: Callable[[int], int]) -> list[int]:
    """Rows of a table (a header over a dash rule) with a value in a column headed
    `errors` or `failed` (strace -c's syscalls that failed): a status, whatever the row's
    size. A cell is the word under the header's word; empty and zero cells are none."""
    rows: list[int] = []
    for match in _RULE_RE.finditer(b"\n" + data):
        rule = line_at(match.start())
        header = lines[rule - 1] if rule > 0 else b""
        columns = [(found.start(), found.end()) for found in _STATUS_HEADER_RE.finditer(header)]
        if not columns:
            continue
        for index in range(rule + 1, len(lines)):
            line = lines[index]
            if not line.strip(_BLANKISH):
                break
            if not line.strip(_RULE_BYTES):
                continue  # a rule above the totals
            if not _COLUMNS_RE.search(line):
                break
            if any(_has_status(line, start, end) for start, end in columns):
                rows.append(index)
    return rows


def _has_status(line: bytes, start: int, end: int) -> bool:
    for cell in _CELL_RE.finditer(line, max(0, start - 12), end + 12):
        if cell.start() < end and cell.end() > start:
            return cell.group() not in _ZERO
    return False
