"""Choosing one view per candidate within a budget: a multiple-choice knapsack.

Each group (a candidate file) offers options (its views), each with an exact token cost
and a value; choosing nothing costs and is worth 0. `greedy` is the classic heuristic:
per group, keep the upper convex hull of (cost, value) from (0, 0); take hull steps in
the order of value gained per token while they fit, skipping a group's later steps once
one does not fit; then spend what is left on the best single upgrade per group. The
answer is compared with the best single option alone (which bounds the greedy's loss to
half of the optimum). `exact` is a dynamic programme over the budget, for tests and the
benchmark's measure of the greedy's gap.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Option:
    cost: int
    value: float


Choice = list[int | None]  # per group: the chosen option's index, or None


def total(groups: Sequence[Sequence[Option]], choice: Choice) -> tuple[int, float]:
    """(cost, value) of a choice."""
    cost, value = 0, 0.0
    for options, picked in zip(groups, choice, strict=True):
        if picked is not None:
            cost += options[picked].cost
            value += options[picked].value
    return cost, value


def hull(options: Sequence[Option]) -> list[int]:
    """Indices of the options on the upper convex hull from (0, 0), by increasing cost."""
    useful = sorted(
        (index for index, option in enumerate(options) if option.value > 0),
        key=lambda index: (options[index].cost, -options[index].value),
    )
    points: list[int] = []
    best = 0.0
    for index in useful:
        if options[index].value <= best:
            continue  # dominated: costs at least as much and is worth no more
        best = options[index].value
        while points and _not_convex(options, points, index):
            points.pop()
        points.append(index)
    return points


def _not_convex(options: Sequence[Option], points: list[int], index: int) -> bool:
    last = options[points[-1]]
    before = options[points[-2]] if len(points) > 1 else Option(0, 0.0)
    new = options[index]
    # The last point lies on or below the line from `before` to `new`.
    left = (last.value - before.value) * (new.cost - before.cost)
    right = (new.value - before.value) * (last.cost - before.cost)
    return left <= right


def greedy(groups: Sequence[Sequence[Option]], capacity: int) -> Choice:
    """A good choice within `capacity` (see the module docstring)."""
    choice: Choice = [None] * len(groups)
    hulls = [hull(options) for options in groups]
    heap: list[tuple[float, int, int]] = []
    for group, points in enumerate(hulls):
        if points:
            first = groups[group][points[0]]
            heapq.heappush(heap, (-_ratio(first.value, first.cost), group, 0))
    used = 0
    while heap:
        _, group, step = heapq.heappop(heap)
        options, points = groups[group], hulls[group]
        current = options[choice[group]].cost if choice[group] is not None else 0  # type: ignore[index]
        target = options[points[step]]
        if used - current + target.cost > capacity:
            continue  # this group's later steps cost even more
        used += target.cost - current
        choice[group] = points[step]
        if step + 1 < len(points):
            following = options[points[step + 1]]
            heapq.heappush(
                heap, (-_ratio(following.value - target.value, following.cost - target.cost), group, step + 1)
            )
    _fill(groups, choice, capacity - used)
    return _at_least_best_single(groups, choice, capacity)


def _ratio(value: float, cost: int) -> float:
    return value / cost if cost > 0 else float("inf")


def _fill(groups: Sequence[Sequence[Option]], choice: Choice, spare: int) -> None:
    """Spend what is left: repeatedly the upgrade that gains most value and still fits."""
    while True:
        best: tuple[float, int, int, int] | None = None
        for group, options in enumerate(groups):
            picked = choice[group]
            current = options[picked] if picked is not None else Option(0, 0.0)
            for index, option in enumerate(options):
                extra = option.cost - current.cost
                gain = option.value - current.value
                if gain > 1e-12 and extra <= spare and (best is None or gain > best[0]):
                    best = (gain, group, index, extra)
        if best is None:
            return
        _, group, index, extra = best
        choice[group] = index
        spare -= extra


def _at_least_best_single(groups: Sequence[Sequence[Option]], choice: Choice, capacity: int) -> Choice:
    _, value = total(groups, choice)
    single: tuple[float, int, int] | None = None
    for group, options in enumerate(groups):
        for index, option in enumerate(options):
            if option.cost <= capacity and (single is None or option.value > single[0]):
                single = (option.value, group, index)
    if single is None or single[0] <= value:
        return choice
    alone: Choice = [None] * len(groups)
    alone[single[1]] = single[2]
    return alone


def exact(groups: Sequence[Sequence[Option]], capacity: int) -> Choice:
    """The optimal choice, by dynamic programming over costs 0..capacity (small cases only)."""
    best = [0.0] * (capacity + 1)
    picks: list[list[int | None]] = []
    for options in groups:
        following = list(best)
        picked: list[int | None] = [None] * (capacity + 1)
        for index, option in enumerate(options):
            if option.cost > capacity:
                continue
            for room in range(option.cost, capacity + 1):
                candidate = best[room - option.cost] + option.value
                if candidate > following[room] + 1e-12:
                    following[room] = candidate
                    picked[room] = index
        picks.append(picked)
        best = following
    choice: Choice = [None] * len(groups)
    room = max(range(capacity + 1), key=lambda spent: (best[spent], -spent))
    for group in range(len(groups) - 1, -1, -1):
        taken = picks[group][room]
        choice[group] = taken
        if taken is not None:
            room -= groups[group][taken].cost
    return choice
