"""The ladder of candidate views and how a budget picks a rung.

A read builds a *ladder* of candidate views ordered from most to least detailed, for
example full text → outline with every symbol → outline with fewer symbols → a one-line
stub. The ladder is measured lazily with the real token counter: the first rungs (whole
views such as the full text or a summary) are tried in order, the rest (outline rungs
and the stub, which shrink step by step) are binary-searched, so a read renders only a
handful of candidates and always returns the same answer for the same bytes.

The outline rungs show the most important symbols first (`rank`: body size, references,
visibility, kind; a parent before its children), rendered in file order. Dropping rungs
drops the least important symbol first; a shown symbol with hidden children carries the
outline view's `[+N]` mark and a last line counts the rest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from functools import partial
from typing import TYPE_CHECKING, Any

from tokenlab.counting import tokens

if TYPE_CHECKING:
    from tokenlab.reads.outline import Outline, Symbol


class View(str, Enum):
    AUTO = "auto"
    FULL = "full"
    OUTLINE = "outline"
    SECTION = "section"
    LINES = "lines"
    SUMMARY = "summary"
    STUB = "stub"


@dataclass(frozen=True)
class Candidate:
    """One rung of the ladder: a view's content and the line ranges its evidence covers."""

    view: View
    content: str
    ranges: tuple[tuple[int, int], ...] = ()
    outline: Outline | None = None
    complete: bool = True  # False: an outline that leaves symbols out
    note: str = ""
    raw: bytes | None = None  # exact bytes, for views that are a slice of the file
    generated: bool = False
    stale: bool = False


class Ladder:
    """Candidates from most to least detailed, built on demand and remembered.

    The first `linear` rungs (full text, a summary) are unrelated views tried in order;
    the rest (outline levels, then the stub) shrink step by step, so they are
    binary-searched.
    """

    def __init__(self, rungs: Sequence[Callable[[], Candidate | None]], linear: int = 0) -> None:
        self._rungs = rungs
        self._linear = linear
        self._built: dict[int, Candidate | None] = {}

    def __len__(self) -> int:
        return len(self._rungs)

    def candidate(self, index: int) -> Candidate | None:
        if index not in self._built:
            self._built[index] = self._rungs[index]()
        return self._built[index]

    def fits(self, index: int, budget: int) -> bool:
        candidate = self.candidate(index)
        return candidate is not None and tokens.fits(candidate.content, budget)

    def first_fitting(self, budget: int) -> int | None:
        """The most detailed rung that fits, or None."""
        for index in range(min(self._linear, len(self._rungs))):
            if self.fits(index, budget):
                return index
        low, high, found = self._linear, len(self._rungs) - 1, None
        while low <= high:
            middle = (low + high) // 2
            if self.fits(middle, budget):
                found, high = middle, middle - 1
            else:
                low = middle + 1
        return found


# --- outlines as ladders ------------------------------------------------------------------


def symbol_levels(symbols: tuple[Symbol, ...]) -> list[list[tuple[Symbol, int]]]:
    """Symbols level by level in document order, each with its parent's index one level up."""
    levels: list[list[tuple[Symbol, int]]] = []
    current = [(symbol, -1) for symbol in symbols]
    while current:
        levels.append(current)
        current = [(child, index) for index, (symbol, _) in enumerate(current) for child in symbol.children]
    return levels


def rebuild(
    levels: list[list[tuple[Symbol, int]]], keep: Callable[[int, int, Symbol], bool]
) -> tuple[Symbol, ...]:
    """The tree of symbols for which `keep(level, index, symbol)` holds and whose parents are kept."""
    kept: list[dict[int, Symbol]] = []
    for depth, level in enumerate(levels):
        parents = kept[depth - 1] if depth else None
        kept.append(
            {
                index: symbol
                for index, (symbol, parent) in enumerate(level)
                if (parents is None or parent in parents) and keep(depth, index, symbol)
            }
        )
    rebuilt: dict[int, Symbol] = {}
    for depth in range(len(levels) - 1, -1, -1):
        children: dict[int, list[Symbol]] = {}
        for index in sorted(rebuilt):
            children.setdefault(levels[depth + 1][index][1], []).append(rebuilt[index])
        rebuilt = {
            index: replace(symbol, children=tuple(children.get(index, ())))
            for index, symbol in kept[depth].items()
        }
    return tuple(rebuilt[index] for index in sorted(rebuilt))


def outline_dicts(symbols: tuple[Symbol, ...]) -> list[dict[str, Any]]:
    """The structured outline of the response, built without recursion."""
    roots: list[dict[str, Any]] = []
    pending: list[tuple[Symbol, list[dict[str, Any]]]] = [(symbol, roots) for symbol in reversed(symbols)]
    while pending:
        symbol, siblings = pending.pop()
        entry: dict[str, Any] = {
            "kind": symbol.kind,
            "name": symbol.name,
            "start_line": symbol.start_line,
            "end_line": symbol.end_line,
        }
        if symbol.detail:
            entry["detail"] = symbol.detail
        entry["children"] = []
        siblings.append(entry)
        pending.extend((child, entry["children"]) for child in reversed(symbol.children))
    return roots


class OutlineRungs:
    """Outline candidates showing the `shown` most important symbols (see `rank`), in file order.

    Symbols are taken in `rank.priority_order`: body size, references, visibility and
    kind, a parent always before its children. A shown symbol whose children are not all
    shown gets the outline view's `[+N]` mark (N hidden descendants), and a last line
    counts everything left out.
    """

    def __init__(self, outline: Outline, text: str = "") -> None:
        from tokenlab.reads.rank import priority_order

        self.outline = outline
        self.levels = symbol_levels(outline.symbols)
        self.total = sum(len(level) for level in self.levels)
        self.order = priority_order(self.levels, text)
        self.rank = [[0] * len(level) for level in self.levels]
        for position, (depth, index) in enumerate(self.order):
            self.rank[depth][index] = position
        self.children: list[list[list[int]]] = [[[] for _ in level] for level in self.levels]
        for depth in range(1, len(self.levels)):
            for index, (_, parent) in enumerate(self.levels[depth]):
                self.children[depth - 1][parent].append(index)
        self.descendants = self._count_kept(self.total)

    def rungs(self) -> list[Callable[[], Candidate | None]]:
        return [partial(self.candidate, shown) for shown in range(self.total, 0, -1)]

    def kept(self, shown: int) -> tuple[Symbol, ...]:
        """The tree of the `shown` most important symbols."""
        return rebuild(self.levels, lambda depth, index, _: self.rank[depth][index] < shown)

    def candidate(self, shown: int) -> Candidate:
        from tokenlab.reads.outline import render_outline

        symbols = self.kept(shown)
        pruned = replace(self.outline, symbols=symbols)
        content = render_outline(pruned, None)
        note = ""
        if shown < self.total:
            content = self._mark_hidden(content, shown)
            note = self._left_out(shown)
            content = content.rstrip("\n") + f"\n{note}\n"
        ranges = tuple((symbol.start_line, symbol.end_line) for symbol in symbols)
        return Candidate(View.OUTLINE, content, ranges, pruned, complete=shown == self.total, note=note)

    def _count_kept(self, shown: int) -> list[list[int]]:
        """Per symbol, how many of its descendants are among the `shown` most important."""
        counts = [[0] * len(level) for level in self.levels]
        for depth in range(len(self.levels) - 1, 0, -1):
            for index, (_, parent) in enumerate(self.levels[depth]):
                if self.rank[depth][index] < shown:
                    counts[depth - 1][parent] += 1 + counts[depth][index]
        return counts

    def _mark_hidden(self, content: str, shown: int) -> str:
        kept = self._count_kept(shown)
        order: list[tuple[int, int]] = []
        top = [index for index in range(len(self.levels[0])) if self.rank[0][index] < shown]
        pending = [(0, index) for index in reversed(top)]
        while pending:
            depth, index = pending.pop()
            order.append((depth, index))
            visible = [child for child in self.children[depth][index] if self.rank[depth + 1][child] < shown]
            pending.extend((depth + 1, child) for child in reversed(visible))
        lines = content.split("\n")
        if len(lines) != len(order) + (2 if self.outline.note else 1):
            return content  # a label spans lines (a name with a newline): marks would misalign
        for line_number, (depth, index) in enumerate(order):
            hidden = self.descendants[depth][index] - kept[depth][index]
            if hidden:
                lines[line_number] += f" [+{hidden}]"
        return "\n".join(lines)

    def _left_out(self, shown: int) -> str:
        hidden = self.total - shown
        top_hidden = sum(1 for position in self.rank[0] if position >= shown) if self.levels else 0
        where = f"{top_hidden} of them top-level" if top_hidden else "all nested"
        return f"… {hidden} of {self.total} symbols not shown (smaller, less referenced ones; {where})"


def cut_to_fit(text: str, budget: int) -> str:
    """The longest prefix of `text` (plus "…") that fits; empty when nothing does."""
    low, high, best = 0, len(text), ""
    while low <= high:
        middle = (low + high) // 2
        attempt = text[:middle].rstrip("\n") + "…\n" if middle else ""
        if tokens.count(attempt) <= budget:
            best, low = attempt, middle + 1
        else:
            high = middle - 1
    return best
