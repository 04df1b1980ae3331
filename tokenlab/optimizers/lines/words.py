"""Where a searched word sits in a line: whole or inside a longer name, and a window around it.

Shared by the search-results family (hit lists from grep, rg, ack) and by budgeted
search (`reads/search.py`), which rank a line by whether it names the word whole, and
show a long line as the window around the word.
"""

from __future__ import annotations


def _is_name_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def is_whole_word(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` is not part of a longer name (letters, digits, `_`)."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (_is_name_char(before) or _is_name_char(after))


def window(line: str, at: int, width: int) -> str:
    """`line` cut to `width` characters around offset `at` (a third of them before it),
    with `…` where it was cut; lines that fit are returned as they are."""
    if len(line) <= width:
        return line
    start = max(0, at - width // 3)
    piece = line[start : start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(line) else "")
