"""The multiple-choice knapsack: the greedy stays within capacity and close to the exact optimum."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tokenlab.pack.knapsack import Option, exact, greedy, hull, total

options = st.lists(
    st.builds(Option, st.integers(min_value=1, max_value=60), st.floats(min_value=0.0, max_value=10.0)),
    min_size=0,
    max_size=5,
)


@given(st.lists(options, max_size=8), st.integers(min_value=0, max_value=150))
@settings(max_examples=300, deadline=None)
def test_greedy_never_exceeds_capacity_and_keeps_half_of_the_optimum(
    groups: list[list[Option]], capacity: int
) -> None:
    chosen = greedy(groups, capacity)
    cost, value = total(groups, chosen)
    best_cost, best = total(groups, exact(groups, capacity))
    assert cost <= capacity and best_cost <= capacity
    assert value <= best + 1e-9
    assert value >= best / 2 - 1e-9


def test_greedy_is_within_a_few_percent_of_exact_on_pack_like_cases() -> None:
    """Ladders like the packer's (stub < outline < section < full, concave-ish values)."""
    generator = random.Random(15)
    gaps = []
    for _ in range(200):
        groups = []
        for _ in range(generator.randint(3, 12)):
            relevance = generator.random() ** 2
            stub = generator.randint(15, 30)
            ladder = [
                (stub, 0.04),
                (stub + generator.randint(20, 80), 0.2),
                (stub + generator.randint(60, 200), 0.6),
            ]
            ladder.append((ladder[-1][0] + generator.randint(50, 400), 1.0))
            groups.append([Option(cost, relevance * share) for cost, share in ladder])
        capacity = generator.randint(50, 600)
        best = total(groups, exact(groups, capacity))[1]
        found = total(groups, greedy(groups, capacity))[1]
        gaps.append(0.0 if best == 0 else (best - found) / best)
    assert sum(gaps) / len(gaps) < 0.05
    assert max(gaps) < 0.35


def test_hull_drops_dominated_and_concave_points() -> None:
    ladder = [Option(10, 1.0), Option(20, 1.5), Option(25, 1.4), Option(40, 3.5)]
    # (20, 1.5) lies under the line from (10, 1) to (40, 3.5); (25, 1.4) is dominated.
    assert hull(ladder) == [0, 3]


def test_zero_capacity_chooses_nothing() -> None:
    assert greedy([[Option(1, 1.0)], [Option(2, 3.0)]], 0) == [None, None]
    assert exact([[Option(1, 1.0)], [Option(2, 3.0)]], 0) == [None, None]
