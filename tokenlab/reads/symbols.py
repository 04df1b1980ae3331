"""The outline data model: `Symbol`, `Outline`, its limits (`OutlineConfig`), and the line arithmetic
every outliner shares.

Lines are numbered from 1 and split on "\\n" only. A CRLF ending is one line ending;
a lone CR, a form feed or U+2028 does not start a new line (unlike `str.splitlines`), so
the numbers agree with tree-sitter rows, with `ast` on ordinary files, and with
`text.split("\\n")`.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Symbol:
    """One named region of a file; `children` lie inside its line range."""

    kind: str
    name: str
    start_line: int
    end_line: int
    children: tuple[Symbol, ...] = ()
    detail: str = ""


@dataclass(frozen=True)
class Outline:
    """The symbols of one file, in file order, and what the outline left out (`note`)."""

    language: str
    symbols: tuple[Symbol, ...]
    line_count: int
    note: str = ""

    @property
    def symbol_count(self) -> int:
        return sum(1 for _ in walk(self.symbols))


@dataclass(frozen=True)
class OutlineConfig:
    """Limits of an outline; the defaults suit files up to a few megabytes."""

    chunk_lines: int = 50  # lines per chunk in the plain-text fallback
    data_depth: int = 6  # levels of keys shown for JSON/YAML/TOML; deeper ones are counted
    data_breadth: int = 500  # keys listed per object; the rest are counted
    array_items: int = 1  # leading elements of an array expanded as `[0]`, `[1]`…
    sample_rows: int = 3  # CSV/TSV rows shown after the header


def walk(symbols: tuple[Symbol, ...]) -> list[Symbol]:
    """Every symbol of a tree in document order (pre-order), without recursion."""
    found: list[Symbol] = []
    pending = list(reversed(symbols))
    while pending:
        symbol = pending.pop()
        found.append(symbol)
        pending.extend(reversed(symbol.children))
    return found


def line_count(text: str) -> int:
    """Lines in `text`; a final line without "\\n" still counts, an empty text has none."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def shorten(text: str, limit: int = 80) -> str:
    """One printable line of at most `limit` characters, with "…" when cut.

    Runs of whitespace become one space; other control characters are escaped (`\\x00`),
    so a rendered outline has exactly one line per symbol.
    """
    text = " ".join(text.split())
    if not text.isprintable():
        text = "".join(char if char.isprintable() else ascii(char)[1:-1] for char in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def plural(count: int, noun: str) -> str:
    """`1 key`, `2 keys`, `1,204 rows`."""
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"


@dataclass
class Draft:
    """A mutable symbol under construction; `freeze` turns a tree of drafts into Symbols."""

    kind: str
    name: str
    start_line: int
    end_line: int
    detail: str = ""
    children: list[Draft] = field(default_factory=list)


def walk_drafts(drafts: list[Draft]) -> list[Draft]:
    """Every draft of a tree, without recursion."""
    found: list[Draft] = []
    pending = list(drafts)
    while pending:
        draft = pending.pop()
        found.append(draft)
        pending.extend(draft.children)
    return found


def freeze(drafts: list[Draft]) -> tuple[Symbol, ...]:
    """Convert draft trees to frozen symbols bottom-up, without recursion (trees may be deep)."""
    frozen: dict[int, Symbol] = {}
    order: list[Draft] = []
    pending = list(drafts)
    while pending:
        draft = pending.pop()
        order.append(draft)
        pending.extend(draft.children)
    for draft in reversed(order):
        frozen[id(draft)] = Symbol(
            kind=draft.kind,
            name=draft.name,
            start_line=draft.start_line,
            end_line=draft.end_line,
            children=tuple(frozen[id(child)] for child in draft.children),
            detail=draft.detail,
        )
    return tuple(frozen[id(draft)] for draft in drafts)
