"""The ladder of views the packer may show for one candidate, each with its exact cost.

For a file of weight r (the packer passes its relevance squared) the views are, from most
to least detailed:
- **full**: the file's exact bytes (value r);
- **section**: the one, three or six symbols that match the query best, as exact lines
  (value r x (0.55 + 0.35 x the share of the file's match score they hold));
- **outline** at several sizes: the most important symbols first (`reads.rank`), the
  same ranking `tokens read` uses (value r x w x sqrt(shown / total), w 0.45 without a
  query and 0.3 with one);
- **stub**: one line naming the file, its size and language (value r x 0.04).

Each view is measured as it will be printed, header included, with the real o200k_base
counter (a full view: the header's count plus the cached count of the text, an upper
bound that the packer's final count settles); views that cannot fit the budget are not
offered. A section's score: for each
query term (weighted by its IDF), 3 if the symbol's name holds it, 1.5 if an enclosing
symbol's name does, plus log(1 + occurrences) in the symbol's own lines (children's
lines excluded, so the most specific symbol wins).
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from tokenlab.counting import tokens
from tokenlab.pack.facts import FileFacts, split_terms
from tokenlab.reads.outline import Outline
from tokenlab.reads.pointers import Evidence, SourceFile, parse_pointer
from tokenlab.reads.symbols import Symbol, plural

SECTION_COUNTS = (1, 3, 6)
OUTLINE_SIZES = (40, 15, 5)
STUB_WEIGHT = 0.04


@dataclass(frozen=True)
class PackView:
    """One way to show a candidate: its printed text (header included) and what it is worth."""

    view: str  # full, section, outline, stub
    text: str
    tokens: int
    value: float
    evidence: tuple[Evidence, ...]
    detail: str = ""


def header(evidence: Evidence, view: str, detail: str = "", with_hash: bool = True) -> str:
    """`>>> path@rev#L1-L9 view: detail sha256=…`, one line; the pointer in its short form
    (node and tree are the same for a whole pack and are in `--json`)."""
    parts = [">>>", parse_pointer(evidence.pointer).short, view + (f": {detail}" if detail else "")]
    if with_hash:
        parts.append(f"sha256={evidence.sha256}")
    return " ".join(parts) + "\n"


def _ends(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


class ViewBuilder:
    """Builds the views of one candidate for a given query and budget."""

    def __init__(self, source: SourceFile, facts: FileFacts, budget: int) -> None:
        self.source = source
        self.facts = facts
        self.budget = budget
        self.text = source.data.decode("utf-8", errors="replace")

    def _measured(
        self, view: str, text: str, value: float, evidence: tuple[Evidence, ...], detail: str = ""
    ) -> PackView | None:
        if value <= 0 or len(text) > self.budget * tokens.max_chars_per_token():
            return None
        cost = tokens.count(text)
        return PackView(view, text, cost, value, evidence, detail) if cost <= self.budget else None

    def whole(self) -> Evidence:
        count = self.source.line_count
        return self.source.evidence(1, count) if count else self.source.evidence()

    def full(self, relevance: float) -> PackView | None:
        """The whole file; its cost is the header's plus the cached count of the text."""
        evidence = self.whole()
        text = header(evidence, "full") + _ends(self.text)
        if self.facts.tokens < 0 or text != header(evidence, "full") + self.text:
            return self._measured("full", text, relevance, (evidence,))
        cost = tokens.count(header(evidence, "full")) + self.facts.tokens
        return PackView("full", text, cost, relevance, (evidence,)) if cost <= self.budget else None

    def stub(self, relevance: float) -> PackView | None:
        detail = f"{plural(self.source.line_count, 'line')}, {len(self.source.data):,} bytes, {self.facts.language}"
        evidence = self.whole()
        return self._measured(
            "stub",
            header(evidence, "stub", detail, with_hash=False),
            relevance * STUB_WEIGHT,
            (evidence,),
            detail,
        )

    def outlines(self, relevance: float, weight: float) -> list[PackView]:
        from tokenlab.reads.ladder import OutlineRungs

        outline = Outline(self.facts.language, self.facts.symbols, self.facts.line_count, self.facts.note)
        rungs = OutlineRungs(outline, self.text)
        if not rungs.total:
            return []
        sizes = sorted({rungs.total, *(size for size in OUTLINE_SIZES if size < rungs.total)}, reverse=True)
        evidence = self.whole()
        found: list[PackView] = []
        for shown in sizes:
            candidate = rungs.candidate(shown)
            detail = f"{shown} of {plural(rungs.total, 'symbol')}"
            text = header(evidence, "outline", detail) + _ends(candidate.content)
            value = relevance * weight * math.sqrt(shown / rungs.total)
            view = self._measured("outline", text, value, (evidence,), detail)
            if view is not None:
                found.append(view)
        return found

    def sections(self, relevance: float, idf: dict[str, float]) -> list[PackView]:
        scored = section_scores(self.facts.symbols, self.text, idf)
        if not scored:
            return []
        total = sum(score for score, _ in scored)
        chosen = _distinct(scored, max(SECTION_COUNTS))
        found: list[PackView] = []
        for count in sorted({min(count, len(chosen)) for count in SECTION_COUNTS}):
            picked = sorted(chosen[:count], key=lambda item: item[1].start_line)
            share = sum(score for score, _ in picked) / total
            view = self._section_view(picked, relevance * (0.55 + 0.35 * min(1.0, share)))
            if view is not None:
                found.append(view)
        return found

    def _section_view(self, picked: Sequence[tuple[float, Symbol]], value: float) -> PackView | None:
        parts, evidence = [], []
        for _, symbol in picked:
            item = self.source.evidence(symbol.start_line, symbol.end_line)
            evidence.append(item)
            lines = self.source.data[
                self.source.offsets[symbol.start_line - 1] : self.source.offsets[symbol.end_line]
            ]
            parts.append(
                header(item, "section", symbol.name) + _ends(lines.decode("utf-8", errors="replace"))
            )
        names = ", ".join(symbol.name for _, symbol in picked)
        return self._measured("section", "".join(parts), value, tuple(evidence), names)


def section_scores(
    symbols: tuple[Symbol, ...], text: str, idf: dict[str, float]
) -> list[tuple[float, Symbol]]:
    """(score, symbol) for every symbol that matches a query term, best first."""
    if not idf:
        return []
    lower = text.lower()
    starts = [0, *(match.end() for match in re.finditer("\n", lower))]
    found = {term: [match.start() for match in re.finditer(re.escape(term), lower)] for term in idf}
    scored: list[tuple[float, Symbol]] = []
    pending: list[tuple[Symbol, frozenset[str]]] = [(symbol, frozenset()) for symbol in symbols]
    while pending:
        symbol, inherited = pending.pop()
        own = frozenset(split_terms(symbol.name.rsplit(".", 1)[-1]))
        score = 0.0
        for term, weight in idf.items():
            occurrences = _own_count(found[term], starts, symbol)
            name_part = 3.0 if term in own else 1.5 if term in inherited else 0.0
            score += weight * (name_part + math.log1p(occurrences))
        if score > 0 and symbol.kind != "chunk":
            scored.append((score, symbol))
        pending.extend((child, inherited | own) for child in symbol.children)
    scored.sort(key=lambda item: (-item[0], item[1].start_line))
    return scored


def _in_lines(positions: list[int], starts: list[int], first: int, last: int) -> int:
    """How many of the sorted `positions` fall on lines first..last (1-based)."""
    low = starts[min(first, len(starts)) - 1]
    high = starts[last] if last < len(starts) else float("inf")
    return bisect.bisect_left(positions, high) - bisect.bisect_left(positions, low)


def _own_count(positions: list[int], starts: list[int], symbol: Symbol) -> int:
    """Occurrences in the symbol's own lines: its range less its children's."""
    if not positions:
        return 0
    count = _in_lines(positions, starts, symbol.start_line, symbol.end_line)
    for child in symbol.children:
        count -= _in_lines(positions, starts, child.start_line, child.end_line)
    return max(0, count)


def _distinct(scored: list[tuple[float, Symbol]], limit: int) -> list[tuple[float, Symbol]]:
    """The best symbols that neither contain nor lie inside one already taken."""
    taken: list[tuple[float, Symbol]] = []
    for score, symbol in scored:
        if all(
            symbol.end_line < other.start_line or symbol.start_line > other.end_line for _, other in taken
        ):
            taken.append((score, symbol))
            if len(taken) == limit:
                break
    return taken
