"""Which lines of a run stand out by a quantity: the slowest query, the biggest allocation.

A fold keeps in view the lines whose quantity (a time, a size, a count of things) is far
beyond the rest of their run (`outliers`): a count alone would hide the one that matters.
Units of one kind share a scale (`1.5 s` is 1500 ms), so that lines mixing them compare.
"""

from __future__ import annotations

from collections.abc import Sequence

from tokenlab.patterns import compile_on_use

# A quantity: a number with a unit of time or size, a share, or a count of things. Units
# of one kind share a scale (`1.5 s` is 1500 ms), so that lines mixing them compare.
_QUANTITY_RE = compile_on_use(
    r"(?<![\w.:/-])(\d+(?:\.\d+)?) ?(ns|us|µs|ms|s|secs?|seconds?|mins?|minutes?|[kKMGT]i?B|B|bytes|%"
    r"|rows|buffers|pages|blocks|records|tuples|items|objects|requests|messages|retries|attempts)(?![\w%])"
)
_SECOND = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "ms": 1e-3,
    "min": 60.0,
    "mins": 60.0,
    "minute": 60.0,
    "minutes": 60.0,
}
_BYTE = {"B": 1.0, "bytes": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def quantities(line: str) -> dict[str, float]:
    """The largest quantity of each kind in `line` (`time`, `size`, `%` or the counted
    noun), on that kind's scale."""
    found: dict[str, float] = {}
    for match in _QUANTITY_RE.finditer(line):
        number, unit = float(match[1]), match[2]
        if unit in _SECOND or unit[0] == "s":
            kind, number = "time", number * _SECOND.get(unit, 1.0)
        elif unit.endswith("B") or unit == "bytes":
            kind, number = "size", number * _BYTE.get(unit if unit in _BYTE else unit[0], 1.0)
        else:
            kind = unit
        found[kind] = max(number, found.get(kind, number))
    return found


def outliers(lines: Sequence[str], factor: float = 10.0, lead: float = 2.0) -> list[int]:
    """Positions of the lines holding a quantity far beyond the others of its kind in
    `lines`: at least `factor` times their median, or their maximum when it is at least
    `lead` times the next largest. The slowest query, the biggest allocation."""
    by_kind: dict[str, list[tuple[float, int]]] = {}
    for position, line in enumerate(lines):
        for kind, number in quantities(line).items():
            by_kind.setdefault(kind, []).append((number, position))
    found: set[int] = set()
    for measured in by_kind.values():
        if len(measured) < 2:
            continue  # nothing to compare with
        measured.sort()
        median = measured[(len(measured) - 1) // 2][0]
        found.update(position for number, position in measured if median > 0 and number >= factor * median)
        top, runner_up = measured[-1][0], measured[-2][0]
        if top > 0 and top >= lead * runner_up:
            found.add(measured[-1][1])
    return sorted(found)
