"""`pack`: the best views of many files within one token budget.

The run order: collect the candidates (`candidates`), get each one's facts from the
content-hash cache or tree-sitter (`facts`), rank them (`ranking`: BM25 and personalised
PageRank), build the views of the most relevant ones with exact costs (`choices`),
choose one view per file with the multiple-choice knapsack (`knapsack`), and render
(`render`). Only the `shortlist` most relevant files get views: a budget of N tokens
rarely shows more than N/40 files, and measuring views is the costly step.

The budget covers the whole document. The knapsack gets the budget less the first line
and a reserve for the last; the document is then counted as printed, and while it is over
(tokens can merge across a boundary) the least valuable view per token is dropped.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tokenlab.counting import tokens
from tokenlab.errors import InputError
from tokenlab.pack import knapsack
from tokenlab.pack.candidates import Candidates, LeftOut, collect
from tokenlab.pack.choices import PackView, ViewBuilder
from tokenlab.pack.facts import FactsCache, FileFacts
from tokenlab.pack.ranking import Relevance, query_terms, relevance
from tokenlab.pack.render import Chosen, PackResult, document, footer, preamble
from tokenlab.reads.ladder import cut_to_fit
from tokenlab.reads.pointers import SourceFile

DEFAULT_BUDGET = 8000
FOOTER_RESERVE = 120
MIN_SHORTLIST = 30
MAX_SHORTLIST = 300
LOW_RELEVANCE = "lower relevance"
NOT_RELEVANT = "no relevance to the query or the named files"


@dataclass(frozen=True)
class PackRequest:
    paths: tuple[Path, ...] = ()
    query: str | None = None
    budget_tokens: int = DEFAULT_BUDGET
    explicit: tuple[Path, ...] = ()  # files listed with --from-file

    @property
    def shortlist(self) -> int:
        return max(MIN_SHORTLIST, min(MAX_SHORTLIST, self.budget_tokens // 40))


@dataclass(frozen=True)
class _Scored:
    source: SourceFile
    facts: FileFacts
    relevance: float


@dataclass(frozen=True)
class Plan:
    """Everything the choice is made from: the candidates ranked, and the views of the shortlist."""

    found: Candidates
    ranked: list[_Scored]
    shortlist: list[_Scored]
    views: list[list[PackView]]
    head: str
    room: int  # tokens left for the views once the first line and the footer's reserve are set aside
    cache: FactsCache

    @property
    def groups(self) -> list[list[knapsack.Option]]:
        return [[knapsack.Option(view.tokens, view.value) for view in options] for options in self.views]


def plan(
    request: PackRequest,
    cache_dir: Path | None = None,
    *,
    node: str | None = None,
    allow: Callable[[Path], bool] | None = None,
) -> Plan:
    """Collect, rank and measure: the knapsack's input (also what the benchmark solves exactly)."""
    if request.budget_tokens < 0:
        raise InputError("the budget must be zero or more tokens")
    found = collect(request.paths, request.explicit, node=node, allow=allow)
    cache = FactsCache(cache_dir)
    facts = cache.facts([(source.display_path, source.data) for source in found.sources])
    ranked = _rank(found, facts, request.query)
    head = preamble(len(found.sources), request.query)
    reserve = min(FOOTER_RESERVE, request.budget_tokens // 8)
    room = max(0, request.budget_tokens - tokens.count(head) - reserve)
    shortlist = ranked[: request.shortlist]
    return Plan(found, ranked, shortlist, _views(shortlist, request, room), head, room, cache)


def pack(
    request: PackRequest,
    cache_dir: Path | None = None,
    *,
    node: str | None = None,
    allow: Callable[[Path], bool] | None = None,
) -> PackResult:
    """Pack the candidates of `request` within its budget; facts are cached under `cache_dir`."""
    planned = plan(request, cache_dir, node=node, allow=allow)
    choice = knapsack.greedy(planned.groups, planned.room)
    chosen = [
        (item, planned.views[index][picked])
        for index, (item, picked) in enumerate(zip(planned.shortlist, choice, strict=True))
        if picked is not None
    ]
    shown = {id(item) for item, _ in chosen}
    left_out = _left_out(planned.ranked, shown, planned.found)
    return _fit(request, planned.head, chosen, left_out, len(planned.found.sources), planned.cache)


def _rank(found: Candidates, facts: list[FileFacts], query: str | None) -> list[_Scored]:
    paths = [source.display_path for source in found.sources]
    scores: Relevance = relevance(paths, facts, query, found.named)
    items = [
        _Scored(source, item, score)
        for source, item, score in zip(found.sources, facts, scores.score, strict=True)
    ]
    return sorted(items, key=lambda item: (-item.relevance, item.source.display_path))


def _idf(ranked: list[_Scored], query: str | None) -> dict[str, float]:
    terms = query_terms(query)
    total = len(ranked)
    weights: dict[str, float] = {}
    for term in terms:
        holders = sum(1 for item in ranked if term in item.facts.terms)
        if holders:
            weights[term] = math.log(1 + (total - holders + 0.5) / (holders + 0.5))
    return weights


def _views(shortlist: list[_Scored], request: PackRequest, room: int) -> list[list[PackView]]:
    """Each shortlisted file's views. Values weigh by relevance squared, so a file that
    matches the whole query is worth far more than many that match one word; a section
    whose exact bytes a more relevant file already offers is not offered again."""
    idf = _idf(shortlist, request.query)
    outline_weight = 0.3 if idf else 0.45
    seen: set[str] = set()
    found: list[list[PackView]] = []
    for item in shortlist:
        weight = item.relevance**2
        if weight <= 0:
            found.append([])
            continue
        builder = ViewBuilder(item.source, item.facts, room)
        sections = [
            view
            for view in builder.sections(weight, idf)
            if not all(evidence.sha256 in seen for evidence in view.evidence)
        ]
        seen.update(evidence.sha256 for view in sections for evidence in view.evidence)
        options = [
            builder.full(weight),
            *sections,
            *builder.outlines(weight, outline_weight),
            builder.stub(weight),
        ]
        found.append([view for view in options if view is not None])
    return found


def _left_out(ranked: list[_Scored], shown: set[int], found: Candidates) -> list[LeftOut]:
    dropped = [
        LeftOut(item.source.display_path, LOW_RELEVANCE if item.relevance > 0 else NOT_RELEVANT)
        for item in ranked
        if id(item) not in shown
    ]
    return dropped + list(found.left_out)


def _fit(
    request: PackRequest,
    head: str,
    chosen: list[tuple[_Scored, PackView]],
    left_out: list[LeftOut],
    candidates: int,
    cache: FactsCache,
) -> PackResult:
    """Render, count as printed, and drop the least valuable views until the whole fits."""
    budget = request.budget_tokens
    reserve = min(FOOTER_RESERVE, budget // 8)
    chosen = sorted(chosen, key=lambda pair: (-pair[0].relevance, pair[0].source.display_path))
    while True:
        tail = footer(left_out, reserve)
        text = document(head, [view for _, view in chosen], tail)
        used = tokens.count(text)
        if used <= budget:
            break
        if not chosen:
            text = cut_to_fit(text, budget)
            used = tokens.count(text)
            break
        worst = min(
            range(len(chosen)), key=lambda index: chosen[index][1].value / max(1, chosen[index][1].tokens)
        )
        dropped, _ = chosen.pop(worst)
        left_out.insert(0, LeftOut(dropped.source.display_path, LOW_RELEVANCE))
    return PackResult(
        query=request.query,
        budget_tokens=budget,
        tokens=used,
        candidates=candidates,
        content=text,
        chosen=tuple(Chosen(item.source.display_path, item.relevance, view) for item, view in chosen),
        left_out=tuple(left_out),
        cache_hits=cache.hits,
        cache_misses=cache.misses,
    )
