"""Long folded listings sampled, and the rare lines of a series of alike sections kept
(see `optimizer.py`): what makes a listing's folds safe to skip.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Hashable, Mapping

from tokenlab.optimizers import visible
from tokenlab.optimizers.lines import forms
from tokenlab.optimizers.text import listing_counts
from tokenlab.optimizers.text.config import TextConfig
from tokenlab.optimizers.text.line_states import BLANKISH, FOLD, KEEP
from tokenlab.optimizers.text.record_shapes import template

_DIGIT_BYTES = frozenset(b"0123456789")
_SERIES_MEMBERS_READ = 10  # fewer members of a series say nothing of what is rare among them


def keep_rare_member_lines(
    states: bytearray, lines: list[bytes], members: list[tuple[int, int]], limits: TextConfig
) -> None:
    """A line of a series member led by a word that at most `rare_shape_lines` members
    hold (`no symbols` in two of 529 archive members) marks the members that differ:
    it outranks the lines every member has, folded under the member's name."""
    if len(members) < _SERIES_MEMBERS_READ:
        return
    leads = [{_leading_word(lines[index]) for index in range(first + 1, end)} for first, end in members]
    holders = Counter(lead for member in leads for lead in member)
    for first, end in members:
        for index in range(first + 1, end):
            if states[index] == FOLD and holders[_leading_word(lines[index])] <= limits.rare_shape_lines:
                states[index] = KEEP


def sample_long_folds(states: bytearray, all_lines: list[bytes], limits: TextConfig) -> dict[int, str]:
    """A long folded listing keeps a head and a tail sample, so that it never shrinks
    to the one line before it, and its lines of a rare shape (a total under a stat, the
    one changed file among renames) or led by a word no other row has (a banner among
    `import` lines), which are unlike the sample; its note says the rows of a form few
    rows have, one line a form. A listing is a run of lines at one indentation (but for
    a few: a traceback among its rows) with no blank line; prose and docstring bodies
    have paragraphs and stay folded whole."""
    sample, shortest = limits.sample_lines, limits.sample_run_lines
    notes: dict[int, str] = {}
    for run in re.finditer(rb"\x00{%d,}" % shortest, states):
        lines = all_lines[run.start() : run.end()]
        distinct = Counter(lines)  # a long listing repeats lines: each is read once, weighed
        indents: Counter[int] = Counter()
        for line, count in distinct.items():
            indents[len(line) - len(line.lstrip(b" \t|")) if line.strip(BLANKISH) else -1] += count
        if -1 in indents or indents.most_common(1)[0][1] < limits.listing_indent_share * len(lines):
            continue
        for index in (*range(run.start(), run.start() + sample), *range(run.end() - sample, run.end())):
            states[index] = KEEP
        summary, rare_rows, named_rows = _run_summary(lines, limits)
        for offset in rare_rows:
            states[run.start() + offset] = KEEP
        shape_of = {line: template(visible(line)) for line in distinct}
        _keep_rare(states, run.start(), lines, distinct, shape_of, limits)
        # Rows named alike (`import x`, `# destroy y`) have a rare row among them by
        # their first word even when no two rows have one shape (a banner line).
        lead_of = {line: _leading_word(line) for line in distinct}
        _keep_rare(states, run.start(), lines, distinct, lead_of, limits)
        rare_forms = _rare_forms(states, run.start(), lines, named_rows)
        _note_run(notes, states, run.start(), len(lines), "; ".join(part for part in (summary, rare_forms) if part))
    return notes


def _run_summary(lines: list[bytes], limits: TextConfig) -> tuple[str, list[int], list[int]]:
    """A listing's counts (per column value, per value of `name  value` rows, or the
    names its rows' shared first word leads), its rows that must stay (of a rare value,
    the largest) and those its counts name."""
    summary, rare_rows = listing_counts.column_summary(lines, limits.rare_shape_lines)
    named_rows: list[int] = []
    if not summary:
        summary, rare_rows, named_rows = listing_counts.value_summary(
            lines, limits.rare_shape_lines, limits.value_rows_named
        )
    if not summary:
        summary = listing_counts.lead_names(lines, limits.lead_names_listed)
    sizes, largest_rows = listing_counts.size_extremes(lines)
    return "; ".join(part for part in (summary, sizes) if part), [*rare_rows, *largest_rows], named_rows


def _rare_forms(states: bytearray, start: int, lines: list[bytes], named_rows: list[int]) -> str:
    """Rows of a form few rows have (`# extension module … loaded from …` among `# code
    object from …` rows), each naming something else, said one line a form (see `forms`):
    those folded that the run's counts do not name already. A form's line costs less
    than its rows, and keeps the run's folds whole."""
    rare = forms.rare_form_rows(lines, named=frozenset(named_rows))
    described = forms.described(lines, [offset for offset in rare if states[start + offset] == FOLD])
    return f"rows of rare forms: {'; '.join(described)}" if described else ""


def _note_run(notes: dict[int, str], states: bytearray, start: int, rows: int, summary: str) -> None:
    """The counts are of the whole run, its rows shown around and among its folds, said
    at its first fold: so said, or a reader takes them for the fold's own or the listing's."""
    first = states.find(FOLD, start, start + rows)
    if summary and first >= 0:
        notes[first] = f"{rows} rows from the {first - start} above on: {summary}"


def _keep_rare(
    states: bytearray,
    start: int,
    lines: list[bytes],
    distinct: Counter[bytes],
    shape_of: Mapping[bytes, Hashable],
    limits: TextConfig,
) -> None:
    """Keep the `lines` from `start` whose shape at most `rare_shape_lines` lines have,
    when common shapes make up most lines (else every line is as rare as the others).
    Shapes are counted per distinct line, weighed by how often it occurs."""
    counts: Counter[Hashable] = Counter()
    for line, count in distinct.items():
        counts[shape_of[line]] += count
    rare = limits.rare_shape_lines
    if sum(count for count in counts.values() if count > rare) * 4 < len(lines) * 3:
        return
    rare_lines = {line for line in distinct if counts[shape_of[line]] <= rare}
    for offset, line in enumerate(lines) if rare_lines else ():
        if line in rare_lines:
            states[start + offset] = KEEP


def _leading_word(line: bytes) -> bytes:
    """A line's first word, a word holding a digit as `#`: what a listing's rows are led by."""
    words = line.split(maxsplit=1)
    if not words:
        return b""
    return b"#" if any(byte in _DIGIT_BYTES for byte in words[0]) else words[0]
