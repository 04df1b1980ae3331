"""Columns of a family's values said once by the rule they follow, losslessly."""

from __future__ import annotations

from tokenlab.optimizers.lines import columns


def test_numbered_values_are_said_as_runs_of_one_step() -> None:
    assert columns.progression([f"worker-{n}" for n in range(1, 30)]) == "worker-1–29"
    shards = [f"orders-shard-{n:02}-config" for n in range(2, 25) if n != 17]
    assert columns.progression(shards) == "orders-shard-02–16,18–24-config"
    assert columns.progression([f"[{n}-DE]" for n in range(10, 151, 7)]) == "[10 to 150 step 7-DE]"
    assert columns.progression(["a-13", "a-16", "a-19", "a-22"]) == "a-13,16,19,22"  # as short listed


def test_values_that_are_not_one_progression_have_no_runs() -> None:
    assert columns.progression(["a-1", "b-2", "a-3"]) is None  # the prefix differs
    assert columns.progression(["7", "08", "9"]) is None  # printed unlike
    assert columns.progression(["5", "4", "3"]) is None  # no step forward
    assert columns.progression(["1", "9", "4", "30", "2", "8"]) is None  # too many runs
    assert columns.progression(["v1.2", "v1.3", "v1.4"]) is None  # two numbers
    assert columns.progression(["1", "2"]) is None  # too few to be worth a rule


def test_runs_hold_exactly_the_values_they_stand_for() -> None:
    padded = [f"{n:02}" for n in range(100)]
    assert [v for v in padded if columns.holds("02–16,18–24", v)] == [f"{n:02}" for n in range(2, 25) if n != 17]
    plain = [str(n) for n in range(200)]
    assert [v for v in plain if columns.holds("10 to 150 step 7", v)] == [str(n) for n in range(10, 151, 7)]
    assert [v for v in plain if columns.holds("3,5,9", v)] == ["3", "5", "9"]
    assert not columns.holds("02–24", "5")  # printed otherwise
    assert [v for v in plain if columns.holds("3,40 to 60 step 10,99", v)] == ["3", "40", "50", "60", "99"]
    assert not columns.holds("1–" + "9" * 5000, "12")  # no number that long is read
    assert not columns.holds("1 to 99 step " + "9" * 5000, "1")


def test_values_dealt_in_turn_are_said_as_their_cycle() -> None:
    assert columns.cycle(["a", "b", "c", "a", "b", "c", "a"]) == ["a", "b", "c"]
    assert columns.cycle(["a", "b", "c", "a", "b", "d"]) is None
    assert columns.cycle(["a", "b", "a"]) is None  # the cycle is not seen twice


def test_stretches_of_one_value() -> None:
    assert columns.stretches(["s"] * 4 + ["g"] * 3) == [("s", 4), ("g", 3)]
    assert columns.stretches(["s", "s", "g", "s", "s"]) is None  # a stretch of one
    assert columns.stretches(["a", "a", "b", "b", "c", "c", "d", "d"]) is None  # too many


def test_signed_numbers_are_no_runs() -> None:
    assert columns.progression(["-13", "-16", "-19"]) is None
    assert columns.progression(["at -13", "at -16", "at -19"]) is None
    assert columns.progression(["a-13", "a-16", "a-19", "a-22", "a-25"]) == "a-13 to 25 step 3"


def test_a_value_is_said_by_a_listed_number_plus_the_difference_a_head_names() -> None:
    line = "[×3 more like the one above] E assert # == # {assert # == #+0.01: 23.0 9.2}"
    assert columns.said_by_offset("23.01", line) and columns.said_by_offset("9.21", line)
    assert not columns.said_by_offset("9.22", line)
    assert columns.said_by_offset("33", "{size # != #-3: 16 36}")
    assert not columns.said_by_offset("6", "{slot cache-#+1: 5 7}")  # no comparison before it
