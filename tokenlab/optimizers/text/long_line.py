"""A long kept line cut after its first sentence, its signal sentences kept.

A line of a list of words after its label stays whole in a small document; a line cut
inside brackets keeps them to their close when it is near (see `optimizer.py`).
"""

from __future__ import annotations


from tokenlab.optimizers.text.config import TextConfig
from tokenlab.optimizers.text.render import SpanKind, TextSpan
from tokenlab.optimizers.text.signal_words import has_signal
from tokenlab.patterns import compile_on_use

_SENTENCE_END_RE = compile_on_use(rb"[.!?][\"')\]]*\s+")
_CLAUSE_END_RE = compile_on_use(rb"[.,;!?][\"')\]]*\s")
# A list's label: up to three words, the last ending in a colon (`Flags:`, `Configured with:`).
_LIST_LABEL_RE = compile_on_use(rb"[ \t]*(?:[^\s:]+ ){0,2}[^\s:]+:\s")
_WORD_LIST_LEAST_WORDS = 12  # fewer words are a phrase, not a list
_LEAST_CUT_BYTES = 16  # a long line's tail shorter than this stays: ` … +2 words` costs as much


def long_line(
    data: bytes, start: int, end: int, limits: TextConfig, signals: list[int]
) -> list[TextSpan]:
    """A long kept line: its first sentence and its signal sentences stay, the rest folds."""
    if end - start <= limits.signal_line_max_bytes and has_signal(signals, start, end):
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
            keep = sentence_start == start or has_signal(signals, sentence_start, boundary)
            spans.append(TextSpan(SpanKind.KEEP if keep else SpanKind.FOLD, sentence_start, boundary))
            sentence_start = boundary
    spans.append(TextSpan(SpanKind.KEEP, content_end, end))
    return spans
