"""A document's lines with their headings, fences, record blocks and signals, and the
outline deciding each line's state (see `optimizer.py` for what stays and why).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from functools import cached_property
from itertools import accumulate

from tokenlab.optimizers import visible
from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.optimizers.text import blocks, listings, reports, sections
from tokenlab.optimizers.text.config import TextConfig
from tokenlab.optimizers.text.line_states import (
    BLANK,
    BLANKISH,
    FOLD,
    KEEP,
    LONG,
    REPEAT,
    REPEAT_BODY,
    RUN_RE,
    settle_blank_runs,
)
from tokenlab.optimizers.text.long_line import long_line
from tokenlab.optimizers.text.outliner import ENTRY_RE, Outliner, is_excerpt
from tokenlab.optimizers.text.render import SpanKind, TextSpan
from tokenlab.optimizers.text.signal_words import signal_positions, without_names, word_length
from tokenlab.patterns import compile_on_use

# Heading, fence and paragraph patterns start with a literal newline and run over the
# input with one newline prepended: a literal-led search is several times faster than `^`.
_ATX_HEADING_RE = compile_on_use(rb"\n {0,3}(#{1,6})[ \t]+\S")
_CAPS_HEADING_RE = compile_on_use(rb"\n[A-Z][A-Z0-9 _&/()-]{1,60}\r?(?=\n|\Z)")
_SETEXT_RE = compile_on_use(rb"\n(=+|-+)[ \t]*\r?(?=\n|\Z)")
_FENCE_LINE_RE = compile_on_use(rb"\n {0,3}(`{3,}|~{3,})([^\n]*)")
_PARAGRAPH_RE = compile_on_use(rb"(?:^[ \t\r\f\v]*[^\s][^\n]*(?:\n|\Z))+", re.MULTILINE)
# A status field: `Key: value` (`Version: 4.1`, `\t\tHigh: 1`, `>> Issue: [B403] …`; an
# empty value keeps its space: `Required-by: `) or `key = value` whose value is no call
# (`res = await f(x)` is code); a key of a few words.
_FACT_RE = compile_on_use(
    rb"\n[ \t]*(?:[<>*+-]+[ \t]+)?%?[A-Za-z][\w.()-]*(?: [\w.#()-]+){0,4}"
    rb"(?: ?:[ \t]+(?:[^\s]|(?=\r?\n|\Z))|[ \t]*=(?![=>])[ \t]*(?:\d[^\n]*|[^\s(][^(\n]*)(?=\n|\Z))"
)
# A row led by a number, thousands grouped or not (`65,956,452 (32.47%) … file:function`).
# Zero-padded digits are an address or an id (`0000000000288c30`), no quantity.
_RANKED_ROW_RE = compile_on_use(rb"\n[ \t]*([1-9]\d{0,2}(?:,\d{3})+|[1-9]\d*|0)(?:\.\d+)?[ \t]+\S")
# An HTTP status line (`< HTTP/1.1 301 Moved`), or a request answered with a 4xx/5xx
# status (`"GET /x HTTP/1.1" 503 …`): what a server said, read first.
_HTTP_STATUS_RE = compile_on_use(rb"HTTP/\d(?:\.\d)? [1-5]\d\d\b|HTTP/\d(?:\.\d)?\" [45]\d\d\b")
_HTTP_ERROR_RE = compile_on_use(rb"HTTP/\d(?:\.\d)?\"? [45]\d\d\b")
# A column header: three or more words without a lower-case letter (`  PID USER  %CPU TIME+`).
_COLUMN_HEADER_RE = compile_on_use(rb"[ \t]*(?:[A-Z%#][^\sa-z]*[ \t]+){2,}[A-Z%#][^\sa-z]*[ \t\r]*")
# Two sentences on one line (`Status: draft. Owner: the team.`) are prose, not a field.
_SENTENCE_BREAK_RE = compile_on_use(rb"[.!?] +[A-Z]")
_REPORTED, _SUMMARY = 1, 2  # `_keep_report_lines`: kept as a report line, or if it counts things
_STARTS_AT_MARGIN_RE = compile_on_use(rb"^[^\s|]", re.MULTILINE)


class Document:
    """The lines of the input with their byte offsets, and its headings, fences and signals."""

    def __init__(self, data: bytes, limits: TextConfig) -> None:
        self.data = data
        self.limits = limits
        self.lines = data.split(b"\n")
        self.starts = list(accumulate((len(line) + 1 for line in self.lines), initial=0))
        self.starts[-1] = len(data)  # the last line has no newline after it
        self.listing_shapes: Counter[bytes] | None = None  # see `_listing_shapes`
        self.held_folds: set[int] = set()  # folded by the outline for what they are, never kept as records
        self.fold_notes: dict[int, str] = {}  # a sampled listing's first folded line -> its column counts
        self.fact_lines: set[int] = set()  # status fields (`Severity: Low`), kept wherever they stand
        self.whole_lines: set[int] = set()  # kept uncut however long (a ranking's top rows)

    def line_at(self, position: int) -> int:
        return bisect_right(self.starts, position) - 1

    def _lines_matching(self, pattern: re.Pattern[bytes]) -> list[tuple[int, re.Match[bytes]]]:
        """(line, match) for a newline-led pattern; the match's newline precedes the line."""
        padded = b"\n" + self.data
        return [(self.line_at(match.start()), match) for match in pattern.finditer(padded)]

    @cached_property
    def fences(self) -> list[tuple[int, int]]:
        """(first line, last line) of each fenced code block; an unclosed fence is none."""
        fences: list[tuple[int, int]] = []
        opener: tuple[int, bytes] | None = None
        for index, match in self._lines_matching(_FENCE_LINE_RE):
            fence, rest = match.group(1), match.group(2).strip()
            if opener is None:
                opener = (index, fence)
            elif fence.startswith(opener[1]) and not rest:
                fences.append((opener[0], index))
                opener = None
        return fences

    def _fenced(self, index: int) -> bool:
        at = bisect_right(self.fences, (index, len(self.lines))) - 1
        return at >= 0 and self.fences[at][0] <= index <= self.fences[at][1]

    @cached_property
    def heading_levels(self) -> dict[int, int]:
        """Heading line -> level (1 is the highest); setext underlines map to level 0."""
        levels: dict[int, int] = {}
        atx = {index: len(match.group(1)) for index, match in self._lines_matching(_ATX_HEADING_RE)}
        for index, level in atx.items():
            # `#` lines next to one another at one level are comments of a listing (`# code
            # object from …`, `# destroy x`), not headings: a heading has text under it.
            if atx.get(index - 1) != level and atx.get(index + 1) != level:
                levels[index] = level
        for index, _match in self._lines_matching(_CAPS_HEADING_RE):
            levels.setdefault(index, 1)
        for index, match in self._lines_matching(_SETEXT_RE):
            if index and index - 1 not in levels and self.lines[index - 1].strip():
                levels[index - 1] = 1 if match.group(1).startswith(b"=") else 2
                levels[index] = 0
        inside = self.in_value_body
        return {index: level for index, level in levels.items() if not self._fenced(index) and not inside[index]}

    @cached_property
    def value_bodies(self) -> list[tuple[int, int]]:
        """(first, end) lines of each quoted value running on over lines (see `blocks`)."""
        return blocks.quoted_value_bodies(self.data, self.lines, self.line_at) if b'"' in self.data else []

    @cached_property
    def in_value_body(self) -> bytearray:
        """Per line: 1 inside a quoted value's body (its `#` lines are no headings)."""
        flags = bytearray(len(self.lines))
        for first, end in self.value_bodies:
            flags[first:end] = b"\x01" * (end - first)
        return flags

    @cached_property
    def is_documentation(self) -> bool:
        """Mostly prose: outlined paragraph by paragraph (see `blocks`)."""
        return blocks.is_documentation(self.lines)

    @cached_property
    def is_entry_listing(self) -> bool:
        """The output is a listing of entries (`name - summary` on `entry_share` of its
        lines, at most `entry_listing_bytes`): what a search by keyword printed, each entry
        what was asked for. A list of entries inside a larger report (the patches under
        `perl -V`'s label) is one section among others and is outlined as such."""
        if len(self.data) > self.limits.entry_listing_bytes:
            return False
        filled = [line for line in self.lines if line.strip()]
        entries = sum(1 for line in filled if b" - " in line and ENTRY_RE.match(line.lstrip()))
        return entries >= self.limits.entry_share * len(filled)

    @cached_property
    def signals(self) -> list[int]:
        phrases = [match.start() for match in blocks.FAILURE_PHRASE_RE.finditer(self.data)]
        advisories = [match.start() for match in blocks.ADVISORY_RE.finditer(self.data)]
        return sorted(signal_positions(self.data, self.limits.words_kept) + phrases + advisories)

    @cached_property
    def record_blocks(self) -> list[tuple[int, int]]:
        fenced = bytearray(len(self.lines))
        for first, last in self.fences:
            fenced[first : last + 1] = b"\x01" * (last - first + 1)
        return blocks.record_blocks(self.lines, fenced)

    @cached_property
    def in_record_block(self) -> bytearray:
        """Per line: 1 inside a record block, 2 inside one of more than `many_records`
        lines, a listing whose rows are data (`PKCS#11 modules` counts nothing)."""
        flags = bytearray(len(self.lines))
        many = blocks.DEFAULT_BLOCK_LIMITS.many_records
        for first, end in self.record_blocks:
            flags[first:end] = (b"\x02" if end - first > many else b"\x01") * (end - first)
        return flags

    def folds_listing_rows_only(self, spans: list[TextSpan]) -> bool:
        """Every fold is of rows of a listing (a record block of many lines), not of prose
        nor of lines folded for what they are (quoted source lines)."""
        flags = self.in_record_block
        firsts = [self.line_at(span.start) for span in spans if span.kind is SpanKind.FOLD]
        return all(flags[first] == 2 and first not in self.held_folds for first in firsts)

    def _counts_things(self, index: int, text: str) -> bool:
        """A line counting things (`32 files changed`), unless it is a row shaped like
        the others of its listing."""
        return line_shapes.is_summary(text) and self._counts_summary(index)

    def _counts_summary(self, index: int) -> bool:
        """Whether a summary-shaped line `index` counts things rather than being a row
        shaped like the others of its listing."""
        if self.in_record_block[index] != 2:
            return True
        return self._listing_shapes()[blocks.row_signature(self.lines[index])] <= self.limits.rare_shape_lines

    def _listing_shapes(self) -> Counter[bytes]:
        """How many rows of the listings (record blocks of many lines) start alike."""
        if self.listing_shapes is None:
            flags = self.in_record_block
            self.listing_shapes = Counter(
                blocks.row_signature(line) for line, flag in zip(self.lines, flags, strict=True) if flag == 2
            )
        return self.listing_shapes

    def _reports_failure(self, index: int, text: bytes, words: tuple[str, ...]) -> bool:
        """`text` (line `index` with names set aside) holds a failure or signal word, at a
        status position when the line is a record (see `blocks`), or a failure phrase."""
        if blocks.FAILURE_PHRASE_RE.search(text):
            return True
        positions = signal_positions(text, words)
        if not self.in_record_block[index]:
            return bool(positions)
        return any(blocks.at_status(text, position, word_length(text, position)) for position in positions)

    def _keep_identity_rows(self, states: bytearray) -> None:
        """The rows of a dump of named values that say what runs (`CMAKE_VERSION "3.25.1"`)
        stay however long their listing (see `blocks`)."""
        for start in blocks.identity_rows(self.data):
            index = self.line_at(start)
            if states[index] == FOLD and index not in self.held_folds:
                states[index] = KEEP

    def _keep_record_lines(self, states: bytearray) -> None:
        """Record blocks are no paragraphs: small ones stay whole, larger ones keep each
        record's first line (see `blocks`)."""
        for first, end in self.record_blocks:
            for index in blocks.kept_record_lines(self.lines, first, end):
                if states[index] == FOLD and index not in self.held_folds:
                    states[index] = KEEP

    def mark_repeats(self, states: bytearray, repeats: list[tuple[int, int]]) -> None:
        for start, end in repeats:
            first, last = self.line_at(start), self.line_at(end - 1)
            states[first : last + 1] = bytes([REPEAT]) + bytes([REPEAT_BODY]) * (last - first)

    def outline(self, repeats: list[tuple[int, int]]) -> bytearray:
        """Per line: keep, fold, long (kept, then cut), or part of a repeat."""
        states = bytearray(len(self.lines))
        decided = bytearray(len(self.lines))  # fenced code is decided as a block
        for first, last in self.fences:
            decided[first : last + 1] = b"\x01" * (last - first + 1)
            states[first] = states[last] = states[min(first + 1, last)] = KEEP
        self._decide_lines(states, decided)
        self._keep_fact_runs(states, decided)
        self._keep_signal_lines(states)
        self._keep_record_lines(states)
        self._keep_identity_rows(states)
        self._outline_reports(states)
        states = settle_blank_runs(states)
        self.fold_notes = listings.sample_long_folds(states, self.lines, self.limits)
        self._keep_report_lines(states)
        self._keep_ranking_heads(states)
        self._keep_whole_sections(states)
        self.mark_repeats(states, repeats)
        self._fold_value_bodies(states)
        long_line_bytes = self.limits.long_line_bytes
        for index, line in enumerate(self.lines):
            if len(line) > long_line_bytes and states[index] == KEEP and index not in self.whole_lines:
                states[index] = LONG
        return states

    def _fold_value_bodies(self, states: bytearray) -> None:
        """A quoted value's lines fold whole behind its named row, which stays, whatever
        the rules before kept of them (see `blocks`); a repeat reaching into one folds
        with it, as a repeat is shown by its head."""
        for first, end in self.value_bodies:
            while first > 0 and states[first] == REPEAT_BODY:
                first -= 1
            while end < len(states) and states[end] == REPEAT_BODY:
                end += 1
            states[first:end] = bytes([FOLD]) * (end - first)
            if first > 0 and states[first - 1] == FOLD:
                states[first - 1] = KEEP

    def _outline_reports(self, states: bytearray) -> None:
        """A numbered stack shows its head line and its first frames, up to the reader's
        own code, and folds the library frames after them; a legend folds its entries
        (see `reports`)."""
        kept, folded = reports.stack_lines(self.lines) if b"#0" in self.data else ([], [])
        if b"egend" in self.data:
            folded += reports.legend_lines(self.lines)
        for index in kept:
            states[index] = KEEP
        for index in folded:
            states[index] = FOLD
            self.held_folds.add(index)

    def _keep_whole_sections(self, states: bytearray) -> None:
        """A dump's small sections stay whole; folding is spent on its large ones (see
        `sections`). Documentation is outlined paragraph by paragraph instead. A table's
        rows with failures counted in their own column stay in any document."""
        for index in sections.status_rows(self.data, self.lines, self.line_at):
            if states[index] == FOLD:
                states[index] = KEEP
        if self.is_documentation:
            return
        starts = sections.section_starts(self.data, self.lines, self.line_at, self.heading_levels)
        plan = sections.plan_sections(self.lines, sections.sections(self.lines, starts))
        for first, end in plan.whole:
            for index in range(first, end):
                if states[index] == FOLD and index not in self.held_folds:
                    states[index] = KEEP
        for _first, end in plan.folded:
            if states[end - 1] == FOLD and end - 1 not in self.held_folds:
                states[end - 1] = KEEP
        for first, end in plan.series_rest:
            states[first] = KEEP
            for index in range(first + 1, end):
                if states[index] == KEEP and index not in self.fact_lines:
                    states[index] = FOLD
        if plan.series_rest:
            self._keep_signal_lines(states)
            listings.keep_rare_member_lines(states, self.lines, plan.series_rest, self.limits)

    def _keep_ranking_heads(self, states: bytearray) -> None:
        """A ranking's top rows stay whole: in a block of `ranking_min_rows` or more lines
        (no other line between) each led by a number, the numbers only falling from the
        first to the last (a profile's functions by cost, counts sorted down), the first
        `ranking_rows` rows are the hottest, what is read first; their columns are never
        cut. A block whose numbers rise anywhere, or never fall, is a listing, not a
        ranking."""
        block: list[int] = []
        falling = True
        previous, first, last = -2, 0.0, 0.0
        for index, match in [*self._lines_matching(_RANKED_ROW_RE), (-1, None)]:
            number = float(match[1].replace(b",", b"")) if match is not None else 0.0
            if index != previous + 1:
                if falling and first > last and len(block) >= self.limits.ranking_min_rows:
                    for kept in block[: self.limits.ranking_rows]:
                        states[kept] = KEEP
                        self.whole_lines.add(kept)
                block, falling, first = [], True, number
            elif number > last:
                falling = False
            block.append(index)
            previous, last = index, number

    def _keep_report_lines(self, states: bytearray) -> None:
        """What a tool's report is read for stays: HTTP status lines, lines counting
        things (`32 files changed`, `ERROR SUMMARY: 3 errors`), column headers, and the
        last line, where tools print their verdict (`tps = 1814.7`, an exit status)."""
        longest = self.limits.summary_line_max_bytes
        reports: dict[bytes, int] = {}  # line -> _REPORTED or _SUMMARY; a listing repeats lines
        for index, line in enumerate(self.lines):
            if states[index] != FOLD or len(line) > longest:
                continue
            kind = reports.get(line)
            if kind is None:
                kind = reports[line] = (
                    _REPORTED
                    if _HTTP_STATUS_RE.search(line) or _COLUMN_HEADER_RE.fullmatch(line)
                    else _SUMMARY if line_shapes.is_summary(visible(line)) else 0
                )
            if kind == _REPORTED or (kind == _SUMMARY and self._counts_summary(index)):
                states[index] = KEEP
        last = next((index for index in reversed(range(len(self.lines))) if self.lines[index].strip(BLANKISH)), -1)
        if last >= 0 and states[last] == FOLD and len(self.lines[last]) <= longest:
            states[last] = KEEP

    def declared_signals(self, states: bytearray) -> tuple[str, ...]:
        """The kept lines a reader must see: failures, 4xx/5xx answers, totals. The
        pipeline checks that each is visible."""
        words = self.limits.failure_words
        declared = []
        for index, line in enumerate(self.lines):
            if states[index] != KEEP or len(line) > self.limits.summary_line_max_bytes:
                continue
            text = visible(line_shapes.ANSI_RE.sub(b"", line)).strip(" \t\r|")
            failure = self._reports_failure(index, without_names(line), words) or (
                not self.in_record_block[index] and line_shapes.is_failure(text)
            )
            if text and (failure or self._counts_things(index, text) or _HTTP_ERROR_RE.search(line)):
                declared.append(text)
        return tuple(dict.fromkeys(declared))

    def _keep_fact_runs(self, states: bytearray, decided: bytearray) -> None:
        """Status fields stay: `Key: value` lines next to another one (a header block, the
        indented facts under a `>> Issue:` heading, the counts of a metrics block). A lone
        `Note: …` in prose is no field and is outlined like any line."""
        if b":" not in self.data and b"=" not in self.data:
            return  # a field is `Key: value` or `key = value`: none here, and `in` is quick
        facts = {
            index for index, _match in self._lines_matching(_FACT_RE) if not _SENTENCE_BREAK_RE.search(self.lines[index])
        }
        for index in facts:
            # A link (`More Info: https://…`) says where to read more, not how things stand.
            if not decided[index] and (index - 1 in facts or index + 1 in facts) and b"://" not in self.lines[index]:
                states[index] = KEEP
                self.fact_lines.add(index)

    def _keep_signal_lines(self, states: bytearray) -> None:
        shown: set[bytes] = set()
        words = self.limits.words_kept
        for index in sorted({self.line_at(position) for position in self.signals}):
            content = self.lines[index].strip(BLANKISH)
            advisory = blocks.ADVISORY_RE.search(content) is not None
            if not advisory and not self._reports_failure(index, without_names(content), words):
                continue  # the word is part of a path (`checkers/deprecated.py`) or a name: no warning
            if is_excerpt(content):
                continue  # a quoted source line (`2227\t    fail = True`) is code, not an event
            if states[index] == FOLD and content not in shown:  # one copy of a repeated line
                states[index] = KEEP
                shown.add(content)

    def _decide_lines(self, states: bytearray, decided: bytearray) -> None:
        """Run the outline rules; blank lines are marked and settled afterwards."""
        outliner = Outliner(self.heading_levels, self.limits.list_items_kept)
        outliner.base = 0 if _STARTS_AT_MARGIN_RE.search(self.data) else _base_indent(self.lines)
        outliner.entries_are_items = self.is_entry_listing
        for index, line in enumerate(self.lines):
            content = line.strip(BLANKISH)
            if not content:
                states[index], outliner.gap = BLANK, True
            elif decided[index]:
                outliner.reset()
            else:
                states[index] = outliner.keep(index, line, content)
        self.held_folds = outliner.held

    def spans(self, states: bytearray) -> list[TextSpan]:
        """The document cut into kept, folded and repeated byte ranges, in order."""
        spans: list[TextSpan] = []
        starts, data = self.starts, self.data
        for run in RUN_RE.finditer(states):
            start, end = starts[run.start()], starts[run.end()]
            state = states[run.start()]
            if state == LONG:
                spans += long_line(data, start, end, self.limits, self.signals)
            elif end > start:
                kind = (
                    SpanKind.FOLD if state == FOLD else SpanKind.KEEP if state == KEEP else SpanKind.REPEAT
                )
                note = self.fold_notes.get(run.start(), "") if kind is SpanKind.FOLD else ""
                spans.append(TextSpan(kind, start, end, note))
        return spans

    def sections(self) -> list[tuple[int, int]]:
        """Byte ranges of the top-level sections: a preamble, then one per top heading."""
        levels = {index: level for index, level in self.heading_levels.items() if level}
        if not levels:
            return [(0, len(self.data))]
        counts = Counter(levels.values())
        top = min((level for level, seen in counts.items() if seen >= 2), default=min(counts))
        cuts = sorted({0} | {self.starts[index] for index, level in levels.items() if level <= top})
        ends = [*cuts[1:], len(self.data)]
        return [(start, end) for start, end in zip(cuts, ends, strict=True) if end > start]


def _base_indent(lines: list[bytes]) -> int:
    indents = [len(line) - len(line.lstrip(b" \t|")) for line in lines if line.strip(BLANKISH)]
    return min(indents, default=0)


def repeated_paragraphs(data: bytes, limits: TextConfig) -> list[tuple[int, int]]:
    """Byte ranges of long paragraphs that already occurred earlier in the document."""
    seen: set[bytes] = set()
    repeats = []
    for match in _PARAGRAPH_RE.finditer(data):
        start, end = match.span()
        if end - start < limits.repeat_min_bytes:
            continue
        key = match.group().rstrip()
        if key in seen:
            repeats.append((start, end))
        seen.add(key)
    return repeats


