"""Plain text and rendered documentation: keep the outline, fold the bodies behind refs.

A document of 2 KB and more that is mostly rows printed one field a line (`key = value`
records between blank lines or under numbered rules) is folded by `lines/fields.py`; one
whose lines are records rather than prose (a key = value dump, a sorted numeric listing, a table with a header row, templated diagnostics) is
handed to `text_records.py`, and one whose rows are long-listing rows led by an inode and
a block count (`find -ls`, `ls -lis`) to `long_listing.py`; what follows is about prose.

What stays visible, and why:

- Every document: trailing whitespace is stripped, runs of blank lines collapse to one,
  lines holding only a pydoc `|` gutter are dropped, and ANSI colour codes and man-page
  overstrike (`X\\bX`) are removed. The exact original of any region changed this way is
  behind a ref: its section's ref when it has one (COARSE), else one ref holding the
  whole original document, named on the last line.
- Paragraphs of `repeat_min_bytes` or more that occur again later are shown once; each
  later copy becomes one line quoting its start, with a ref to its exact bytes.
- Documents of `small_doc_bytes` and more become an outline. Kept: headings (Markdown
  `#`, setext underlines, capitalised man/pydoc headings); the first line of every
  paragraph at the document's base indentation; the first line of every indented block
  (a docstring's summary under its signature, an example's first line) unless the same
  summary was already shown; lines that start an item (bullets, options, `name(…)`
  signatures, short `Label:` lines); the opening, first and closing lines of fenced code;
  and the first copy of any line holding a signal word (`signal_words`: warning,
  deprecated, must, never, do not, unsafe, breaking…) or a failure word (`failure_words`:
  error, fail…, invalid, killed, SIGSEGV…) outside a path, a code span or a quoted source
  line (`checkers/deprecated.py` warns of nothing), or a security advisory's identifier
  (`CVE-2023-47038`, `GHSA-…`) even in a name (`fixes/CVE-2023-47038`), because those are
  the lines a reader must not miss. Status fields stay too: a `Key: value` or `key = value` line next to
  another one (a `pip show` header, the `Severity:` and `Location:` lines indented under a
  finding's heading, the counts of a metrics block), unless it holds a link or two
  sentences; the top `ranking_rows` rows of a ranking (a run of rows led by falling
  numbers: a profile's functions by cost), whole however long; and what a tool's report
  is read for: HTTP status lines, lines counting
  things, column headers, the last line. Folded: paragraph continuation lines, later
  paragraphs of nested prose (docstring bodies), the rest of code examples, quoted source
  lines led by their line number (`54\timport x`), and pydoc's listings of inherited
  members. A folded listing (`sample_run_lines` lines or more at one indentation, no blank
  line) keeps its first and last `sample_lines` lines and its lines of a rare shape, so
  that no block hides behind the line before it; its note says the rows of a form few
  of its rows have (`lines/forms.py`: `# extension module … loaded from …` among `# code
  object from …` rows), a bounded number, one line a form; a listing of `name  value`
  rows whose values are mostly a few states keeps the rows of a rare value and counts
  the others per value, naming the rows of its other values, `value_rows_named` at most
  (see `blocks`); one of whose rows a good share are led by one word naming a thing
  each (`import 'json'`, `Unpacking libfoo`) lists those things in order. In an output
  that is a listing of entries (`name - summary`, a search by keyword) each entry is an
  item, never a paragraph's continuation; `#` lines
  next to one another are a listing's comments, not headings. In a large series of alike
  sections, a line led by a word that few members have (`no symbols`) stays: it marks the
  members that differ. A kept line longer than `long_line_bytes` shows its first sentence
  and any sentence holding a signal word; a line cut inside brackets (a statement's
  argument list) keeps them to their close when it is near. A long line listing words
  after its label (`Flags: fpu vme …`, no item ending in `.,;!?`) stays whole in a
  document of at most `word_list_doc_bytes`: its items are what a reader searches, and
  no sentence sums them.
- Folded text is marked ` …`, followed by the number of whole lines it hides (` … +5`),
  or inside a line by the number of words (` … +79 words`).
  COARSE: one ref per top-level section holds the section's complete original bytes,
  named after its heading. FINE: one ref per folded run, right after its marker; runs
  shorter than `fine_min_fold_bytes` stay visible instead. The failure, summary and
  4xx/5xx lines kept are declared as signals.
- A numbered stack (`#0 0x… in f file:line`, `#1 …`) shows the line above it and its
  frames up to the reader's own code; the library frames after them fold, as do a
  legend's entries under its title (`reports`).

Speed: headings, fences and signal words are found by whole-document passes (regexes led
by a literal newline, `bytes.find`), the per-line loop does a few comparisons, and runs of
equal per-line states are cut with one regex over a bytearray. This module decides what
each line becomes; `text_render.py` turns the resulting byte spans into text and refs.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from functools import cached_property
from itertools import accumulate

from tokenlab.mapped import as_bytes
from tokenlab.optimizers import Granularity, OptimizerConfig, OptimizeResult, visible
from tokenlab.optimizers.file_list.long_listing import looks_like_counted_long_listing, optimize_long
from tokenlab.optimizers.lines import forms
from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.optimizers.lines.fields import fold_fields
from tokenlab.optimizers.lines.members import fold_members
from tokenlab.optimizers.lines.records import TEXT_LIMITS, fold_records
from tokenlab.optimizers.text import blocks, reports, sections
from tokenlab.optimizers.text.json_lines import fold_json_lines, looks_like_json_lines
from tokenlab.optimizers.text.records import optimize_records, template
from tokenlab.optimizers.text.sizes import largest_folded
from tokenlab.optimizers.text.render import (
    Renderer,
    SpanKind,
    TextSpan,
    unfold_slight,
    unfold_small,
    unfold_unprofitable,
)


@dataclass(frozen=True)
class TextConfig:
    small_doc_bytes: int = 2048  # smaller documents only get whitespace and repeat folding
    long_line_bytes: int = 200  # a kept line longer than this shows its first sentence
    cut_bytes: int = 160  # where a long line with no early sentence end is cut (at a space)
    word_list_doc_bytes: int = 4096  # a labelled list of words stays whole in a document this small
    repeat_min_bytes: int = 160  # repeated paragraphs at least this long are folded
    coarse_min_fold_bytes: int = 24  # smaller folds are not worth a " …"
    fine_min_fold_bytes: int = 120  # smaller folds are not worth a marker
    signal_line_max_bytes: int = 2000  # longer lines are cut even if they hold a signal
    list_items_kept: int = 8  # items shown per list in a large document; the rest fold
    sample_run_lines: int = 40  # a folded run this long shows its first and last lines...
    sample_lines: int = 2  # ...this many of each, so no large block hides behind one line
    listing_indent_share: float = 0.95  # a run with this share of its lines at one indentation is a listing
    entry_share: float = 0.9  # a document with this share of `name - summary` lines is a listing of entries...
    entry_listing_bytes: int = 32768  # ...shown whole up to this size (about 8k tokens)
    # Case-insensitive whole words; a trailing "*" also matches longer words (warn* → warning).
    signal_words: tuple[str, ...] = (
        "warn*", "deprecat*", "must", "mustn't", "never", "do not", "does not",
        "don't", "unsafe", "insecure", "vulnerab*", "danger*", "caution*", "breaking",
        "not supported", "removed in",
    )  # fmt: skip
    # What tools print when something went wrong: kept like the words above, and the kept
    # lines holding one are declared as signals, which the pipeline checks are shown.
    failure_words: tuple[str, ...] = (
        "error*", "fatal*", "fail*", "invalid", "lost", "killed", "abort*", "panic*", "denied",
        "refused", "timed out", "segmentation fault", "core dumped", "exited with", "exit status",
        "exit code", "sigsegv", "sigabrt", "sigbus", "sigfpe", "sigill", "sigkill", "sigterm",
        "uninitialised", "uninitialized",
    )  # fmt: skip
    summary_line_max_bytes: int = 160  # a longer line counting things is prose, not a total
    rare_shape_lines: int = 2  # a line of a sampled listing whose shape occurs this rarely stays
    value_rows_named: int = 250  # a listing's values but the usual one name this many rows at most, fewest first
    lead_names_listed: int = 60  # names a sampled listing's rows give after their common first word
    slight_share: float = 0.1  # folds of listing rows hiding less than this share of a document are shown
    ranking_rows: int = 10  # a ranking's top rows kept whole (what a profile's reader reads first)...
    ranking_min_rows: int = 5  # ...in a run of at least this many rows led by falling numbers

    @property
    def words_kept(self) -> tuple[str, ...]:
        return self.signal_words + self.failure_words


DEFAULT_LIMITS = TextConfig()

# Heading, fence and paragraph patterns start with a literal newline and run over the
# input with one newline prepended: a literal-led search is several times faster than `^`.
_ATX_HEADING_RE = re.compile(rb"\n {0,3}(#{1,6})[ \t]+\S")
_CAPS_HEADING_RE = re.compile(rb"\n[A-Z][A-Z0-9 _&/()-]{1,60}\r?(?=\n|\Z)")
_SETEXT_RE = re.compile(rb"\n(=+|-+)[ \t]*\r?(?=\n|\Z)")
_FENCE_LINE_RE = re.compile(rb"\n {0,3}(`{3,}|~{3,})([^\n]*)")
_PARAGRAPH_RE = re.compile(rb"(?:^[ \t\r\f\v]*[^\s][^\n]*(?:\n|\Z))+", re.MULTILINE)
# Lines that start an item rather than continue prose: bullets, options, call signatures,
# a lone term (`__dict__`), a short label ending in a colon (`Example:`).
_ITEM_RE = re.compile(
    rb"(?:[-*+]\s|\xe2\x80\xa2\s|\d{1,3}[.)]\s|-{1,2}[\w?]|(?:async\s+|class\s+|def\s+)?[\w.]+\(|"
    rb"[\w.@$<>\[\]-]+:?\s*$|\S.{0,60}:\s*$)"
)
# A status field: `Key: value` (`Version: 4.1`, `\t\tHigh: 1`, `>> Issue: [B403] …`; an
# empty value keeps its space: `Required-by: `) or `key = value` whose value is no call
# (`res = await f(x)` is code); a key of a few words.
_FACT_RE = re.compile(
    rb"\n[ \t]*(?:[<>*+-]+[ \t]+)?%?[A-Za-z][\w.()-]*(?: [\w.#()-]+){0,4}"
    rb"(?: ?:[ \t]+(?:[^\s]|(?=\r?\n|\Z))|[ \t]*=(?![=>])[ \t]*(?:\d[^\n]*|[^\s(][^(\n]*)(?=\n|\Z))"
)
# A row led by a number, thousands grouped or not (`65,956,452 (32.47%) … file:function`).
# Zero-padded digits are an address or an id (`0000000000288c30`), no quantity.
_RANKED_ROW_RE = re.compile(rb"\n[ \t]*([1-9]\d{0,2}(?:,\d{3})+|[1-9]\d*|0)(?:\.\d+)?[ \t]+\S")
# An HTTP status line (`< HTTP/1.1 301 Moved`), or a request answered with a 4xx/5xx
# status (`"GET /x HTTP/1.1" 503 …`): what a server said, read first.
_HTTP_STATUS_RE = re.compile(rb"HTTP/\d(?:\.\d)? [1-5]\d\d\b|HTTP/\d(?:\.\d)?\" [45]\d\d\b")
_HTTP_ERROR_RE = re.compile(rb"HTTP/\d(?:\.\d)?\"? [45]\d\d\b")
# A column header: three or more words without a lower-case letter (`  PID USER  %CPU TIME+`).
_COLUMN_HEADER_RE = re.compile(rb"[ \t]*(?:[A-Z%#][^\sa-z]*[ \t]+){2,}[A-Z%#][^\sa-z]*[ \t\r]*")
# Two sentences on one line (`Status: draft. Owner: the team.`) are prose, not a field.
_SENTENCE_BREAK_RE = re.compile(rb"[.!?] +[A-Z]")
# A line of a quoted code excerpt, led by its line number: `54\timport x`, `12 | let a`.
_EXCERPT_RE = re.compile(rb"\d{1,7}(?:\t| +\| )")
_LABEL_MAX_BYTES = 60
_BULLET_RE = re.compile(rb"(?:[-*+]\s|\d{1,3}[.)]\s|\xe2\x80\xa2\s)")
_BULLET_FIRST_BYTES = frozenset(b"-*+0123456789\xe2")
# What a line is by itself, as bits (`_traits`).
_INHERITED, _EXCERPT, _BULLET, _ITEM, _TABLE_ROW, _ENTRY = 1, 2, 4, 8, 16, 32
# An entry of a listing of names with their summaries: `liberror-perl - Perl module for…`,
# `perror (3)   - print a system error message`, `urllib.error - Exception classes…`.
# The name holds a letter and the summary starts with a word: `1.2.3.4 - - [date]` is a
# request, not an entry.
_ENTRY_RE = re.compile(rb"(?=[^\s(]*[A-Za-z])[^\s(]+(?: \([\w.]{1,12}\))? +- [\w\"'`(\[]")
# A line's facts (`_Outliner._facts`): body, indentation, rule line, traits, short label;
# remembered for lines up to this long, for this many distinct lines at most.
_LineFacts = tuple[bytes, int, bool, int, bool]
_FACTS_CACHED_BYTES = 200
_FACTS_CACHED_LINES = 1 << 16
_REPORTED, _SUMMARY = 1, 2  # `_keep_report_lines`: kept as a report line, or if it counts things
# pydoc lists every member a class inherits, under "Methods inherited from X:" and the like.
_INHERITED_RE = re.compile(rb"[\w ]{0,40}\binherited from\b[^\n]*:\s*$")
_DECORATION_BYTES = b" \t\r\f\v|:+=_*~#-"
_DECORATION_FIRST_BYTES = frozenset(b"-=_*~#+:")
_BLANKISH = b" \t\r\f\v|"  # a pydoc gutter line ("     |  ") separates like a blank line
# Words inside a path (`checkers/deprecated.py`) or a code span (`` `failed` ``, a state's
# name in prose) name something: they are no failure or warning. A path word is matched
# only where a word starts, so that each word is read once (tried at every byte, a long
# word without a separator was read again from each); group 1 is a code span.
_NAME_WORD_RE = re.compile(rb"(?<!\S)[^\s/\\]*+[/\\]\S*+|(`[^`\n]*+`)")
_SPACE_RE = re.compile(rb"\s")
_STARTS_AT_MARGIN_RE = re.compile(rb"^[^\s|]", re.MULTILINE)
_SENTENCE_END_RE = re.compile(rb"[.!?][\"')\]]*\s+")
_CLAUSE_END_RE = re.compile(rb"[.,;!?][\"')\]]*\s")
# A list's label: up to three words, the last ending in a colon (`Flags:`, `Configured with:`).
_LIST_LABEL_RE = re.compile(rb"[ \t]*(?:[^\s:]+ ){0,2}[^\s:]+:\s")
_WORD_LIST_LEAST_WORDS = 12  # fewer words are a phrase, not a list
_LEAST_CUT_BYTES = 16  # a long line's tail shorter than this stays: ` … +2 words` costs as much
_WORD_BYTES = frozenset(
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
) | frozenset(range(0x80, 0x100))

# Per-line states; runs of equal states are cut with one regex over the state bytes.
_FOLD, _KEEP, _BLANK, _LONG, _REPEAT, _REPEAT_BODY = 0, 1, 2, 3, 4, 5
_RUN_RE = re.compile(rb"\x00+|\x01+|\x03|\x04\x05*")
_BLANK_RUN_STATE_RE = re.compile(rb"\x02+(\x00?)")  # no lookahead: linear on long runs


def optimize(
    raw: bytes, config: OptimizerConfig, limits: TextConfig = DEFAULT_LIMITS
) -> OptimizeResult:
    """`raw` is the input's bytes or, for a large input, a mapping of them (`mapped.py`)."""
    if looks_like_json_lines(raw):
        # Large JSON lines (a mapped input's size) are folded by shape in one bounded pass:
        # the outline below holds the lines of its input, several times over.
        by_shape = fold_json_lines(raw, config)
        if by_shape is not None:
            return by_shape
    data = as_bytes(raw)  # a mapped input of any other kind is read as bytes, as before
    if not data:
        return OptimizeResult(())
    if len(data) >= limits.small_doc_bytes:
        if looks_like_counted_long_listing(data):
            return optimize_long(data, config)
        folded = (
            fold_members(data, config.granularity)
            or fold_fields(data, config.granularity)
            or fold_records(data, config.granularity, TEXT_LIMITS)
        )
        if folded is not None:  # mostly blocks of one skeleton: a plan's resources
            return OptimizeResult(folded)
        records = optimize_records(data, config)
        if records is not None:
            return records
    doc = _Document(data, limits)
    repeats = _repeated_paragraphs(data, limits)
    if len(data) >= limits.small_doc_bytes:
        states = doc.outline(repeats)
    else:
        states = bytearray([_KEEP]) * len(doc.lines)
        doc.mark_repeats(states, repeats)
    fine = config.granularity is Granularity.FINE
    minimum = limits.fine_min_fold_bytes if fine else limits.coarse_min_fold_bytes
    # In a dump, ` … +1` hides a record too small to be worth the look-up; prose folds
    # the rest of a paragraph, however short.
    one_line_minimum = 0 if doc.is_documentation else limits.fine_min_fold_bytes
    spans = unfold_small(doc.spans(states), minimum, data, one_line_minimum)
    if doc.folds_listing_rows_only(spans):
        spans = unfold_slight(spans, len(data), limits.slight_share)
    sections = [(0, len(data))] if fine else doc.sections()
    if not fine:
        spans = unfold_unprofitable(spans, sections)
    shown = Renderer(data, fine).render(spans, sections).parts
    largest = largest_folded(doc.lines, doc.starts, spans)
    if largest:  # said once under the listing: its folds are many and short
        ends = "".join(part for part in shown[-1:] if isinstance(part, str)).endswith("\n")
        shown = (*shown, ("" if ends else "\n") + largest + "\n")
    return OptimizeResult(shown, signals=doc.declared_signals(states))


class _Document:
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
        entries = sum(1 for line in filled if b" - " in line and _ENTRY_RE.match(line.lstrip()))
        return entries >= self.limits.entry_share * len(filled)

    @cached_property
    def signals(self) -> list[int]:
        phrases = [match.start() for match in blocks.FAILURE_PHRASE_RE.finditer(self.data)]
        advisories = [match.start() for match in blocks.ADVISORY_RE.finditer(self.data)]
        return sorted(_signal_positions(self.data, self.limits.words_kept) + phrases + advisories)

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
        positions = _signal_positions(text, words)
        if not self.in_record_block[index]:
            return bool(positions)
        return any(blocks.at_status(text, position, _word_length(text, position)) for position in positions)

    def _keep_identity_rows(self, states: bytearray) -> None:
        """The rows of a dump of named values that say what runs (`CMAKE_VERSION "3.25.1"`)
        stay however long their listing (see `blocks`)."""
        for start in blocks.identity_rows(self.data):
            index = self.line_at(start)
            if states[index] == _FOLD and index not in self.held_folds:
                states[index] = _KEEP

    def _keep_record_lines(self, states: bytearray) -> None:
        """Record blocks are no paragraphs: small ones stay whole, larger ones keep each
        record's first line (see `blocks`)."""
        for first, end in self.record_blocks:
            for index in blocks.kept_record_lines(self.lines, first, end):
                if states[index] == _FOLD and index not in self.held_folds:
                    states[index] = _KEEP

    def mark_repeats(self, states: bytearray, repeats: list[tuple[int, int]]) -> None:
        for start, end in repeats:
            first, last = self.line_at(start), self.line_at(end - 1)
            states[first : last + 1] = bytes([_REPEAT]) + bytes([_REPEAT_BODY]) * (last - first)

    def outline(self, repeats: list[tuple[int, int]]) -> bytearray:
        """Per line: keep, fold, long (kept, then cut), or part of a repeat."""
        states = bytearray(len(self.lines))
        decided = bytearray(len(self.lines))  # fenced code is decided as a block
        for first, last in self.fences:
            decided[first : last + 1] = b"\x01" * (last - first + 1)
            states[first] = states[last] = states[min(first + 1, last)] = _KEEP
        self._decide_lines(states, decided)
        self._keep_fact_runs(states, decided)
        self._keep_signal_lines(states)
        self._keep_record_lines(states)
        self._keep_identity_rows(states)
        self._outline_reports(states)
        states = bytearray(_BLANK_RUN_STATE_RE.sub(_settle_blank_run, states))
        self._sample_long_folds(states)
        self._keep_report_lines(states)
        self._keep_ranking_heads(states)
        self._keep_whole_sections(states)
        self.mark_repeats(states, repeats)
        self._fold_value_bodies(states)
        long_line = self.limits.long_line_bytes
        for index, line in enumerate(self.lines):
            if len(line) > long_line and states[index] == _KEEP and index not in self.whole_lines:
                states[index] = _LONG
        return states

    def _fold_value_bodies(self, states: bytearray) -> None:
        """A quoted value's lines fold whole behind its named row, which stays, whatever
        the rules before kept of them (see `blocks`); a repeat reaching into one folds
        with it, as a repeat is shown by its head."""
        for first, end in self.value_bodies:
            while first > 0 and states[first] == _REPEAT_BODY:
                first -= 1
            while end < len(states) and states[end] == _REPEAT_BODY:
                end += 1
            states[first:end] = bytes([_FOLD]) * (end - first)
            if first > 0 and states[first - 1] == _FOLD:
                states[first - 1] = _KEEP

    def _outline_reports(self, states: bytearray) -> None:
        """A numbered stack shows its head line and its first frames, up to the reader's
        own code, and folds the library frames after them; a legend folds its entries
        (see `reports`)."""
        kept, folded = reports.stack_lines(self.lines) if b"#0" in self.data else ([], [])
        if b"egend" in self.data:
            folded += reports.legend_lines(self.lines)
        for index in kept:
            states[index] = _KEEP
        for index in folded:
            states[index] = _FOLD
            self.held_folds.add(index)

    def _keep_whole_sections(self, states: bytearray) -> None:
        """A dump's small sections stay whole; folding is spent on its large ones (see
        `sections`). Documentation is outlined paragraph by paragraph instead. A table's
        rows with failures counted in their own column stay in any document."""
        for index in sections.status_rows(self.data, self.lines, self.line_at):
            if states[index] == _FOLD:
                states[index] = _KEEP
        if self.is_documentation:
            return
        starts = sections.section_starts(self.data, self.lines, self.line_at, self.heading_levels)
        plan = sections.plan_sections(self.lines, sections.sections(self.lines, starts))
        for first, end in plan.whole:
            for index in range(first, end):
                if states[index] == _FOLD and index not in self.held_folds:
                    states[index] = _KEEP
        for _first, end in plan.folded:
            if states[end - 1] == _FOLD and end - 1 not in self.held_folds:
                states[end - 1] = _KEEP
        for first, end in plan.series_rest:
            states[first] = _KEEP
            for index in range(first + 1, end):
                if states[index] == _KEEP and index not in self.fact_lines:
                    states[index] = _FOLD
        if plan.series_rest:
            self._keep_signal_lines(states)
            self._keep_rare_member_lines(states, plan.series_rest)

    def _keep_rare_member_lines(self, states: bytearray, members: list[tuple[int, int]]) -> None:
        """A line of a series member led by a word that at most `rare_shape_lines` members
        hold (`no symbols` in two of 529 archive members) marks the members that differ:
        it outranks the lines every member has, folded under the member's name."""
        if len(members) < _SERIES_MEMBERS_READ:
            return
        leads = [{_leading_word(self.lines[index]) for index in range(first + 1, end)} for first, end in members]
        holders = Counter(lead for member in leads for lead in member)
        for first, end in members:
            for index in range(first + 1, end):
                if states[index] == _FOLD and holders[_leading_word(self.lines[index])] <= self.limits.rare_shape_lines:
                    states[index] = _KEEP


    def _sample_long_folds(self, states: bytearray) -> None:
        """A long folded listing keeps a head and a tail sample, so that it never shrinks
        to the one line before it, and its lines of a rare shape (a total under a stat, the
        one changed file among renames) or led by a word no other row has (a banner among
        `import` lines), which are unlike the sample; its note says the rows of a form few
        rows have, one line a form. A listing is a run of lines at one indentation (but for
        a few: a traceback among its rows) with no blank line; prose and docstring bodies
        have paragraphs and stay folded whole."""
        sample, shortest = self.limits.sample_lines, self.limits.sample_run_lines
        for run in re.finditer(rb"\x00{%d,}" % shortest, states):
            lines = self.lines[run.start() : run.end()]
            distinct = Counter(lines)  # a long listing repeats lines: each is read once, weighed
            indents: Counter[int] = Counter()
            for line, count in distinct.items():
                indents[len(line) - len(line.lstrip(b" \t|")) if line.strip(_BLANKISH) else -1] += count
            if -1 in indents or indents.most_common(1)[0][1] < self.limits.listing_indent_share * len(lines):
                continue
            for index in (*range(run.start(), run.start() + sample), *range(run.end() - sample, run.end())):
                states[index] = _KEEP
            summary, rare_rows, named_rows = self._run_summary(lines)
            for offset in rare_rows:
                states[run.start() + offset] = _KEEP
            shape_of = {line: template(visible(line)) for line in distinct}
            self._keep_rare(states, run.start(), lines, distinct, shape_of)
            # Rows named alike (`import x`, `# destroy y`) have a rare row among them by
            # their first word even when no two rows have one shape (a banner line).
            lead_of = {line: _leading_word(line) for line in distinct}
            self._keep_rare(states, run.start(), lines, distinct, lead_of)
            rare_forms = self._rare_forms(states, run.start(), lines, named_rows)
            self._note_run(states, run.start(), len(lines), "; ".join(part for part in (summary, rare_forms) if part))

    def _run_summary(self, lines: list[bytes]) -> tuple[str, list[int], list[int]]:
        """A listing's counts (per column value, per value of `name  value` rows, or the
        names its rows' shared first word leads), its rows that must stay (of a rare value,
        the largest) and those its counts name."""
        summary, rare_rows = blocks.column_summary(lines, self.limits.rare_shape_lines)
        named_rows: list[int] = []
        if not summary:
            summary, rare_rows, named_rows = blocks.value_summary(
                lines, self.limits.rare_shape_lines, self.limits.value_rows_named
            )
        if not summary:
            summary = blocks.lead_names(lines, self.limits.lead_names_listed)
        sizes, largest_rows = blocks.size_extremes(lines)
        return "; ".join(part for part in (summary, sizes) if part), [*rare_rows, *largest_rows], named_rows

    def _rare_forms(self, states: bytearray, start: int, lines: list[bytes], named_rows: list[int]) -> str:
        """Rows of a form few rows have (`# extension module … loaded from …` among `# code
        object from …` rows), each naming something else, said one line a form (see `forms`):
        those folded that the run's counts do not name already. A form's line costs less
        than its rows, and keeps the run's folds whole."""
        rare = forms.rare_form_rows(lines, named=frozenset(named_rows))
        described = forms.described(lines, [offset for offset in rare if states[start + offset] == _FOLD])
        return f"rows of rare forms: {'; '.join(described)}" if described else ""

    def _note_run(self, states: bytearray, start: int, rows: int, summary: str) -> None:
        """The counts are of the whole run, its rows shown around and among its folds, said
        at its first fold: so said, or a reader takes them for the fold's own or the listing's."""
        first = states.find(_FOLD, start, start + rows)
        if summary and first >= 0:
            self.fold_notes[first] = f"{rows} rows from the {first - start} above on: {summary}"

    def _keep_rare(
        self,
        states: bytearray,
        start: int,
        lines: list[bytes],
        distinct: Counter[bytes],
        shape_of: Mapping[bytes, Hashable],
    ) -> None:
        """Keep the `lines` from `start` whose shape at most `rare_shape_lines` lines have,
        when common shapes make up most lines (else every line is as rare as the others).
        Shapes are counted per distinct line, weighed by how often it occurs."""
        counts: Counter[Hashable] = Counter()
        for line, count in distinct.items():
            counts[shape_of[line]] += count
        rare = self.limits.rare_shape_lines
        if sum(count for count in counts.values() if count > rare) * 4 < len(lines) * 3:
            return
        rare_lines = {line for line in distinct if counts[shape_of[line]] <= rare}
        for offset, line in enumerate(lines) if rare_lines else ():
            if line in rare_lines:
                states[start + offset] = _KEEP

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
                        states[kept] = _KEEP
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
            if states[index] != _FOLD or len(line) > longest:
                continue
            kind = reports.get(line)
            if kind is None:
                kind = reports[line] = (
                    _REPORTED
                    if _HTTP_STATUS_RE.search(line) or _COLUMN_HEADER_RE.fullmatch(line)
                    else _SUMMARY if line_shapes.is_summary(visible(line)) else 0
                )
            if kind == _REPORTED or (kind == _SUMMARY and self._counts_summary(index)):
                states[index] = _KEEP
        last = next((index for index in reversed(range(len(self.lines))) if self.lines[index].strip(_BLANKISH)), -1)
        if last >= 0 and states[last] == _FOLD and len(self.lines[last]) <= longest:
            states[last] = _KEEP

    def declared_signals(self, states: bytearray) -> tuple[str, ...]:
        """The kept lines a reader must see: failures, 4xx/5xx answers, totals. The
        pipeline checks that each is visible."""
        words = self.limits.failure_words
        declared = []
        for index, line in enumerate(self.lines):
            if states[index] != _KEEP or len(line) > self.limits.summary_line_max_bytes:
                continue
            text = visible(line_shapes.ANSI_RE.sub(b"", line)).strip(" \t\r|")
            failure = self._reports_failure(index, _without_names(line), words) or (
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
                states[index] = _KEEP
                self.fact_lines.add(index)

    def _keep_signal_lines(self, states: bytearray) -> None:
        shown: set[bytes] = set()
        words = self.limits.words_kept
        for index in sorted({self.line_at(position) for position in self.signals}):
            content = self.lines[index].strip(_BLANKISH)
            advisory = blocks.ADVISORY_RE.search(content) is not None
            if not advisory and not self._reports_failure(index, _without_names(content), words):
                continue  # the word is part of a path (`checkers/deprecated.py`) or a name: no warning
            if _is_excerpt(content):
                continue  # a quoted source line (`2227\t    fail = True`) is code, not an event
            if states[index] == _FOLD and content not in shown:  # one copy of a repeated line
                states[index] = _KEEP
                shown.add(content)

    def _decide_lines(self, states: bytearray, decided: bytearray) -> None:
        """Run the outline rules; blank lines are marked and settled afterwards."""
        outliner = _Outliner(self.heading_levels, self.limits.list_items_kept)
        outliner.base = 0 if _STARTS_AT_MARGIN_RE.search(self.data) else _base_indent(self.lines)
        outliner.entries_are_items = self.is_entry_listing
        for index, line in enumerate(self.lines):
            content = line.strip(_BLANKISH)
            if not content:
                states[index], outliner.gap = _BLANK, True
            elif decided[index]:
                outliner.reset()
            else:
                states[index] = outliner.keep(index, line, content)
        self.held_folds = outliner.held

    def spans(self, states: bytearray) -> list[TextSpan]:
        """The document cut into kept, folded and repeated byte ranges, in order."""
        spans: list[TextSpan] = []
        starts, data = self.starts, self.data
        for run in _RUN_RE.finditer(states):
            start, end = starts[run.start()], starts[run.end()]
            state = states[run.start()]
            if state == _LONG:
                spans += _long_line(data, start, end, self.limits, self.signals)
            elif end > start:
                kind = (
                    SpanKind.FOLD if state == _FOLD else SpanKind.KEEP if state == _KEEP else SpanKind.REPEAT
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


class _Outliner:
    """The per-line outline rules (see the module docstring), with the state they carry."""

    def __init__(self, headings: dict[int, int], list_items_kept: int) -> None:
        self.headings = headings
        self.list_items_kept = list_items_kept
        self.base = 0  # the document's own indentation: its paragraphs all show a first line
        self.gap = True  # a blank line since the previous line
        self.previous_indent = -1
        self.previous_kept = True
        self.inherited_indent = -1  # inside a listing of inherited members, folded whole
        self.list_items: dict[int, int] = {}  # indent -> items seen in the current list
        self.summaries: set[bytes] = set()
        self.label_child_indent = -1  # the entries under a short `Label:` line
        self.previous_label = False
        self.rows = 0  # record rows seen in the current block
        self.held: set[int] = set()  # lines folded for what they are (inherited members, excerpts)
        self.facts_of: dict[bytes, _LineFacts] = {}  # see `_facts`
        self.entries_are_items = False  # the document is a listing of entries (see `_Document.is_entry_listing`)

    def reset(self) -> None:
        """After a block decided elsewhere (fenced code): start afresh."""
        self.gap, self.previous_indent, self.previous_kept, self.inherited_indent = (
            True,
            -1,
            True,
            -1,
        )

    def keep(self, index: int, line: bytes, content: bytes) -> bool:
        facts = self.facts_of.get(line)
        if facts is None:
            facts = self._facts(line, content)
        body, indent, decoration, traits, label = facts
        if decoration:
            self.gap, self.inherited_indent = True, -1  # a rule line separates like a blank line
            return index in self.headings
        if self.gap or indent != self.previous_indent:
            self.rows = 0
        if self.previous_label and indent > self.previous_indent:
            self.label_child_indent = indent
        elif indent < self.label_child_indent:
            self.label_child_indent = -1
        kept = self._decide(index, traits, indent, content)
        self.previous_label = label
        self.gap, self.previous_indent, self.previous_kept = False, indent, kept
        return kept

    def _facts(self, line: bytes, content: bytes) -> _LineFacts:
        """What the non-blank `line` (`content` stripped) is by itself: its body after the
        indentation, the indentation, whether it is a rule line, its `_traits`, whether it
        is a short `Label:`. Read once per distinct short line: long listings repeat lines,
        while long lines, and lines past the first `_FACTS_CACHED_LINES` distinct ones, in
        a large input of distinct lines, rarely repeat and would only fill memory."""
        body = line.lstrip(b" \t|")
        decoration = content[0] in _DECORATION_FIRST_BYTES and _is_decoration(body)
        label = content.endswith(b":") and len(content) <= _LABEL_MAX_BYTES
        facts = (body, len(line) - len(body), decoration, 0 if decoration else _traits(body), label)
        if len(line) <= _FACTS_CACHED_BYTES and len(self.facts_of) < _FACTS_CACHED_LINES:
            self.facts_of[line] = facts
        return facts

    def _decide(self, index: int, traits: int, indent: int, content: bytes) -> bool:
        if indent < self.inherited_indent:
            self.inherited_indent = -1
        if self.inherited_indent >= 0:
            self.held.add(index)
            return False
        if traits & _INHERITED:
            self.inherited_indent = indent
            return True
        if index in self.headings:
            self.list_items.clear()
            return True
        if traits & _EXCERPT:
            self.held.add(index)
            return False  # quoted source lines: the location above them says where they are
        bullet = bool(traits & _BULLET)
        if not self._count_list_item(indent, bullet):
            return False
        if self.previous_indent < 0 or indent < self.previous_indent:
            return True
        if indent > self.previous_indent:
            # The first line of a nested block: a summary, shown if its parent is. A summary
            # already shown elsewhere is boilerplate ("Initialize self.  See help(…)").
            seen = content in self.summaries
            self.summaries.add(content)
            return self.previous_kept and (not seen or bool(traits & _ITEM))
        if self.gap:
            return indent == self.base or bool(traits & _ITEM)
        # In a listing of entries (`name - summary`), each is an item, not wrapped prose.
        return bullet or bool(traits & _ENTRY and self.entries_are_items) or self._row_kept(traits, indent)

    def _row_kept(self, traits: int, indent: int) -> bool:
        """A row of a `|` table or an entry under a short `Label:` line (`Indexes:`) is a
        record of its own, not wrapped prose: a block's first `list_items_kept` stay."""
        if not traits & _TABLE_ROW and indent != self.label_child_indent:
            return False
        self.rows += 1
        return self.rows <= self.list_items_kept

    def _count_list_item(self, indent: int, bullet: bool) -> bool:
        """False for list items past `list_items_kept` in one list."""
        if not bullet:
            if self.list_items and indent <= min(self.list_items):
                self.list_items.clear()  # back at the list's margin: the list is over
            return True
        for deeper in [level for level in self.list_items if level > indent]:
            del self.list_items[deeper]
        count = self.list_items.get(indent, 0) + 1
        self.list_items[indent] = count
        return count <= self.list_items_kept


def _traits(body: bytes) -> int:
    """What `body` is by itself: bits `_INHERITED`, `_EXCERPT`, `_BULLET`, `_ITEM`,
    `_TABLE_ROW`, `_ENTRY`."""
    return (
        (_INHERITED if b"inherited from" in body and _INHERITED_RE.match(body) else 0)
        | (_EXCERPT if _is_excerpt(body) else 0)
        | (_BULLET if body[0] in _BULLET_FIRST_BYTES and _BULLET_RE.match(body) else 0)
        | (_ITEM if _ITEM_RE.match(body) else 0)
        | (_TABLE_ROW if body.count(b" | ") >= 2 else 0)
        | (_ENTRY if b" - " in body and _ENTRY_RE.match(body) else 0)
    )


def _is_decoration(body: bytes) -> bool:
    """A rule line such as `-----` or `| --- | --- |`: only rule characters, a run of three."""
    if body.translate(None, _DECORATION_BYTES):
        return False
    return any(run in body for run in (b"---", b"===", b"___", b"***", b"~~~"))


def _settle_blank_run(run: re.Match[bytes]) -> bytes:
    """Blank lines fold with the folded line after them; all others stay."""
    before_fold = run.group(1)
    blank = b"\x00" if before_fold else b"\x01"
    return blank * (len(run.group()) - len(before_fold)) + before_fold


def _base_indent(lines: list[bytes]) -> int:
    indents = [len(line) - len(line.lstrip(b" \t|")) for line in lines if line.strip(_BLANKISH)]
    return min(indents, default=0)


def _leading_word(line: bytes) -> bytes:
    """A line's first word, a word holding a digit as `#`: what a listing's rows are led by."""
    words = line.split(maxsplit=1)
    if not words:
        return b""
    return b"#" if any(byte in _DIGIT_BYTES for byte in words[0]) else words[0]


_DIGIT_BYTES = frozenset(b"0123456789")
_SERIES_MEMBERS_READ = 10  # fewer members of a series say nothing of what is rare among them


def _is_excerpt(line: bytes) -> bool:
    """A line of a quoted code excerpt, led by its line number (`54\timport x`)."""
    return line[:1].isdigit() and _EXCERPT_RE.match(line) is not None


def _without_names(line: bytes) -> bytes:
    """`line` with each path word and code span replaced by a space.

    A code span can end inside a word (`` `a b`/c ``): the rest of that word is a path
    word when it holds a separator. Whether it does is read once per word, however many
    spans end inside it.
    """
    if b"`" not in line or (b"/" not in line and b"\\" not in line):
        return _NAME_WORD_RE.sub(b" ", line)  # no span can end before a separator
    pieces: list[bytes] = []
    kept = 0  # where the bytes not yet replaced start
    read_to = 0  # the rest of the word ending here holds no separator
    position = 0
    while (match := _NAME_WORD_RE.search(line, position)) is not None:
        pieces += (line[kept : match.start()], b" ")
        position = kept = match.end()
        if match.group(1) is not None and position >= read_to:
            space = _SPACE_RE.search(line, position)
            word_end = space.start() if space else len(line)
            if line.find(b"/", position, word_end) >= 0 or line.find(b"\\", position, word_end) >= 0:
                pieces.append(b" ")
                position = kept = word_end
            read_to = word_end
    pieces.append(line[kept:])
    return b"".join(pieces)


def _signal_positions(data: bytes, words: tuple[str, ...]) -> list[int]:
    """Sorted offsets of signal words: one `bytes.find` sweep per word over lowered text."""
    lowered = data.lower()
    found = []
    for word in words:
        prefix = word.endswith("*")
        needle = word.rstrip("*").lower().encode()
        position = lowered.find(needle)
        while position >= 0:
            after = position + len(needle)
            if (position == 0 or lowered[position - 1] not in _WORD_BYTES) and (
                prefix or after >= len(lowered) or lowered[after] not in _WORD_BYTES
            ):
                found.append(position)
            position = lowered.find(needle, after)
    return sorted(found)


def _word_length(text: bytes, position: int) -> int:
    end = position
    while end < len(text) and text[end] in _WORD_BYTES:
        end += 1
    return end - position


def _has_signal(signals: list[int], start: int, end: int) -> bool:
    at = bisect_left(signals, start)
    return at < len(signals) and signals[at] < end


def _long_line(
    data: bytes, start: int, end: int, limits: TextConfig, signals: list[int]
) -> list[TextSpan]:
    """A long kept line: its first sentence and its signal sentences stay, the rest folds."""
    if end - start <= limits.signal_line_max_bytes and _has_signal(signals, start, end):
        return _sentences_with_signals(data, start, end, signals)
    if len(data) <= limits.word_list_doc_bytes and _is_word_list(data, start, end):
        return [TextSpan(SpanKind.KEEP, start, end)]
    cut = _first_cut(data, start, end, limits)
    newline = end - 1 if data[end - 1 : end] == b"\n" else end
    if cut >= newline - _LEAST_CUT_BYTES:
        return [TextSpan(SpanKind.KEEP, start, end)]
    return [
        TextSpan(SpanKind.KEEP, start, cut),
        TextSpan(SpanKind.FOLD, cut, newline),
        TextSpan(SpanKind.KEEP, newline, end),
    ]


def _is_word_list(data: bytes, start: int, end: int) -> bool:
    """A line listing words after its label (`Flags: fpu vme de …`, `Configured with:
    ../configure --prefix=/usr …`): items a reader searches for one of, which no first
    sentence sums up. Prose ends its sentences and clauses; a list's items end in none of
    `.,;!?`."""
    label = _LIST_LABEL_RE.match(data, start, end)
    return (
        label is not None
        and len(data[label.end() : end].split()) >= _WORD_LIST_LEAST_WORDS
        and not _CLAUSE_END_RE.search(data, label.end(), end)
    )


def _first_cut(data: bytes, start: int, end: int, limits: TextConfig) -> int:
    """Where the first sentence of a long line ends, or a word boundary near `cut_bytes`."""
    sentence = _SENTENCE_END_RE.search(
        data, start + 40, min(end, start + limits.long_line_bytes + 100)
    )
    if sentence:
        return sentence.end()
    space = data.rfind(b" ", start + 40, start + limits.cut_bytes)
    if space > 0:
        return _bracket_closed(data, start, space + 1, limits.long_line_bytes) or space + 1
    cut = min(start + limits.cut_bytes, end - 1)
    while cut > start and data[cut] & 0xC0 == 0x80:  # never split a UTF-8 sequence
        cut -= 1
    return cut


def _bracket_closed(data: bytes, start: int, cut: int, reach: int) -> int:
    """Where the brackets open at `cut` close, when within `reach` bytes after it: a
    statement cut inside its argument list (`CREATE TABLE t (a INT, b …`, `f(self, x, …`)
    loses what defines it, and the list is the part read."""
    depth = data.count(b"(", start, cut) - data.count(b")", start, cut)
    if depth <= 0:
        return 0
    for at in range(cut, min(len(data), cut + reach)):
        byte = data[at]
        if byte == 0x0A:
            return 0
        depth += (byte == 0x28) - (byte == 0x29)
        if depth == 0:
            return at + 1
    return 0


def _sentences_with_signals(data: bytes, start: int, end: int, signals: list[int]) -> list[TextSpan]:
    """The first sentence and every sentence holding a signal stay; the others fold."""
    content_end = end - 1 if data[end - 1 : end] == b"\n" else end
    spans: list[TextSpan] = []
    sentence_start = start
    ends = [match.end() for match in _SENTENCE_END_RE.finditer(data, start, content_end)]
    for boundary in [*ends, content_end]:
        if boundary > sentence_start:
            keep = sentence_start == start or _has_signal(signals, sentence_start, boundary)
            spans.append(TextSpan(SpanKind.KEEP if keep else SpanKind.FOLD, sentence_start, boundary))
            sentence_start = boundary
    spans.append(TextSpan(SpanKind.KEEP, content_end, end))
    return spans


def _repeated_paragraphs(data: bytes, limits: TextConfig) -> list[tuple[int, int]]:
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


