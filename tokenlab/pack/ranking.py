"""How relevant each candidate is: BM25 for the query, PageRank for the structure.

- **BM25** (k1 1.2, b 0.75) over one bag of terms per file: its path's words (weight 3),
  the names it defines (weight 2) and the words of its text (weight 1), identifiers split
  into their parts (`getUserName` -> get, user, name).
- **PageRank** (damping 0.85) over a graph of files: an edge A -> B for each identifier A
  mentions that B defines (names defined in more than `MAX_DEFINERS` files, and short
  names, say too little to count). An edge whose name is a query term weighs ten times
  more, as aider's repo map does for mentioned identifiers. The walk restarts at files that
  match the query (in proportion to their BM25 score) and at files named on the command
  line; with neither, it restarts anywhere.
- **Relevance** = 0.7 x BM25 + 0.3 x PageRank, each scaled to [0, 1] over the
  candidates, plus 0.5 for a file named on the command line. Without a query, PageRank
  alone. Pure functions of their inputs, so a pack is deterministic.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from tokenlab.pack.facts import FileFacts, split_terms

K1 = 1.2
B = 0.75
DAMPING = 0.85
ITERATIONS = 40
TOLERANCE = 1e-6
MAX_DEFINERS = 8
QUERY_EDGE_WEIGHT = 10.0
NAMED_BONUS = 0.5
_WORD = re.compile(r"[A-Za-z_$][\w$]*|\d+")


@dataclass(frozen=True)
class Relevance:
    """Per candidate: BM25, PageRank and the combined score the packer weighs views by."""

    bm25: tuple[float, ...]
    pagerank: tuple[float, ...]
    score: tuple[float, ...]


def query_terms(query: str | None) -> list[str]:
    """The query's terms, identifiers split into parts, each once, in order."""
    if not query:
        return []
    terms: list[str] = []
    for word in _WORD.findall(query):
        terms.extend(split_terms(word))
    return [term for term in dict.fromkeys(terms) if len(term) > 1]


def path_terms(path: str) -> list[str]:
    return [term for word in _WORD.findall(path) for term in split_terms(word)]


def bm25(paths: Sequence[str], facts: Sequence[FileFacts], terms: Sequence[str]) -> list[float]:
    """Okapi BM25 of each file for `terms`, over its text (x1), names (x2) and path (x3)."""
    if not facts or not terms:
        return [0.0] * len(facts)
    in_paths = [path_terms(path) for path in paths]
    lengths = [item.length + 3 * len(words) for item, words in zip(facts, in_paths, strict=True)]
    average = (sum(lengths) / len(lengths)) or 1.0
    total = len(facts)
    scores = [0.0] * total
    for term in terms:
        frequencies = [
            item.terms.get(term, 0) + 2 * item.name_terms.get(term, 0) + 3 * words.count(term)
            for item, words in zip(facts, in_paths, strict=True)
        ]
        holders = sum(1 for frequency in frequencies if frequency)
        if not holders:
            continue
        idf = math.log(1 + (total - holders + 0.5) / (holders + 0.5))
        for index, frequency in enumerate(frequencies):
            if frequency:
                norm = K1 * (1 - B + B * lengths[index] / average)
                scores[index] += idf * frequency * (K1 + 1) / (frequency + norm)
    return scores


def reference_graph(facts: Sequence[FileFacts], terms: Sequence[str]) -> list[dict[int, float]]:
    """Per file, the files it refers to and the weight of each edge."""
    definers: dict[str, list[int]] = defaultdict(list)
    for index, item in enumerate(facts):
        for name in item.defines:
            if len(name) > 2:
                definers[name].append(index)
    wanted = set(terms)
    weights = {
        name: (QUERY_EDGE_WEIGHT if wanted.intersection(split_terms(name)) else 1.0) / len(targets)
        for name, targets in definers.items()
        if len(targets) <= MAX_DEFINERS
    }
    edges: list[dict[int, float]] = [{} for _ in facts]
    for source, item in enumerate(facts):
        out = edges[source]
        for name in item.mentions:
            weight = weights.get(name)
            if weight is None:
                continue
            for target in definers[name]:
                if target != source:
                    out[target] = out.get(target, 0.0) + weight
    return edges


def pagerank(edges: Sequence[dict[int, float]], restart: Sequence[float]) -> list[float]:
    """Personalised PageRank by power iteration until the ranks move less than `TOLERANCE`;
    dangling files hand their rank to `restart`."""
    count = len(edges)
    if not count:
        return []
    total = sum(restart)
    teleport = [value / total for value in restart] if total > 0 else [1.0 / count] * count
    links = []
    for source, targets in enumerate(edges):
        out = sum(targets.values())
        if out:
            links.append((source, [(target, weight / out) for target, weight in targets.items()]))
    linked = {source for source, _ in links}
    dangling_sources = [index for index in range(count) if index not in linked]
    rank = list(teleport)
    for _ in range(ITERATIONS):
        dangling = sum(rank[index] for index in dangling_sources)
        following = [(1 - DAMPING + DAMPING * dangling) * value for value in teleport]
        for source, shares in links:
            share = DAMPING * rank[source]
            for target, weight in shares:
                following[target] += share * weight
        moved = sum(abs(new - old) for new, old in zip(following, rank, strict=True))
        rank = following
        if moved < TOLERANCE:
            break
    return rank


def _scaled(values: Sequence[float]) -> list[float]:
    top = max(values, default=0.0)
    return [value / top for value in values] if top > 0 else [0.0] * len(values)


def relevance(
    paths: Sequence[str], facts: Sequence[FileFacts], query: str | None, named: frozenset[str]
) -> Relevance:
    """BM25, PageRank and the combined relevance of each candidate."""
    terms = query_terms(query)
    scores = bm25(paths, facts, terms)
    top = max(scores, default=0.0) or 1.0
    restart = [score + top * (path in named) for path, score in zip(paths, scores, strict=True)]
    ranks = pagerank(reference_graph(facts, terms), restart)
    text_part, graph_part = _scaled(scores), _scaled(ranks)
    combined = [
        (0.7 * text + 0.3 * graph if terms else graph) + NAMED_BONUS * (path in named)
        for path, text, graph in zip(paths, text_part, graph_part, strict=True)
    ]
    return Relevance(tuple(scores), tuple(ranks), tuple(combined))
