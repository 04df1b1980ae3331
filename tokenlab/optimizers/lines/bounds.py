"""Where the multi-line records of a tool's output start and end.

A record is a run of lines bounded by separator lines: blank lines and document
separators (`---`, `...`), or, where a tool rules its records off, rule lines (a run of
one character: `------…`, `=====…`), inside which blank lines belong to the record (a
report's stack, a blank line, the conflicting stack). Some tools put a prefix on every
line (`==1234== `, `[pid 7] `, a timestamp): a line holding only that prefix is blank, and
the prefix is read through when lines are compared, so that a record's text starts after
it. The prefix must hold a digit (a process id, a time): a bracketed word without one
(`[ERROR] `) is a field of the line, not a prefix.

A tool may draw a box around each record instead, with no blank line between boxes: an
opening corner line (`╷`, `┌──`, `╭──`), a `│` gutter on each line inside, a closing
corner line (`╵`, `└──`, `╰──`). The corner lines separate records like blank lines, and
inside a box the gutter is read through like a prefix (a line holding only the gutter is
a blank line inside the record, which does not end it). Colour codes around the frame
are read through too.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

from tokenlab.patterns import compile_on_use

# A line's prefix: `==1234==`/`--1234--`/`**1234**`, a bracketed field, a date-time or a
# time, then a space or the line's end. Fixed runs only, so one match is linear.
_PREFIX_RE = compile_on_use(
    rb"(?:(==|--|\*\*)\d+\1"
    rb"|\[[^\]\n]{1,64}\]"
    rb"|\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"
    rb"|\d\d:\d\d:\d\d(?:[.,]\d+)?)"
    rb"(?: |(?=\r?\n|$))"
)
_DIGIT_RE = compile_on_use(rb"\d")
# Lines with the prefix, of all lines, for the input to be read through it: a program's
# own output may interleave with the tool's unprefixed.
_PREFIXED_SHARE = 0.75
# Lines between records: blank, or a document separator (`---`, `...`).
_BETWEEN_RE = compile_on_use(rb"[ \t\r]*(?:---|\.\.\.)?[ \t\r]*")
# A rule line: one of these characters, from end to end of a line this long or longer,
# with a title inside or not (`--------`, `---Thread-Announcement------`).
_RULE_BYTES = b"-=_*~#"
_RULE_LENGTH = 8
_TEXT, _BLANK, _RULE = 0, 1, 2
# A box's frame, escapes around it allowed: a corner line (a corner alone, or with a
# horizontal rule after it), and the gutter that leads each line inside the box.
_ESCAPE = rb"(?:\x1b\[[0-?]*[ -/]*[@-~])*"
_HORIZONTAL = rb"(?:\xe2\x94\x80)*"  # `─` after a corner
_BOX_OPEN_RE = compile_on_use(
    _ESCAPE + rb"[ \t]*(?:\xe2\x95\xb7|\xe2\x94\x8c|\xe2\x95\xad)" + _HORIZONTAL + _ESCAPE + rb"[ \t\r]*"
)
_BOX_CLOSE_RE = compile_on_use(
    _ESCAPE + rb"[ \t]*(?:\xe2\x95\xb5|\xe2\x94\x94|\xe2\x95\xb0)" + _HORIZONTAL + _ESCAPE + rb"[ \t\r]*"
)
_BOX_GUTTER_RE = compile_on_use(_ESCAPE + rb"[ \t]*\xe2\x94\x82" + _ESCAPE + rb"(?: " + _ESCAPE + rb")?")
_BOX_CORNERS = (b"\xe2\x95\xb7", b"\xe2\x94\x8c", b"\xe2\x95\xad")


@dataclass(frozen=True)
class Lines:
    """The input's lines: where each starts, where its text starts (after the prefix),
    where it ends (after its newline), and whether it is text, blank or a rule."""

    starts: list[int]
    texts: list[int]
    ends: list[int]
    kinds: bytes

    def blank_blocks(self) -> list[tuple[int, int]]:
        """Runs of lines [first, last) between blank lines and document separators (a rule
        line is part of the block it is in)."""
        blocks: list[tuple[int, int]] = []
        first = None
        for at, kind in enumerate(self.kinds):
            if kind == _BLANK and first is not None:
                blocks.append((first, at))
                first = None
            elif kind != _BLANK and first is None:
                first = at
        if first is not None:
            blocks.append((first, len(self.kinds)))
        return blocks

    def paragraphs(self, first: int, last: int) -> list[tuple[int, int]]:
        """The runs of lines [low, high) of block [first, last) between its blank lines."""
        found: list[tuple[int, int]] = []
        low = first
        for at in range(first, last + 1):
            if at == last or self.kinds[at] == _BLANK:
                if at > low:
                    found.append((low, at))
                low = at + 1
        return found

    def ruled_blocks(self) -> list[tuple[int, int]]:
        """Runs of lines [first, last) between rule lines, blank lines at their edges left
        out and blank lines inside kept; none when the input holds fewer than two rules."""
        if self.kinds.count(_RULE) < 2:
            return []
        blocks: list[tuple[int, int]] = []
        first = last = None
        for at, kind in enumerate(self.kinds):
            if kind == _RULE:
                if first is not None and last is not None:
                    blocks.append((first, last + 1))
                first = last = None
            elif kind == _TEXT:
                first = at if first is None else first
                last = at
        if first is not None and last is not None:
            blocks.append((first, last + 1))
        return blocks

    def headline_blocks(self, data: bytes, shape: Callable[[int], Hashable], least: int) -> list[tuple[int, int]]:
        """The input cut at a repeated headline: a line with lines indented under it whose
        `shape` (of the line's number) is seen at one indentation `least` times or more,
        the shape whose records span most lines (the one that starts first, of shapes
        that alternate: `Considering target` before `Reaping child`). Each record runs from its
        headline to the next (the last to the end of what is indented under it); the
        lines before the first and after the last are blocks of their own. None (empty)
        when no headline repeats."""
        ends = self._node_ends(data)
        by_shape: dict[tuple[int, Hashable], list[int]] = {}
        for at, end in enumerate(ends):
            if end > at + 1:
                by_shape.setdefault((self._indent(data, at), shape(at)), []).append(at)
        heads = max(
            (found for found in by_shape.values() if len(found) >= least),
            key=lambda found: ends[found[-1]] - found[0],
            default=[],
        )
        if not heads:
            return []
        cuts = [0, *heads, ends[heads[-1]], len(self.kinds)]
        blocks = [self._trimmed(first, last) for first, last in zip(cuts, cuts[1:], strict=False)]
        return [block for block in blocks if block[0] < block[1]]

    def _trimmed(self, first: int, last: int) -> tuple[int, int]:
        """Lines [first, last) without the blank lines at their edges."""
        while first < last and self.kinds[first] == _BLANK:
            first += 1
        while last > first and self.kinds[last - 1] == _BLANK:
            last -= 1
        return first, last

    def _indent(self, data: bytes, at: int) -> int:
        start, end = self.texts[at], self.ends[at]
        text = data[start:end]
        return len(text) - len(text.lstrip(b" \t"))

    def _node_ends(self, data: bytes) -> list[int]:
        """For each line, the line after the last one indented under it (itself + 1 when
        none is): a stack of open lines, each closed by the next line indented as far or
        less; blank lines close nothing."""
        ends = [at + 1 for at in range(len(self.kinds))]
        open_lines: list[tuple[int, int]] = []  # (indent, line)
        last_text = -1
        for at, kind in enumerate(self.kinds):
            if kind == _BLANK:
                continue
            indent = self._indent(data, at)
            while open_lines and open_lines[-1][0] >= indent:
                ends[open_lines.pop()[1]] = last_text + 1
            open_lines.append((indent, at))
            last_text = at
        for _, line in open_lines:
            ends[line] = last_text + 1
        return ends


# A line between records after the first line (the last line separates nothing).
_INNER_SEPARATOR_RE = compile_on_use(rb"\n[ \t\r]*+(?:---|\.\.\.)?[ \t\r]*+\n")


# A line indented under another: where a headline may head a record.
_INDENTED_RE = compile_on_use(rb"\n[ \t]++[^ \t\r\n]")


def may_hold_records(data: bytes, by_headline: bool = False) -> bool:
    """Whether the input may hold several records: a separator line after its first line,
    with `by_headline` an indented line (under a headline), a box's corner, or a prefix on its first line
    (through which a blank line is not empty). Asked once of the whole input before it is
    split into lines."""
    if _INNER_SEPARATOR_RE.search(data) is not None:
        return True
    if by_headline and _INDENTED_RE.search(data) is not None:
        return True
    if any(corner in data for corner in _BOX_CORNERS):
        return True  # boxes, with no blank line between them
    first = _PREFIX_RE.match(data)
    return first is not None and _DIGIT_RE.search(first[0]) is not None


def split_lines(data: bytes, newlines: list[int]) -> Lines:
    """`data`'s lines (`newlines`: the offsets of its newlines), read through the prefix
    its first line shows when most lines show one."""
    starts = [0, *(at + 1 for at in newlines)]
    ends = starts[1:] + [len(data)]
    if ends[-1] == starts[-1]:
        starts, ends = starts[:-1], ends[:-1]
    texts = _text_starts(data, starts, ends)
    kinds = bytearray(len(starts))
    for at, (start, end) in enumerate(zip(texts, ends, strict=True)):
        stop = end - (data[end - 1 : end] == b"\n")
        if _BETWEEN_RE.fullmatch(data, start, stop):
            kinds[at] = _BLANK
        elif _is_rule(data[start:stop].strip()):
            kinds[at] = _RULE
    if any(corner in data for corner in _BOX_CORNERS):
        texts = list(texts)  # `_text_starts` may hand back `starts` itself
        _read_through_boxes(data, texts, ends, kinds)
    return Lines(starts, texts, ends, bytes(kinds))


def opens_box(data: bytes, start: int, end: int) -> bool:
    """Whether the line `data[start:end]` is a box's opening corner line."""
    stop = end - (data[end - 1 : end] == b"\n")
    return data.find(b"\xe2", start, stop) >= 0 and _BOX_OPEN_RE.fullmatch(data, start, stop) is not None


def _read_through_boxes(data: bytes, texts: list[int], ends: list[int], kinds: bytearray) -> None:
    """Boxed records: corner lines become separators, and each line inside a box (between
    an opening and a closing corner line, every line led by the gutter) starts after its
    gutter. A box left open, or a line inside without the gutter, is no box."""
    opened: int | None = None
    for at, (start, end) in enumerate(zip(texts, ends, strict=True)):
        stop = end - (data[end - 1 : end] == b"\n")
        if _BOX_OPEN_RE.fullmatch(data, start, stop):
            opened = at
        elif opened is not None and _BOX_CLOSE_RE.fullmatch(data, start, stop):
            kinds[opened] = kinds[at] = _BLANK
            for inside in range(opened + 1, at):
                gutter = _BOX_GUTTER_RE.match(data, texts[inside], ends[inside])
                texts[inside] = gutter.end() if gutter is not None else texts[inside]
                if kinds[inside] == _BLANK:
                    kinds[inside] = _TEXT  # a blank line inside a box is part of its record
            opened = None
        elif opened is not None and _BOX_GUTTER_RE.match(data, start, stop) is None:
            opened = None


def _is_rule(text: bytes) -> bool:
    """Whether a line's text is a rule: it starts and ends with three of one rule character."""
    edge = text[:3]
    return len(text) >= _RULE_LENGTH and edge in (bytes([c]) * 3 for c in _RULE_BYTES) and text.endswith(edge)


def _text_starts(data: bytes, starts: list[int], ends: list[int]) -> list[int]:
    """Where each line's text starts: after its prefix, when the first line shows a prefix
    holding a digit and most lines show one; else where the line starts."""
    first = _PREFIX_RE.match(data, 0, ends[0]) if starts else None
    if first is None or _DIGIT_RE.search(first[0]) is None:
        return starts
    texts = []
    for start, end in zip(starts, ends, strict=True):
        found = _PREFIX_RE.match(data, start, end)
        texts.append(found.end() if found is not None and _DIGIT_RE.search(found[0]) else start)
    prefixed = sum(text != start for text, start in zip(texts, starts, strict=True))
    return texts if prefixed >= _PREFIXED_SHARE * len(starts) else starts
