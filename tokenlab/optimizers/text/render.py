"""How the text optimizer's outline is shown: kept, folded and repeated byte ranges of
the input become visible text and omissions, section by section.

Split out of `text.py`, which decides what each line becomes. Kept text is shown with
trailing whitespace, pydoc gutter lines, extra blank lines and terminal escapes removed;
when that changes a region no section ref covers, one ref holds the whole original,
named on the last line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from tokenlab.optimizers import Omission, OptimizeResult, Part, visible
from tokenlab.patterns import compile_on_use

# The lookbehind starts a match only at the start of a run of spaces: linear, not quadratic.
# A space after a colon stays: `Required-by: ` is a field with an empty value.
_TRAILING_SPACE_RE = compile_on_use(r"(?<![ \t\r\f\v:])[ \t\r\f\v]+$", re.MULTILINE)
_GUTTER_ONLY_RE = compile_on_use(r"^[ \t]*\|\n", re.MULTILINE)
_BLANK_RUN_RE = compile_on_use(r"\n{3,}")
_ESCAPES_RE = compile_on_use(r"\x1b\[[0-9;?]*[ -/]*[@-~]|[^\n]\x08")


class SpanKind(Enum):
    KEEP = "keep"
    FOLD = "fold"
    REPEAT = "repeat"


@dataclass(frozen=True)
class TextSpan:
    kind: SpanKind
    start: int
    end: int
    note: str = ""  # what a fold of a listing says of the rows it hides (counts per value)


def merge(spans: list[TextSpan]) -> list[TextSpan]:
    """Adjacent spans of the same kind become one (repeats stay separate)."""
    merged: list[TextSpan] = []
    for span in spans:
        last = merged[-1] if merged else None
        if last and last.kind is span.kind is not SpanKind.REPEAT and last.end == span.start:
            merged[-1] = TextSpan(span.kind, last.start, span.end, last.note or span.note)
        elif span.end > span.start:
            merged.append(span)
    return merged


# What a fold costs to show: ` … +12` after a line, and COARSE's `(full section: #ref:ctx_…)`
# once per section that folds anything, in bytes of visible text.
MARKER_BYTES = 8
SECTION_REF_BYTES = 34


def unfold_small(spans: list[TextSpan], minimum: int, data: bytes = b"", one_line_minimum: int = 0) -> list[TextSpan]:
    """Folds too small to be worth their marker stay visible, as does a fold of one whole
    line shorter than `one_line_minimum` (` … +1` hides too little to be worth a look-up);
    a fold with a note stays, the note saying what other folds of its listing hide."""
    return merge(
        [
            TextSpan(SpanKind.KEEP, span.start, span.end)
            if span.kind is SpanKind.FOLD
            and not span.note
            and (span.end - span.start < minimum or _one_short_line(data, span, one_line_minimum))
            else span
            for span in merge(spans)
        ]
    )


def _one_short_line(data: bytes, span: TextSpan, minimum: int) -> bool:
    if span.end - span.start >= minimum or data[span.start - 1 : span.start] not in (b"", b"\n"):
        return False
    return data.count(b"\n", span.start, span.end) <= 1


def unfold_unprofitable(spans: list[TextSpan], sections: list[tuple[int, int]]) -> list[TextSpan]:
    """COARSE: a section whose folds hide no more than their markers and its ref cost is
    shown whole."""
    kept = list(spans)
    for start, end in sections:
        inside = [at for at, span in enumerate(kept) if span.kind is SpanKind.FOLD and start <= span.start < end]
        hidden = sum(kept[at].end - kept[at].start for at in inside)
        if inside and hidden <= SECTION_REF_BYTES + MARKER_BYTES * len(inside):
            for at in inside:
                kept[at] = TextSpan(SpanKind.KEEP, kept[at].start, kept[at].end)
    return merge(kept)


def unfold_slight(spans: list[TextSpan], size: int, share: float) -> list[TextSpan]:
    """Folds that hide less than `share` of the document are not worth a look-up each:
    a listing whose rows were nearly all kept (every row a different key) is shown whole,
    rather than with a few rows hidden among the others."""
    hidden = sum(span.end - span.start for span in spans if span.kind is SpanKind.FOLD)
    if not hidden or hidden >= share * size:
        return spans
    return merge([TextSpan(SpanKind.KEEP, s.start, s.end) if s.kind is SpanKind.FOLD else s for s in spans])


class Renderer:
    """Turns spans into visible text and omissions, section by section."""

    def __init__(self, data: bytes, fine: bool) -> None:
        self.data = data
        self.fine = fine
        self.parts: list[Part] = []
        self.uncovered_change = False  # normalized text that no section ref covers
        self.inline_fold = False  # the last thing shown was a fold inside a line

    def render(self, spans: list[TextSpan], sections: list[tuple[int, int]]) -> OptimizeResult:
        position = 0
        for section_start, section_end in sections:
            inside = []
            while position < len(spans) and spans[position].start < section_end:
                span = spans[position]
                if span.end <= section_end:
                    inside.append(span)
                    position += 1
                else:  # only kept text runs across a heading: split it at the section end
                    inside.append(TextSpan(span.kind, span.start, section_end))
                    spans[position] = TextSpan(span.kind, section_end, span.end)
            self._section(inside, section_start, section_end)
        if self.uncovered_change:
            self._ensure_newline()
            reason = "whole original document (whitespace normalized in the view)"
            self.parts += [
                "[whitespace normalized; exact original: ",
                Omission(self.data, reason),
                "]\n",
            ]
        return OptimizeResult(tuple(self.parts))

    def _section(self, spans: list[TextSpan], start: int, end: int) -> None:
        covered = not self.fine and any(span.kind is SpanKind.FOLD for span in spans)
        if covered:
            spans = self._with_section_ref(spans, start, end)
        for span in spans:
            if span.kind is SpanKind.KEEP:
                self._keep(span, covered)
            elif span.kind is SpanKind.REPEAT:
                self._repeat(span)
            else:
                self._fold(span)

    def _with_section_ref(self, spans: list[TextSpan], start: int, end: int) -> list[TextSpan]:
        """COARSE: name the section's full text right after its first line (its heading)."""
        lines = self.data.count(b"\n", start, end) + (self.data[end - 1 : end] != b"\n")
        ref = Omission(self.data[start:end], f"full text of a section, {lines} lines")
        first = spans[0]
        line_end = self.data.find(b"\n", first.start, first.end)
        if first.kind is not SpanKind.KEEP or line_end < 0:
            self.parts += ["(full section: ", ref, ")\n"]
            return spans
        self._keep(TextSpan(SpanKind.KEEP, first.start, line_end), covered=True)
        self.parts += [" (full section: ", ref, ")"]
        return [TextSpan(SpanKind.KEEP, line_end, first.end), *spans[1:]]

    def _keep(self, span: TextSpan, covered: bool) -> None:
        raw = visible(self.data[span.start : span.end])
        text = raw
        if "\x1b" in text or "\x08" in text:
            text = _ESCAPES_RE.sub("", text)
        text = _TRAILING_SPACE_RE.sub("", text)
        if "|" in text:
            text = _GUTTER_ONLY_RE.sub("", text)
        if "\n\n\n" in text:
            text = _BLANK_RUN_RE.sub("\n\n", text)
        text = text[self._excess_blank_lines(text) :]
        if text != raw and not covered:
            self.uncovered_change = True
        if self.inline_fold and text[:1] not in ("", " ", "\n"):
            text = " " + text  # "… Next sentence", as the fold ate the space
        self.inline_fold = False
        self.parts.append(text)

    def _excess_blank_lines(self, text: str) -> int:
        """Leading newlines that would make more than one blank line after the last part."""
        leading = len(text) - len(text.lstrip("\n"))
        last = self.parts[-1] if self.parts else ""
        if not leading or not isinstance(last, str):
            return 0
        trailing = len(last) - len(last.rstrip("\n"))
        return max(0, leading + trailing - 2)

    def _fold(self, span: TextSpan) -> None:
        newline = self._pop_newline()
        lines = self.data.count(b"\n", span.start, span.end)
        if span.end == len(self.data) and not self.data.endswith(b"\n"):
            lines += 1  # the last line has no newline of its own
        # A fold of whole lines says how many it hides (` … +5`): a reader can tell a skipped
        # sentence from a skipped listing, and ask for it. Briefly: a finding's report can
        # hold a hundred such folds. A fold inside a line says how many words it hides
        # (` … +118 words`): a cut list of flags or options reads as whole otherwise.
        if self.data[span.start - 1 : span.start] in (b"", b"\n"):
            count = f" +{lines}" if lines else ""
            named = lines >= _NAMED_FOLD_LINES and not span.note  # a note says what the rows are
            if named and (start := shared_start(self.data, span.start, span.end)):
                count += f' "{start}…"'
        else:
            words = len(self.data[span.start : span.end].split())
            count = f" +{words:,} word{'s' if words != 1 else ''}"
        self.parts.append((" …" if self.parts else "…") + count + (f" {{{span.note}}}" if span.note else ""))
        if self.fine:
            reason = f"folded text, {lines} lines" if lines > 1 else "folded text"
            self.parts += [" ", Omission(self.data[span.start : span.end], reason)]
        if newline:
            self.parts.append("\n")
        self.inline_fold = not newline

    def _repeat(self, span: TextSpan) -> None:
        chunk = self.data[span.start : span.end]
        quote = visible(chunk.strip().split(b"\n", 1)[0])[:40].strip()
        self._ensure_newline()
        text = f'[repeat of an earlier paragraph: "{quote}…"] '
        self.parts += [
            text,
            Omission(chunk, "repeated paragraph, same text as an earlier one"),
            "\n",
        ]

    def _pop_newline(self) -> bool:
        last = self.parts[-1] if self.parts else None
        if isinstance(last, str) and last.endswith("\n"):
            self.parts[-1] = last[:-1]
            return True
        return False

    def _ensure_newline(self) -> None:
        last = self.parts[-1] if self.parts else None
        if isinstance(last, str) and last and not last.endswith("\n"):
            self.parts.append("\n")


# A fold of this many lines or more names the start its lines share: a smaller one is
# read as a few more of its listing, and a listing can hold a hundred of them.
_NAMED_FOLD_LINES = 10
# A start shared by every folded line is named when it is at least this long (a word and
# its punctuation), up to the longest: `INSERT INTO artists VALUES(`, `DEBPKG:`.
_SHARED_START_BYTES = (4, 48)
_WORD_BYTES = compile_on_use(rb"[\w]")


def shared_start(data: bytes, start: int, end: int) -> str:
    """The text every line of `data[start:end]` begins with after its indentation, cut
    after its last whole word: a fold of a hundred `INSERT INTO artists` rows says what
    it hides, not only how many lines. Empty when the lines share less."""
    least, most = _SHARED_START_BYTES
    shared: bytes | None = None
    at = start
    while at < end:
        stop = data.find(b"\n", at, end)
        stop = end if stop < 0 else stop
        line = data[at : min(stop, at + 256)].lstrip(b" \t")
        if shared is None:
            shared = line[:most]
        elif not line.startswith(shared):
            size = 0
            while size < len(shared) and size < len(line) and shared[size] == line[size]:
                size += 1
            shared = shared[:size]
        if len(shared) < least:
            return ""
        at = stop + 1
    if shared is None:
        return ""
    # Cut inside a word: back to its start (`DEBPKG:debian/c` says `DEBPKG:debian/`).
    while shared and _WORD_BYTES.match(shared[-1:]):
        shared = shared[:-1]
    text = visible(shared).strip()
    return text if len(text) >= least and any(char.isalpha() for char in text) else ""

