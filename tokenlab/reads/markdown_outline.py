"""Markdown outlines: the heading tree, each heading with the line range of its section.

A line scanner rather than a full CommonMark parser, because only block structure that
decides "is this line a heading" matters: ATX headings (`## Title`), setext headings (a
paragraph underlined with `===` or `---`), and the blocks whose lines are never headings
(fenced code with ``` or ~~~, HTML comments, front matter at the top of the file).
A section runs to the line before the next heading of the same or a higher level, or
to the end of the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tokenlab.reads.symbols import Draft, Outline, freeze, line_count, shorten

_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*))?$")
# Blanks before a closing sequence are taken from where their run starts: tried from each
# blank of a long run, the rest of the run was read again.
_ATX_CLOSING = re.compile(r"(?:^|(?<![ \t])[ \t]+)#+[ \t]*$")
_SETEXT_UNDERLINE = re.compile(r" {0,3}(=+|-+)[ \t]*$")
_FENCE_OPEN = re.compile(r"[ \t]*(`{3,}|~{3,})(.*)$")
_FENCE_CLOSE = re.compile(r"[ \t]*(`{3,}|~{3,})[ \t]*$")
_THEMATIC_BREAK = re.compile(r" {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
# Lines that start a block a setext underline cannot turn into a heading.
_NOT_PARAGRAPH = re.compile(r" {0,3}(?:>|[-+*](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|\|)")
_TITLE_LIMIT = 200
_FRONT_MATTER = {"---": ("---", "..."), "+++": ("+++",)}


@dataclass
class _Heading:
    level: int
    title: str
    start: int  # 1-based line of the heading (first paragraph line for setext)


def markdown_outline(text: str) -> Outline:
    lines = text.split("\n")
    total = line_count(text)
    headings = _scan(lines[:total])
    return Outline(language="markdown", symbols=freeze(_tree(headings, total)), line_count=total)


def _scan(lines: list[str]) -> list[_Heading]:
    scanner = _Scanner()
    for number in range(_skip_front_matter(lines) + 1, len(lines) + 1):
        scanner.feed(lines[number - 1].rstrip("\r"), number)
    return scanner.headings


class _Scanner:
    """Block state carried from line to line; `feed` each line in order."""

    def __init__(self) -> None:
        self.headings: list[_Heading] = []
        self.fence: tuple[str, int] | None = None  # (fence character, length) inside a fence
        self.in_html_comment = False
        self.paragraph: list[str] = []  # lines of the open plain paragraph (setext candidates)
        self.paragraph_start = 0
        self.in_other_block = False  # a list item, quote or table row: no setext underline

    def feed(self, line: str, number: int) -> None:
        if self.fence is not None:
            self._inside_fence(line)
        elif self.in_html_comment:
            self.in_html_comment = "-->" not in line
        elif line[:1].isalpha():
            self._text(line, number)  # the bulk of prose: only ever a paragraph line
        elif not line.strip():
            self.paragraph, self.in_other_block = [], False
        elif not self._block_start(line, number):
            self._text(line, number)

    def _inside_fence(self, line: str) -> None:
        assert self.fence is not None
        closing = _FENCE_CLOSE.match(line) if line.lstrip()[:1] in ("`", "~") else None
        if closing and closing.group(1)[0] == self.fence[0] and len(closing.group(1)) >= self.fence[1]:
            self.fence = None

    def _block_start(self, line: str, number: int) -> bool:
        """Handle a line that opens or ends a block; False for a paragraph line."""
        opening = _FENCE_OPEN.match(line)
        if opening and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            self.fence = (opening.group(1)[0], len(opening.group(1)))
        elif atx := _ATX.match(line):
            title = _ATX_CLOSING.sub("", (atx.group(2) or "").strip())
            self.headings.append(_Heading(len(atx.group(1)), title.strip(), number))
        elif (underline := _SETEXT_UNDERLINE.match(line)) and self.paragraph:
            level = 1 if underline.group(1)[0] == "=" else 2
            title = " ".join(part.strip() for part in self.paragraph)
            self.headings.append(_Heading(level, title, self.paragraph_start))
        elif _THEMATIC_BREAK.match(line):
            pass
        elif line.lstrip().startswith("<!--"):
            self.in_html_comment = "-->" not in line.lstrip()[4:]
        elif self.in_other_block or _NOT_PARAGRAPH.match(line):
            self.paragraph, self.in_other_block = [], True
            return True
        else:
            return False
        self.paragraph, self.in_other_block = [], False
        return True

    def _text(self, line: str, number: int) -> None:
        if self.in_other_block:
            return
        if not self.paragraph:
            if line.startswith(("    ", "\t")):
                return  # an indented code line, not a paragraph
            self.paragraph_start = number
        self.paragraph.append(line)


def _skip_front_matter(lines: list[str]) -> int:
    """The index of the first line after YAML (`---`) or TOML (`+++`) front matter."""
    if not lines:
        return 0
    closers = _FRONT_MATTER.get(lines[0].rstrip("\r").rstrip())
    if closers is None:
        return 0
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r").rstrip() in closers:
            return index + 1
    return 0  # never closed: not front matter after all


def _tree(headings: list[_Heading], total: int) -> list[Draft]:
    top: list[Draft] = []
    open_stack: list[tuple[int, Draft]] = []  # (level, draft) of sections still open
    for heading in headings:
        while open_stack and open_stack[-1][0] >= heading.level:
            open_stack.pop()[1].end_line = heading.start - 1
        draft = Draft(
            kind="heading",
            name=shorten(heading.title, _TITLE_LIMIT),
            start_line=heading.start,
            end_line=total,
            detail="#" * heading.level,
        )
        (open_stack[-1][1].children if open_stack else top).append(draft)
        open_stack.append((heading.level, draft))
    return top
