"""What a folded listing's note counts (`listing_counts`): the values of its few-valued
columns and of name-value rows, the names its rows lead, its largest sizes; repeated rows
counted as every row would be."""

from __future__ import annotations

import pytest

from tests.conftest import render_preview
from tokenlab.optimizers import Granularity, OptimizerConfig
from tokenlab.optimizers.text.listing_counts import column_summary, lead_names, size_extremes, value_summary
from tokenlab.optimizers.text.optimizer import optimize

COARSE = OptimizerConfig(Granularity.COARSE)


def test_column_summary_names_states_not_names() -> None:
    rows = [f"{name} 1.0 amd64 [installed]".encode() for name in ("a", "b", "c", "d")]
    summary, rare = column_summary(rows, 2)
    assert summary == "column 2: 1.0 ×4; column 3: amd64 ×4; column 4: [installed] ×4"
    assert rare == []


@pytest.mark.parametrize(
    ("rows", "rare_row"),
    [
        # compiler options with their state; one is an alias
        ([f"  -Wopt{i}{' ' * 20}\t\t[{'enabled' if i % 3 else 'disabled'}]" for i in range(60)]
         + ["  -Werror-implicit \t-Werror=implicit"], "  -Werror-implicit \t-Werror=implicit"),
        # units with their state; one is masked
        ([f"unit{i}.service{' ' * 8}{'enabled' if i % 4 else 'static'}" for i in range(60)]
         + ["legacy.service          masked"], "legacy.service          masked"),
    ],
)
def test_value_summary_counts_states_and_keeps_the_rows_unlike_them(rows: list[str], rare_row: str) -> None:
    lines = [row.encode() for row in rows]
    summary, rare, _ = value_summary(lines, 2)
    assert summary.startswith("column 2: ")
    assert " ×45" in summary or " ×40" in summary
    assert [rows[at] for at in rare] == [rare_row]


def test_value_summary_reads_no_table_of_several_columns() -> None:
    rows = [f"  {i * 4:03x}:   1 (*global*)      1 (*global*)   {i % 5} (LIB_{i % 5})".encode() for i in range(80)]
    assert value_summary(rows, 2) == ("", [], [])


def _pack_rows(count: int) -> list[bytes]:
    """`git verify-pack -v` rows: sha, type, size, size in pack, offset (rising)."""
    kinds = ("blob", "tree", "commit")
    return [
        f"{i:040x} {kinds[i % 3]:<6} {100 + i * 7 % 900} {60 + i * 5 % 500} {12 + i * 400}".encode()
        for i in range(count)
    ]


def test_a_column_of_sizes_gives_its_range_and_its_largest_row() -> None:
    rows = _pack_rows(200)
    rows[137] = f"{137:040x} blob   2928411 354925 {12 + 137 * 400}".encode()
    summary, largest = size_extremes(rows)
    assert summary == "column 3: 100 to 2,928,411, largest shown; column 4: 60 to 354,925, largest shown"
    assert largest == [137]


def test_a_symbol_tables_sizes_are_summarised_but_not_its_section_numbers() -> None:
    rows = [
        f"{i:6}: {i * 64:016x} {i % 90 * 3:5} FUNC    GLOBAL DEFAULT {12 + i % 9:3} fn_{i}".encode()
        for i in range(300)
    ]
    rows[42] = b"    42: 0000000000105200 58613 FUNC    GLOBAL DEFAULT  12 _PyEval_EvalFrameDefault"
    summary, largest = size_extremes(rows)
    assert summary == "column 3: 0 to 58,613, largest shown"
    assert largest == [42]


def test_line_numbers_are_no_sizes() -> None:
    rows = [
        f"name_{i} variable {(i * 37) % 320 + 2} /usr/include/x.h int name_{i};".encode()
        for i in range(80)
    ]
    assert size_extremes(rows) == ("", [])


def test_a_folded_listing_of_sizes_shows_its_largest_row() -> None:
    rows = _pack_rows(300)
    rows[211] = f"{211:040x} blob   2928411 354925 {12 + 211 * 400}".encode()
    totals = [b"non delta: 120 objects", b"chain length = 1: 180 objects", b"pack-1.pack: ok"]
    result = optimize(b"\n".join([*rows, *totals]) + b"\n", COARSE)
    text = render_preview(result)
    assert f"{211:040x} blob   2928411 354925" in text
    assert "to 2,928,411, largest shown; column 4: 60 to 354,925, largest shown}" in text


def _loader_trace(count: int) -> list[str]:
    """An interpreter's verbose import trace: each module's cache lines, then its import."""
    rows = []
    for at in range(count):
        rows += [f"# /usr/lib/python3/__pycache__/mod{at}.pyc matches /usr/lib/python3/mod{at}.py", f"# code object from 'mod{at}.pyc'"]
        rows.append(f"import 'mod{at}' # <SourceFileLoader object at 0x7f{at:010x}>")
    return rows


def _package_unpacking(count: int) -> list[str]:
    """A package manager's unpacking: three rows per package, one naming it after its verb."""
    rows = []
    for at in range(count):
        rows += [f"Selecting previously unselected package lib{at}.", f"Preparing to unpack .../lib{at}_1.{at}_amd64.deb ..."]
        rows.append(f"Unpacking lib{at} (1.{at}) ...")
    return rows


@pytest.mark.parametrize(
    ("rows", "lead", "names"),
    [(_loader_trace(30), "import ×30", ["'mod0'", "'mod29'"]), (_package_unpacking(30), "Unpacking ×30", ["lib0", "lib29"])],
)
def test_a_listing_naming_a_thing_per_row_lists_the_names_in_order(rows: list[str], lead: str, names: list[str]) -> None:
    """Which modules were loaded, which packages unpacked, before what followed: read in
    the names after the verb the rows share, never in the rows between."""
    said = lead_names([row.encode() for row in rows], 60)
    assert said.startswith(f"{lead}: {names[0]}, ") and said.endswith(f", {names[1]}")


def test_lead_names_past_the_most_lists_the_first_and_the_last() -> None:
    said = lead_names([row.encode() for row in _loader_trace(100)], 30)
    assert ", 'mod9', … +70, 'mod80', " in said and said.endswith("'mod99'")


def test_lead_names_needs_a_name_per_row() -> None:
    rows = [f"status {'ok' if at % 2 else 'done'} after step {at}".encode() for at in range(60)]
    assert lead_names(rows, 60) == ""


@pytest.mark.parametrize(
    ("rows", "said"),
    [
        # compiler options with their state; three are ignored
        (
            [f"  -Wopt{i}{' ' * 20}\t\t[{'enabled' if i % 3 else 'disabled'}]" for i in range(60)]
            + [f"  -Wold{i}{' ' * 20}\t\t[ignored]" for i in range(3)],
            "[ignored] ×3 (-Wold0, -Wold1, -Wold2)",
        ),
        # units with their state; four are masked
        (
            [f"unit{i}.service{' ' * 8}{'enabled' if i % 4 else 'static'}" for i in range(60)]
            + [f"legacy{i}.service          masked" for i in range(4)],
            "masked ×4 (legacy0.service, legacy1.service, legacy2.service, legacy3.service)",
        ),
    ],
)
def test_value_summary_names_the_rows_of_a_value_few_hold(rows: list[str], said: str) -> None:
    """Which names differ from the usual is what a listing of states is asked; the
    common values' rows are counted only."""
    summary, _, named = value_summary([row.encode() for row in rows], 2, named=8)
    assert [rows[at].split()[0] for at in named] == said.split(" (")[1].rstrip(")").split(", ")
    assert said in summary
    assert summary.count("(") == 1
    assert value_summary([row.encode() for row in rows], 2)[0] == summary.replace(f" ({said.split(' (')[1]}", "")


# A listing repeats rows: its summaries count each distinct row once, weighed by how often
# it occurs, and must say what reading every row would.


def test_column_summary_of_repeated_rows_counts_every_row_and_keeps_each_copy_of_a_rare_one() -> None:
    rows = [b"ii  lib  amd64"] * 30 + [b"ii  app  all"] * 10
    rows[7] = rows[25] = b"rc  lib  amd64"
    summary, rare = column_summary(rows, 2)
    assert summary == (
        "column 1: ii ×38, rc ×2; column 2: lib ×30, app ×10; column 3: amd64 ×30, all ×10"
    )
    assert rare == [7, 25]


def test_size_extremes_of_repeated_rows_weighs_the_median_and_shows_the_first_largest_row() -> None:
    # Nine distinct sizes: 1 to 8 once each and 10 on most rows, so that the median is 10
    # only when rows are weighed; the largest, 400, a hundred times the smallest, stands twice.
    rows = [b"blob 10"] * 40 + [f"blob {size}".encode() for size in range(1, 9)] + [b"blob 400"] * 2
    rows[3], rows[44] = rows[44], rows[3]  # `blob 5` early, one `blob 10` late
    summary, largest = size_extremes(rows)
    assert summary == "column 2: 1 to 400, largest shown"
    assert largest == [48]
    # Weighed, the median is 10 and 400 is not ten times it: no column of sizes.
    assert size_extremes(rows[:40] + rows[40:48] + [b"blob 99"] * 2)[0] == ""


def test_value_summary_of_repeated_rows_names_each_row_of_a_rare_value_in_order() -> None:
    rows = [b"-Wall   [enabled]"] * 20 + [b"-Wextra   [disabled]"] * 12
    rows[4] = rows[30] = b"-Wshadow   [ignored]"
    assert value_summary(rows, 1, named=3) == (
        "column 2: [enabled] ×19, [disabled] ×11, [ignored] ×2 (-Wshadow, -Wshadow)",
        [],
        [4, 30],
    )
    assert value_summary(rows, 2, named=3) == ("column 2: [enabled] ×19, [disabled] ×11", [4, 30], [])


def test_value_summary_says_the_usual_value_is_every_other_rows_once_the_others_are_named() -> None:
    """What a listing's name holds is read wherever its row folds: the usual value's rows
    are the rest once every other value names its rows; a long list says the start its
    names share once."""
    rows = [f"  -Wopt{i:02d}{' ' * 20}\t\t[disabled]".encode() for i in range(50)]
    rows[3::4] = [f"  -Wuse{i:02d}\t\t[enabled]".encode() for i in range(len(rows[3::4]))]
    rows[2] = b"  -Walias\t\t-Wother"
    summary, rare, named = value_summary(rows, 2, named=20)
    assert summary.startswith("column 2: [disabled] ×37 (every row not named or shown), [enabled] ×12 (-Wuse…: 00, ")
    assert rare == [2] and named == list(range(3, 50, 4))
    assert "every row" not in value_summary(rows, 2, named=8)[0]  # twelve rows [enabled]: not named


def test_lead_names_of_repeated_rows_counts_every_row_and_lists_each_name_once() -> None:
    rows = [b"import os", b"import sys", b"import os", b"import json", b"# banner"] * 4
    assert lead_names(rows, 10) == ""  # twelve imports name three things: no naming listing
    rows = [f"import m{i}".encode() for i in range(12)] + [b"import m3"]
    assert lead_names(rows, 20) == "import ×13: m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11"


def test_value_summary_names_rows_of_the_fewest_values_first_within_its_bound() -> None:
    values = ["on"] * 30 + ["off"] * 12 + ["masked"] * 5 + ["static"] * 10
    rows = [f"unit{at}.service        {value}".encode() for at, value in enumerate(values)]
    summary, _, named = value_summary(rows, 2, named=16)
    assert "masked ×5 (unit42.service, " in summary and "static ×10 (unit…: 47.service, " in summary
    assert "off ×12 (" not in summary and "every row" not in summary
    assert named == list(range(42, 57))
