"""line_shapes: summary words, locations, slots, and lines cut at their width read as one shape."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tokenlab.optimizers.lines import shapes as line_shapes
from tokenlab.optimizers.lines import shown as line_shown
from tokenlab.optimizers.lines import values as line_values


def test_a_count_after_its_noun_behind_an_info_sign_is_a_summary() -> None:
    assert line_shapes.is_summary("ℹ fail 24") and line_shapes.is_summary("# tests 10")
    assert not line_shapes.is_summary("ℹ duration_ms 757.26")


LOCATION_VALUES = [
    "src/a.c:12:5",
    "pkg/m.py:40",
    "src/a.ts(12,5)",
    "a.py: line 3, col 4",
    "C:/work/b.c:3:1",
    "x:y/z.rs:7",
    "a.c:3:",
    "not a location",
    "",
    "src/a.c:12:5\nb.c:3",
    "a.b(c.d:4",
    "abc:1",
    "a:b.c:1",
    "a.b:c:1",
    "a.c:1:2:3",
    "a.c:1(2,3)",
    "a.c:1.2",
]


def test_location_parts_are_each_values_file_and_place_when_all_are_locations() -> None:
    for value in LOCATION_VALUES:
        match = line_shapes.LOCATION_VALUE_RE.fullmatch(value)
        assert line_shapes.location_parts([value]) == ([(match[1], match[2])] if match else None), value
    located = [v for v in LOCATION_VALUES if line_shapes.is_location(v)]
    assert len(located) >= 6
    expected = [line_shapes.LOCATION_VALUE_RE.fullmatch(v).groups() for v in located]  # type: ignore[union-attr]
    assert line_shapes.location_parts(located) == expected
    assert line_shapes.location_parts([*located, "plain"]) is None
    assert line_shapes.location_parts(["plain", *located]) is None


def _located_one_by_one(values: list[str]) -> list[tuple[str, str]] | None:
    found = [line_shapes.LOCATION_VALUE_RE.fullmatch(value) for value in values]
    return [(match[1], match[2]) for match in found if match] if all(found) else None


@given(st.lists(st.text(alphabet="ab./:(),0123 \nline", max_size=14), min_size=1, max_size=6))
def test_location_parts_read_in_one_scan_are_those_read_one_by_one(values: list[str]) -> None:
    assert line_shapes.location_parts(values) == _located_one_by_one(values)


@given(st.lists(st.from_regex(r"[ab./:(]{0,6}[./]?[ab./]{0,4}(:[0-9]{1,3}){0,3}", fullmatch=True), min_size=1, max_size=6))
def test_location_parts_of_plain_locations_are_those_read_one_by_one(values: list[str]) -> None:
    assert line_shapes.location_parts(values) == _located_one_by_one(values)


def test_slots_of_lines_that_repeat_what_follows_their_location_are_each_lines_own() -> None:
    lines = [
        "src/a.c:12:5: warning: unused variable 'v3' [-Wunused-variable]",
        "src/b.c:9:1: warning: unused variable 'v3' [-Wunused-variable]",
        "src/b.c:9:1: error: 'v7' undeclared (first use in this function)",
        "  note: see 12 and 'v3'",
    ]
    seen = line_shapes.SlotsSeen()
    for line in lines * 2:
        found = line_shapes.slots(line, seen)
        assert found == line_shapes.slots(line)
        constants, values = found
        assert "".join(c + v for c, v in zip(constants, values)) + constants[-1] == line
    first, again = line_shapes.slots(lines[0], seen), line_shapes.slots(lines[0], seen)
    assert first == again and first[0] is not again[0] and first[1] is not again[1]


# --- lines their tool cut to its width -------------------------------------------------------


_CUT_LINES = [
    # a test runner's short summary, cut at the terminal's width
    "FAILED test_vat.py::test_gross_matches_reference[3-DE] - AssertionError: gros...",
    "FAILED test_vat.py::test_gross_matches_reference[101-DE] - AssertionError: gr...",
    "FAILED test_vat.py::test_gross_matches_reference[10-DE] - AssertionError: gro...",
]


def test_lines_cut_at_several_widths_are_one_shape_shown_at_their_longest_cut() -> None:
    found = line_shapes.varying_slots(_CUT_LINES)
    assert found is not None
    group_line = "[×3] " + (line_values.slots_shown(found, 10) or "")
    assert "AssertionError: gros..." in group_line and "gro..." not in group_line.replace("gros...", "")
    assert line_shown.not_shown(tuple(_CUT_LINES), group_line) == ()
    # Another text cut is no shorter cut of the one shown.
    assert not line_shown.shown_by(_CUT_LINES[0].replace("gros...", "value..."), group_line)


def test_a_server_log_line_cut_at_its_width_is_one_shape_with_its_uncut_values() -> None:
    lines = [
        "2026-01-05 10:00:01 WARN retrying POST /v1/orders/118 after upstream timeout from gatew...",
        "2026-01-05 10:00:09 WARN retrying POST /v1/orders/4471 after upstream timeout from gat...",
    ]
    group_line = line_values.with_values(lines, 10) or ""
    assert "{118, 4471}" in group_line and group_line.endswith("gatew...")
    assert line_shown.not_shown(tuple(lines), group_line) == ()


def test_a_short_line_ending_in_dots_is_a_message_not_a_cut() -> None:
    assert line_shapes.cut_tail("Downloading numpy-2.1.0.tar.gz...") is None
    assert line_shapes.varying_slots(["Building wheel for numpy...", "Building wheel for scipy..."]) is None


def test_ids_differing_in_their_letters_are_one_varying_value_each() -> None:
    lines = ["FAILED t.py::test_rate[EUR-10] - boom", "FAILED t.py::test_rate[GBP-25] - boom"]
    found = line_shapes.varying_slots(lines)
    assert found is not None
    split, varying = found
    assert [split[row][1][varying[0]] for row in range(2)] == ["EUR-10", "GBP-25"]
    assert line_values.with_values(lines, 6) == "FAILED t.py::test_rate[{EUR-10, GBP-25}] - boom"
    # Constant texts that differ outside a value's word are another shape.
    assert line_shapes.varying_slots(["run [EUR-10] ok", "walk [GBP-25] ok"]) is None
