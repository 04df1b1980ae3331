"""Ranked outlines against file order, on the 60 largest standard-library modules.

For each module, keep a quarter of its outline entries three ways and measure the share
of the file's lines the kept entries span:
- ranked: `tokens read`'s order now (`reads.rank`: size, references, visibility, kind);
- file order: the first quarter of the entries as they appear in the file;
- breadth first: every top-level entry before any child (the order before ranking).
Then, at the budget that ranked quarter costs, the same comparison through `tokens read`
itself (what an agent gets), against file order cut to the same budget.

    .venv/bin/python bench/pack_outline_check.py [--count 60]
"""

from __future__ import annotations

import argparse
import statistics
import sysconfig
from dataclasses import replace
from pathlib import Path

from tokenlab.counting import tokens
from tokenlab.reads.ladder import OutlineRungs, rebuild
from tokenlab.reads.outline import outline, render_outline
from tokenlab.reads.symbols import Symbol, walk


def covered(symbols: tuple[Symbol, ...]) -> int:
    lines: set[int] = set()
    for symbol in walk(symbols):
        lines.update(range(symbol.start_line, symbol.end_line + 1))
    return len(lines)


def file_order(rungs: OutlineRungs, count: int) -> tuple[Symbol, ...]:
    keep = {id(symbol) for symbol in walk(rungs.outline.symbols)[:count]}
    return rebuild(rungs.levels, lambda _, __, symbol: id(symbol) in keep)


def breadth_first(rungs: OutlineRungs, count: int) -> tuple[Symbol, ...]:
    kept, remaining = [], count
    for level in rungs.levels:
        kept.append(min(len(level), remaining))
        remaining -= kept[-1]
    return rebuild(rungs.levels, lambda depth, index, _: index < kept[depth])


def fit_file_order(rungs: OutlineRungs, budget: int) -> tuple[Symbol, ...]:
    """The longest file-order prefix whose rendering fits `budget`."""
    low, high, best = 1, rungs.total, file_order(rungs, 1)
    while low <= high:
        middle = (low + high) // 2
        symbols = file_order(rungs, middle)
        if tokens.count(render_outline(replace(rungs.outline, symbols=symbols))) <= budget:
            best, low = symbols, middle + 1
        else:
            high = middle - 1
    return best


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=60)
    args = parser.parse_args()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(
        (
            path
            for path in stdlib.rglob("*.py")
            if "site-packages" not in path.parts and "test" not in path.parts
        ),
        key=lambda path: -path.stat().st_size,
    )[: args.count]
    shares: dict[str, list[float]] = {"ranked": [], "file order": [], "breadth first": [], "budget ranked": [],
                                      "budget file order": []}  # fmt: skip
    wins = budget_wins = 0
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        rungs = OutlineRungs(outline(path.name, text), text)
        lines = max(1, text.count("\n"))
        quarter = max(1, rungs.total // 4)
        ranked = covered(rungs.kept(quarter))
        shares["ranked"].append(ranked / lines)
        shares["file order"].append(covered(file_order(rungs, quarter)) / lines)
        shares["breadth first"].append(covered(breadth_first(rungs, quarter)) / lines)
        wins += ranked > covered(file_order(rungs, quarter))
        budget = tokens.count(rungs.candidate(quarter).content)
        in_order = covered(fit_file_order(rungs, budget))
        shares["budget ranked"].append(ranked / lines)
        shares["budget file order"].append(in_order / lines)
        budget_wins += ranked > in_order
    print(f"{len(files)} largest standard-library modules ({stdlib}), a quarter of each outline's entries:")
    for name, values in shares.items():
        print(
            f"  {name:18} lines covered: mean {statistics.mean(values):.1%}, median {statistics.median(values):.1%}"
        )
    print(f"  ranked covers more lines than file order in {wins}/{len(files)} modules (same entry count)")
    print(
        f"  ranked covers more lines than file order in {budget_wins}/{len(files)} modules (same token budget)"
    )


if __name__ == "__main__":
    main()
