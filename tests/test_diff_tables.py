"""The diff family's bounded hash table (`optimizers/diff/tables.py`)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tokenlab.optimizers.diff.tables import FirstByKey

KEYS = st.integers(min_value=-(2**63), max_value=2**63 - 1).filter(lambda key: key != -1)


@given(st.lists(KEYS, max_size=3000))
def test_each_key_keeps_the_first_number_recorded_under_it_as_a_dict_does(keys: list[int]) -> None:
    table, expected = FirstByKey(max_keys=1 << 20), dict[int, int]()
    for number, key in enumerate(keys):
        assert table.add(key, number) == expected.get(key)
        expected.setdefault(key, number)
    assert len(table) == len(expected)
    assert all(table.get(key) == number for key, number in expected.items())


def test_keys_that_share_a_slot_are_told_apart_through_growth() -> None:
    table = FirstByKey(max_keys=10_000)
    keys = [slot << 40 for slot in range(5000)] + [-(slot << 40) - 2 for slot in range(5000)]
    for number, key in enumerate(keys):
        assert table.add(key, number) is None
    assert [table.get(key) for key in keys] == list(range(len(keys)))
    assert table.get(7 << 40 | 1) is None


def test_a_full_table_takes_no_new_key_and_keeps_its_own() -> None:
    table = FirstByKey(max_keys=3)
    for number, key in enumerate((10, 20, 30, 40)):
        table.add(key, number)
    assert (table.get(10), table.get(30), table.get(40)) == (0, 2, None)
    assert table.add(20, 9) == 1 and len(table) == 3
