"""Packer rows for `tokens benchmark`: budget adherence and pointer checks.

Each row packs the budgeted-read fixtures (`fixtures/reads/`, files of a dozen languages
and formats) for one query and budget, recounts the whole document with the real counter,
and dereferences every evidence pointer it gives against the file's bytes. A row passes
when the document fits its budget, its count is the one reported, and every pointer holds.
The benchmark renders the rows; this module only measures.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tokenlab.counting import tokens
from tokenlab.pack.packer import PackRequest, pack
from tokenlab.packet import Status
from tokenlab.reads.bench_rows import check_evidence

BUDGETS = (500, 2_000, 8_000)
# Questions a reader of these fixtures could ask, and none: ranking by structure alone.
QUERIES: tuple[str | None, ...] = (None, "rate limiter tokens refill", "send the invoice mail")


@dataclass(frozen=True)
class PackRow:
    query: str | None
    budget_tokens: int
    tokens: int
    files_shown: int
    candidates: int
    pointers_checked: int
    status: Status
    failure: str = ""

    @property
    def adherence(self) -> float:
        """Tokens used per budget token."""
        return self.tokens / self.budget_tokens if self.budget_tokens else 0.0


def pack_row(folder: Path, query: str | None, budget: int, cache_dir: Path) -> PackRow:
    result = pack(PackRequest(paths=(folder,), query=query, budget_tokens=budget), cache_dir)
    evidence = tuple(item for chosen in result.chosen for item in chosen.view.evidence)
    counted = tokens.count(result.content)
    failure = check_evidence(evidence, folder)
    if not failure and counted != result.tokens:
        failure = f"the document has {counted} tokens, the pack reported {result.tokens}"
    if not failure and counted > budget:
        failure = f"{counted} tokens over a budget of {budget}"
    return PackRow(
        query=query,
        budget_tokens=budget,
        tokens=counted,
        files_shown=len(result.chosen),
        candidates=result.candidates,
        pointers_checked=len(evidence),
        status=Status.FAIL if failure else Status.PASS,
        failure=failure,
    )


def pack_rows(folder: Path, cache_dir: Path) -> list[PackRow]:
    """One row per query and budget, packing every file under `folder`."""
    return [pack_row(folder, query, budget, cache_dir) for query in QUERIES for budget in BUDGETS]
