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
_ATX_CLOSING = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
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
    headings: list[_Heading] = []
    fence: tuple[str, int] | None = None  # (fence character, length) while inside a fence
    in_html_comment = False
    paragraph: list[str] = []  # lines of the open plain paragraph (setext candidates)
    paragraph_start = 0
    in_other_block = False  # a list item, quote or table row: no setext underline applies
    index = _skip_front_matter(lines)
    while index < len(lines):
        line = lines[index].rstrip("\r")
        index += 1
        if fence is not None:
            closing = _FENCE_CLOSE.match(line)
            if closing and closing.group(1)[0] == fence[0] and len(closing.group(1)) >= fence[1]:
                fence = None
            continue
        if in_html_comment:
            in_html_comment = "-->" not in line
            continue
        stripped = line.strip()
        if not stripped:
            paragraph, in_other_block = [], False
            continue
        opening = _FENCE_OPEN.match(line)
        if opening and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            fence = (opening.group(1)[0], len(opening.group(1)))
            paragraph, in_other_block = [], False
            continue
        atx = _ATX.match(line)
        if atx:
            title = _ATX_CLOSING.sub("", (atx.group(2) or "").strip())
            headings.append(_Heading(len(atx.group(1)), title.strip(), index))
            paragraph, in_other_block = [], False
            continue
        underline = _SETEXT_UNDERLINE.match(line)
        if underline and paragraph:
            level = 1 if underline.group(1)[0] == "=" else 2
            headings.append(_Heading(level, " ".join(p.strip() for p in paragraph), paragraph_start))
            paragraph = []
            continue
        if _THEMATIC_BREAK.match(line):
            paragraph, in_other_block = [], False
            continue
        if stripped.startswith("<!--"):
            in_html_comment = "-->" not in stripped[4:]
            paragraph, in_other_block = [], False
            continue
        if in_other_block or _NOT_PARAGRAPH.match(line):
            paragraph, in_other_block = [], True
            continue
        if not paragraph:
            if line.startswith(("    ", "\t")):
                continue  # an indented code line, not a paragraph
            paragraph_start = index
        paragraph.append(line)
    return headings


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
