"""Records of one skeleton said once: rows pair each record's varying values."""

from __future__ import annotations

from tokenlab.optimizers.lines import records


def _plan_block(index: int, name: str, zone: str) -> list[str]:
    return [
        f"  # data.node[{index}] will be created",
        f'      + name   = "{name}"',
        '      + engine = "redis"',
        f'      + zone   = "{zone}"',
    ]


def test_rows_pair_the_values_of_each_record() -> None:
    found = records.family([_plan_block(0, "cache-0", "eu-1a"), _plan_block(7, "cache-7", "us-2c")])
    assert found is not None
    assert found.rows() == ["data.node[0] name=cache-0 zone=eu-1a", "data.node[7] name=cache-7 zone=us-2c"]
    assert found.headline() == "  # data.node[#] will be created"


def test_constant_values_are_not_listed() -> None:
    found = records.family([_plan_block(1, "a1", "z"), _plan_block(2, "a2", "z")])
    assert found is not None
    assert all("engine" not in row and "zone" not in row for row in found.rows())


def test_another_skeleton_is_no_family() -> None:
    other = [*_plan_block(3, "c3", "z")[:3], '      + size   = "3"']
    assert records.family([_plan_block(1, "a1", "z"), other]) is None
    assert records.family([_plan_block(1, "a1", "z"), _plan_block(2, "a2", "z")[:3]]) is None


def test_a_file_named_on_the_row_before_is_left_out() -> None:
    found = records.family(
        [
            ["--> src/a.rs:4:9", "warning: unused variable: `x1`"],
            ["--> src/a.rs:24:9", "warning: unused variable: `x2`"],
            ["--> src/b.rs:3:1", "warning: unused variable: `x3`"],
        ]
    )
    assert found is not None
    assert found.rows() == ["src/a.rs:4:9 x1", ":24:9 x2", "src/b.rs:3:1 x3"]
    assert found.headline(1) == "warning: unused variable: `#`"


def test_long_ids_show_their_first_digits() -> None:
    found = records.family(
        [
            ["worker[15]: Creation complete [id=2a94559e-4f1c-8a2b-0c3d-1e2f3a4b5c6d]"],
            ["worker[16]: Creation complete [id=013daf7f-4f1c-8a2b-0c3d-1e2f3a4b5c6d]"],
        ]
    )
    assert found is not None
    assert found.rows() == ["worker[15] id=2a94559e…", "worker[16] id=013daf7f…"]
