"""Which outline entries matter most: the order in which a budgeted outline keeps symbols.

When an outline does not fit, the entries it keeps should be the ones a reader needs,
not the first ones in the file. Each symbol gets a score from what the file itself says:
- the size of its body (log of its lines: a 2,000-line function outweighs a one-liner);
- how often its name occurs elsewhere in the file (log of the count, a cheap reference
  count; it weighs half as much as size, so a one-line alias that is used everywhere does
  not push out the functions that do the work);
- whether it is public (no leading underscore; `export`ed in JS/TS), and whether it is a
  type (a class holds the methods under it).

Symbols are then taken best first, but a child only becomes available once its parent
is taken (a class comes before its helpers), so every prefix of the order is a valid
tree. Ties go to file order. The order is a pure function of the outline and the text.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokenlab.reads.symbols import Symbol

_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
_TYPE_KINDS = frozenset(
    {"class", "interface", "struct", "trait", "impl", "enum", "record", "object", "union", "module",
     "namespace"}
)  # fmt: skip
_LAST_SEGMENT = re.compile(r"(?<![\w$])[\w$]+$")  # tried where a segment starts: each is read once

Levels = list[list[tuple["Symbol", int]]]


def identifier_counts(text: str) -> Counter[str]:
    """How often each identifier-like word occurs in `text`."""
    return Counter(_IDENTIFIER.findall(text))


def bare_name(symbol: Symbol) -> str:
    """The last identifier of a symbol's name (`Type.method` -> `method`)."""
    match = _LAST_SEGMENT.search(symbol.name)
    return match.group(0) if match else symbol.name


def symbol_score(symbol: Symbol, depth: int, counts: Counter[str], definitions: Counter[str]) -> float:
    """Importance of one symbol: body size, references, visibility, kind and depth.

    References are the name's occurrences minus its definitions, so thirty classes that
    each define `run` do not make every `run` look referenced thirty times."""
    lines = max(1, symbol.end_line - symbol.start_line + 1)
    bare = bare_name(symbol)
    references = max(0, counts.get(bare, 0) - definitions.get(bare, 1))
    score = 1.5 * math.log2(1 + lines) + 0.75 * math.log2(1 + references)
    private = bare.startswith("_") and not (bare.startswith("__") and bare.endswith("__"))
    if not private:
        score += 1.0
    if "export" in symbol.detail.split(" ", 2)[:2]:
        score += 1.0
    if symbol.kind in _TYPE_KINDS:
        score += 1.0
    return score - 0.5 * depth


def priority_order(levels: Levels, text: str) -> list[tuple[int, int]]:
    """Every (depth, index) of `levels`, most important first; parents before their children."""
    counts = identifier_counts(text) if text else Counter()
    definitions = Counter(bare_name(symbol) for level in levels for symbol, _ in level)
    children: list[list[list[int]]] = [[[] for _ in level] for level in levels]
    for depth in range(1, len(levels)):
        for index, (_, parent) in enumerate(levels[depth]):
            children[depth - 1][parent].append(index)
    heap: list[tuple[float, int, int, int]] = []

    def offer(depth: int, index: int) -> None:
        symbol = levels[depth][index][0]
        score = symbol_score(symbol, depth, counts, definitions)
        heapq.heappush(heap, (-score, symbol.start_line, depth, index))

    for index in range(len(levels[0]) if levels else 0):
        offer(0, index)
    order: list[tuple[int, int]] = []
    while heap:
        _, _, depth, index = heapq.heappop(heap)
        order.append((depth, index))
        if depth + 1 < len(levels):
            for child in children[depth][index]:
                offer(depth + 1, child)
    return order
