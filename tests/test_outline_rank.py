"""Ranked outlines: when entries must go, the important ones stay (`reads.rank`)."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenlab.reads.ladder import OutlineRungs, symbol_levels
from tokenlab.reads.outline import outline
from tokenlab.reads.rank import priority_order
from tokenlab.reads.symbols import Symbol, walk

SOURCE = (
    """def _tiny():
    return 1


def _other_tiny():
    return 2


class Engine:
    def start(self):
        _spin()
        return self._check()

    def _check(self):
        return True

"""
    + "".join(f"    def step_{n}(self):\n        return {n}\n\n" for n in range(30))
    + """

def _spin():
    pass


def main():
    engine = Engine()
    engine.start()
    Engine().start()
"""
)


def test_a_class_comes_before_tiny_private_functions_and_before_its_own_helpers() -> None:
    found = outline("engine.py", SOURCE)
    levels = symbol_levels(found.symbols)
    order = [levels[depth][index][0].name for depth, index in priority_order(levels, SOURCE)]
    assert order[0] == "Engine"
    assert order.index("main") < order.index("_tiny")
    assert order.index("start") < order.index("_check")
    rungs = OutlineRungs(found, SOURCE)
    two = rungs.candidate(2).content
    assert "class Engine" in two and "function _tiny" not in two
    assert "[+" in two and "symbols not shown" in two


def test_shown_entries_stay_in_file_order() -> None:
    found = outline("engine.py", SOURCE)
    rungs = OutlineRungs(found, SOURCE)
    shown = rungs.kept(6)
    starts = [symbol.start_line for symbol in walk(shown)]
    assert starts == sorted(starts)


@st.composite
def trees(draw: st.DrawFn) -> tuple[Symbol, ...]:
    def build(start: int, depth: int) -> tuple[tuple[Symbol, ...], int]:
        symbols = []
        for n in range(draw(st.integers(0, 4 if depth < 3 else 0))):
            children, end = build(start + 1, depth + 1)
            end = max(end, start + draw(st.integers(0, 30)))
            symbols.append(Symbol("function", f"f{depth}_{n}", start, end, children))
            start = end + 1
        return tuple(symbols), start

    return build(1, 0)[0]


@given(trees())
@settings(max_examples=100, deadline=None)
def test_every_prefix_of_the_order_keeps_parents_before_children(symbols: tuple[Symbol, ...]) -> None:
    levels = symbol_levels(symbols)
    order = priority_order(levels, "")
    assert sorted(order) == sorted((d, i) for d, level in enumerate(levels) for i in range(len(level)))
    seen: set[tuple[int, int]] = set()
    for depth, index in order:
        if depth:
            assert (depth - 1, levels[depth][index][1]) in seen
        seen.add((depth, index))


def _covered(symbols: tuple[Symbol, ...]) -> int:
    lines: set[int] = set()
    for symbol in walk(symbols):
        lines.update(range(symbol.start_line, symbol.end_line + 1))
    return len(lines)


STDLIB = Path(sysconfig.get_paths()["stdlib"])


@pytest.mark.parametrize("name", ["argparse.py", "typing.py", "inspect.py", "tarfile.py", "_pydecimal.py"])
def test_a_quarter_of_the_entries_covers_more_lines_than_file_order(name: str) -> None:
    path = STDLIB / name
    if not path.exists():
        pytest.skip(f"{name} is not in this Python's standard library")
    text = path.read_text(encoding="utf-8")
    rungs = OutlineRungs(outline(name, text), text)
    quarter = max(1, rungs.total // 4)
    ranked = _covered(rungs.kept(quarter))
    in_file_order = _covered(tuple(walk(rungs.outline.symbols)[:quarter]))
    assert ranked >= in_file_order
