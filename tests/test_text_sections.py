"""text sections: a dump's small sections stay whole, its large repetitive ones fold."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Golden, render_preview
from tokenlab.optimizers import Granularity, OptimizerConfig
from tokenlab.optimizers.text.optimizer import optimize
from tokenlab.optimizers.text.sections import (
    SectionLimits,
    SectionPlan,
    plan_sections,
    section_starts,
    sections,
    status_rows,
)

COARSE = OptimizerConfig(Granularity.COARSE)
FIXTURES = Path(__file__).parent.parent / "fixtures"
# Dumps of sections of very different sizes, captured on this machine (signals written
# before any run): query plans with their bytecode, a binary's headers and version needs,
# library lists, a syscall count table.
CAPTURES = [
    "real/sqlite3_eqp_full_shop_orders.txt",
    "real/readelf_h_l_d_V_W_ssh.txt",
    "real/ldd_v_psql15.txt",
    "real/strace_c_f_sh_ls_cat_python.txt",
]


def _lines_of(text: str) -> tuple[bytes, list[bytes], Callable[[int], int]]:
    """The text as the optimizer reads it: its bytes, its lines, and the line at a position."""
    data = text.encode()
    lines = data.split(b"\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def line_at(position: int) -> int:
        return max(index for index, start in enumerate(starts) if start <= position)

    return data, lines, line_at


def _ranges(text: str) -> list[list[str]]:
    data, lines, line_at = _lines_of(text)
    found = sections(lines, section_starts(data, lines, line_at, {}))
    return [[line.decode() for line in lines[first:end]] for first, end in found]


def test_a_table_header_over_a_rule_starts_a_section_and_a_row_without_columns_ends_it() -> None:
    text = (
        "QUERY PLAN\n`--SCAN t\naddr  opcode  p1\n----  ------  --\n"
        "0     Init    0\n1     Halt    0\n3933\n"
    )
    assert _ranges(text) == [
        ["QUERY PLAN", "`--SCAN t"],
        ["addr  opcode  p1", "----  ------  --", "0     Init    0", "1     Halt    0"],
        ["3933"],
    ]


def test_a_label_with_deeper_lines_under_it_starts_a_section() -> None:
    text = (
        "\tlibz.so.1 => /lib/libz.so.1\n\tVersion information:\n"
        "\t/usr/bin/x:\n\t\tlibc.so.6 (GLIBC_2.34)\n"
    )
    assert _ranges(text) == [
        ["\tlibz.so.1 => /lib/libz.so.1"],
        ["\tVersion information:"],
        ["\t/usr/bin/x:", "\t\tlibc.so.6 (GLIBC_2.34)"],
    ]


def test_a_psql_table_footer_ends_its_table() -> None:
    text = " id | name\n----+------\n  1 | a\n  2 | b\n(2 rows)\n"
    assert _ranges(text) == [[" id | name", "----+------", "  1 | a", "  2 | b"], ["(2 rows)"]]


def test_small_sections_whole_the_largest_left_a_series_first_whole_named_others_opened() -> None:
    lines = [b"head"] * 5 + [b"big"] * 200 + [b"/lib/a.so:", b"  x"] * 40 + [b"0 x", b"  y"] * 40
    ranges = [(0, 5), (5, 205), *((205 + 2 * at, 207 + 2 * at) for at in range(80))]
    limits = SectionLimits(series_bytes=100)
    rest = [(205 + 2 * at, 207 + 2 * at) for at in range(1, 40)]  # named: opened; the unnamed are left
    expected = SectionPlan([(0, 5), (205, 207), (285, 287)], rest, [(5, 205)])
    assert plan_sections(lines, ranges, limits) == expected


def test_the_budget_keeps_larger_sections_whole_smallest_first() -> None:
    lines = [b"a" * 49] * 40 + [b"b" * 49] * 50 + [b"c" * 49] * 210
    ranges = [(0, 40), (40, 90), (90, 300)]
    limits = SectionLimits(budget_bytes=4000, budget_share=0.0)
    assert plan_sections(lines, ranges, limits).whole == [(0, 40)]
    larger = SectionLimits(budget_bytes=4600, budget_share=0.0)
    assert plan_sections(lines, ranges, larger).whole == [(0, 40), (40, 90)]


def _plan_dump() -> bytes:
    """Query plans of 2-5 lines, each followed by a long bytecode listing (sqlite3 .eqp full)."""
    parts = []
    for query in range(6):
        steps = range(query % 4 + 1)
        tree = ["QUERY PLAN", *(f"|--SEARCH t{query}_{step} USING INDEX i{step} (id=?)" for step in steps)]
        tree.append(f"`--USE TEMP B-TREE FOR ORDER BY q{query}")
        opcodes = ("Column", "Next", "Goto")
        rows = [f"{row:<6}{opcodes[row % 3]:<15}{row % 5:<6}{row * 3:<6}0" for row in range(50)]
        header = ["addr  opcode         p1    p2    p3", "----  -------------  ----  ----  ----"]
        parts += [*tree, *header, *rows, f"{query}|1500{query}"]
    return ("\n".join(parts) + "\n").encode()


def test_every_plan_tree_and_result_of_a_plan_dump_stays_whole_while_listings_fold() -> None:
    data = _plan_dump()
    text = render_preview(optimize(data, COARSE))
    for query in range(6):
        assert f"`--USE TEMP B-TREE FOR ORDER BY q{query}" in text
        for step in range(query % 4 + 1):
            assert f"|--SEARCH t{query}_{step} USING INDEX i{step} (id=?)" in text
        assert f"{query}|1500{query}" in text
    assert text.count("Column") < 60  # the listings fold
    assert len(text) < len(data) / 3


def _elf_dump() -> bytes:
    """A header section, a small version-needs section and a huge relocation table."""
    header = ["ELF Header:", *(f"  Field {i}:{' ' * 20}0x{i:x}" for i in range(18))]
    needs = ["Version needs section '.gnu.version_r' contains 2 entries:"]
    for at in range(36):
        needs.append(f"  0x{at * 16:04x}:   Name: GLIBC_2.{at}  Flags: none  Version: {at + 2}")
    relocs = ["Relocation section '.rela.dyn' at offset 0x89c08 contains 3000 entries:"]
    relocs += [f"{i * 8:016x}  {i:016x} R_X86_64_RELATIVE  {i * 16:x}" for i in range(3000)]
    return ("\n\n".join("\n".join(part) for part in (header, needs, relocs)) + "\n").encode()


def test_a_section_under_the_budget_stays_whole_and_the_largest_folds() -> None:
    text = render_preview(optimize(_elf_dump(), COARSE))
    assert "  0x0110:   Name: GLIBC_2.17  Flags: none  Version: 19" in text  # the middle of version needs
    assert "  Field 9:" in text
    assert text.count("R_X86_64_RELATIVE") < 20


def test_later_members_of_a_large_series_show_their_opening_line() -> None:
    """ldd -v: one section per library; the binary's own whole, the others named."""
    data = (FIXTURES / "real/ldd_v_psql15.txt").read_bytes()
    text = render_preview(optimize(data, COARSE))
    assert "\t\tlibc.so.6 (GLIBC_2.34) => /lib/x86_64-linux-gnu/libc.so.6\n" in text
    assert "\t/lib/x86_64-linux-gnu/libgnutls.so.30: … +" in text
    assert len(text) < len(data) / 3


@pytest.mark.parametrize("granularity", list(Granularity), ids=lambda g: g.value)
@pytest.mark.parametrize("name", CAPTURES)
def test_golden_captures(golden: Golden, name: str, granularity: Granularity) -> None:
    data = (FIXTURES / name).read_bytes()
    text = render_preview(optimize(data, OptimizerConfig(granularity)))
    golden.check(f"text/{Path(name).stem}_{granularity.value}.txt", text)
    signals = (FIXTURES / f"{name}.signals").read_text().splitlines()
    assert [signal for signal in signals if signal not in text] == []


def _status_rows(text: str) -> list[str]:
    data, lines, line_at = _lines_of(text)
    return [lines[index].decode() for index in status_rows(data, lines, line_at)]


def test_rows_with_a_value_under_an_errors_column_are_statuses() -> None:
    table = (
        "% time     seconds  usecs/call     calls    errors syscall\n"
        "------ ----------- ----------- --------- --------- ----------------\n"
        "  3.48    0.006719           3      1994       342 newfstatat\n"
        "  2.67    0.005145           5       994           mmap\n"
        " 77.63    0.149774        1872        80        40 wait4\n"
        "  0.07    0.000144           1        79           set_robust_list\n"
        "------ ----------- ----------- --------- --------- ----------------\n"
        "100.00    0.192934          19      9721      1408 total\n"
    )
    assert _status_rows(table) == [
        "  3.48    0.006719           3      1994       342 newfstatat",
        " 77.63    0.149774        1872        80        40 wait4",
        "100.00    0.192934          19      9721      1408 total",
    ]


def test_rows_with_failures_counted_in_a_left_aligned_column_are_statuses() -> None:
    table = (
        "suite         passed  failed  skipped\n"
        "------------  ------  ------  -------\n"
        "parser        120     0       3\n"
        "lexer         88      2       0\n"
        "codegen       301     0       0\n"
        "\n"
        "error_paths   1       0       0\n"
    )
    assert _status_rows(table) == ["lexer         88      2       0"]


def test_a_table_without_a_failure_column_has_no_status_rows() -> None:
    table = "name   size  errors_seen_in_docs\n----   ----\nerror  12\nfail   13\n"
    assert _status_rows(table) == []


def test_a_label_section_ends_where_lines_come_back_to_its_margin() -> None:
    text = "  @INC:\n    /etc/perl\n    /usr/share/perl5\n  Built under linux\n  Compiled at Apr 12 2025\n"
    assert _ranges(text) == [
        ["  @INC:", "    /etc/perl", "    /usr/share/perl5"],
        ["  Built under linux", "  Compiled at Apr 12 2025"],
    ]


def test_a_folded_section_keeps_its_last_line() -> None:
    """A long list of patches under its label (perl -V): the newest, last, stays."""
    patches = "".join(
        f"    DEBPKG:debian/patch_{i} - [GH #{i}] https://bugs.debian.org/{9000 + i} fix_{i}():"
        " CCFLAGS=-O2 -g -Wl,-z,relro LD_RUN_PATH=/usr/lib/x86_64-linux-gnu\n"
        for i in range(35)
    )
    data = (
        "Summary of my perl5 configuration:\n\n  Platform:\n    osname=linux\n    archname=x86_64\n"
        f"  Locally applied patches:\n{patches}"
        "    DEBPKG:fixes/CVE-2024-56406 - Heap-buffer-overflow with tr//\n"
        "  Built under linux\n  Compiled at Apr 12 2025 15:16:31\n"
    ).encode()
    text = render_preview(optimize(data, COARSE))
    assert "DEBPKG:fixes/CVE-2024-56406 - Heap-buffer-overflow with tr//" in text
    assert text.count("DEBPKG:debian/patch_") < 20


def test_a_quoted_code_line_ending_in_a_colon_is_no_label() -> None:
    text = (
        "click/core.py-1624-        if metavar is None:\n"
        "click/core.py-1625-            if chain:\nclick/core.py-1626-  x = 1\n"
    )
    assert len(_ranges(text)) == 1
