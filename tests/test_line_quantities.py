"""line_quantities: the lines of a run whose quantity stands out, on one scale per kind."""

from __future__ import annotations

from tokenlab.optimizers.lines import quantities as line_quantities


def test_a_quantity_far_beyond_the_median_of_its_kind_is_an_outlier() -> None:
    lines = [f"GET /api/{n} took {ms} ms" for n, ms in enumerate([3, 4, 2, 5, 3, 60, 4, 70])]
    assert line_quantities.outliers(lines) == [5, 7]


def test_the_maximum_is_an_outlier_when_it_stands_out_and_units_share_a_scale() -> None:
    assert line_quantities.outliers(["waited 514 ms", "query took 1.6 s", "checkpoint 84 ms"]) == [1]
    assert line_quantities.outliers(["waited 514 ms", "query took 0.6 s", "checkpoint 84 ms"]) == []
    assert line_quantities.quantities("wrote 1138 buffers (6.9%) in 2 MiB, 0.007 s") == {
        "buffers": 1138.0, "%": 6.9, "size": 2e6, "time": 0.007,
    }  # fmt: skip


def test_numbers_without_a_unit_are_never_compared() -> None:
    assert line_quantities.outliers(["process 5 started", "process 58123 started", "at 18:52:49.191 UTC"]) == []
