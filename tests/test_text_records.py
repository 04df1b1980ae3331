"""Plain text that is a listing of line records: key = value dumps, sorted numeric
listings, tables with a header row, templated diagnostics."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import render_preview
from tokenlab.optimizers import Granularity, OptimizerConfig, OptimizeResult
from tokenlab.optimizers.text.optimizer import optimize
from tokenlab.optimizers.text.record_shapes import Shape, is_failure, records_shape

FIXTURES = Path(__file__).parent.parent / "fixtures"
COARSE = OptimizerConfig(Granularity.COARSE)
FINE = OptimizerConfig(Granularity.FINE)


def _covered(data: bytes, result: OptimizeResult) -> None:
    """Every input line is visible or inside an omission."""
    shown = render_preview(result)
    stored = b"".join(omission.data for omission in result.omissions)
    for line in data.split(b"\n"):
        assert line.decode().rstrip() in shown or line in stored, line


def _env() -> bytes:
    rows = [f"SVC_{i}_URL=http://svc{i}.internal:{8000 + i}/api" for i in range(40)]
    rows += ["APP_ENV=staging", "EXIT_ON_ERROR=1", "CONFIG_ARGS=" + " ".join(f"--with-opt{i}" for i in range(30))]
    return ("\n".join(sorted(rows)) + "\n").encode()


def test_a_key_value_dump_shows_every_key_and_cuts_long_values() -> None:
    data = _env()
    assert records_shape(data.decode()) is Shape.KEY_VALUE
    result = optimize(data, COARSE)
    shown = render_preview(result)
    assert "APP_ENV=staging" in shown and "SVC_39_URL=http://svc39.internal:8039/api" in shown
    assert "CONFIG_ARGS=--with-opt0 " in shown and "--with-opt29" not in shown  # cut, behind a ref
    _covered(data, result)


def test_a_numbered_key_family_folds_between_its_ends_and_names_every_folded_key() -> None:
    data = _env()  # SVC_0 … SVC_39 sorted as text: SVC_0, SVC_1, SVC_10, … SVC_9
    shown = render_preview(optimize(data, COARSE))
    for end in ("SVC_0_URL=", "SVC_9_URL=", "SVC_39_URL="):  # first, last, smallest, largest
        assert end in shown
    assert "SVC_20_URL=" not in shown
    assert "SVC_{1,2,10…38}_URL" in shown and "SVC_{3…8}_URL" in shown  # each folded key by number
    _covered(data, optimize(data, COARSE))


def test_a_failure_inside_a_key_family_stays_and_a_small_family_does_not_fold() -> None:
    rows = [f"NODE_{i}_STATE=ready since 2026-11-30 boot #{i} on rack-a" for i in range(60)]
    rows += [f"DISK_{i}=ok" for i in range(4)]
    rows[7] = "NODE_7_STATE=error: cannot reach node"
    shown = render_preview(optimize(("\n".join(rows) + "\n").encode(), COARSE))
    assert "NODE_7_STATE=error: cannot reach node" in shown and "NODE_12_STATE" not in shown
    assert all(f"DISK_{i}=ok" in shown for i in range(4))


def test_a_sorted_size_listing_keeps_its_large_end_and_path_words_are_no_failures() -> None:
    rows = [f"{4 + i % 7}.0K\t/usr/share/doc/pkg{i}" for i in range(300)]
    rows[100] = "8.0K\t/usr/share/maven-repo/com/google/errorprone/error_prone_annotation"
    rows += [f"{m}M\t/usr/share/big{m}" for m in range(1, 70)] + ["665M\t/usr/share"]
    rows.sort(key=lambda row: float(row.split("\t")[0][:-1]) * (1024 if row.split("\t")[0].endswith("M") else 1))
    data = ("\n".join(rows) + "\n").encode()
    assert records_shape(data.decode()) is Shape.SORTED
    assert not is_failure(rows[101])
    result = optimize(data, COARSE)
    shown = render_preview(result)
    assert "665M\t/usr/share\n" in shown and "69M\t/usr/share/big69" in shown
    assert "errorprone" not in shown  # a word inside a path is no failure to show
    assert len(shown) < len(data) // 4
    _covered(data, result)


def test_a_listing_sorted_by_a_hex_column_keeps_its_largest_rows_and_counts_the_others() -> None:
    kinds = "TTTtDb"
    rows = [f"{0x24F6D0 + (7919 * i) % 99991:016x} {1 + i // 60:016x} {kinds[i % 6]} symbol_{i}" for i in range(400)]
    data = ("\n".join(rows) + "\n").encode()
    assert records_shape(data.decode()) is Shape.SORTED
    result = optimize(data, COARSE)
    shown = render_preview(result)
    assert rows[-1] + "\n" in shown and rows[-30] in shown  # the largest sizes
    assert "symbol_200 " not in shown
    assert "column 3: T ×" in shown and "t ×" in shown and "column 2:" not in shown  # not the key
    _covered(data, result)


def _symbols(kinds: str, names: list[str]) -> list[str]:
    """An `nm -S --size-sort` listing: address, size, type letter, symbol name."""
    return [
        f"{0x44C000 + 0x1A0 * i:016x} {8 + i // 40:016x} {kinds[i % len(kinds)]} {name}"
        for i, name in enumerate(names)
    ]


def test_a_name_column_is_no_status_position() -> None:
    names = [f"symbol_{i}" for i in range(300)]
    names[120:160] = [f"PyExc_{chr(65 + i % 26)}{chr(97 + i // 26)}Error" for i in range(40)]
    rows = _symbols("DdTt", names)
    data = ("\n".join(rows) + "\n").encode()
    assert records_shape(data.decode()) is Shape.SORTED
    result = optimize(data, COARSE)
    shown = render_preview(result)
    assert "PyExc_AaError" not in shown  # a symbol's name, not a failure
    assert not result.signals
    assert rows[-1] in shown


def test_a_few_valued_status_column_still_reports_failures() -> None:
    rows = ["STATE    TRIES  SECONDS  JOB"]
    rows += [
        f"DONE     1      {100 + i:7}  Export{chr(65 + i % 26)}{chr(97 + i // 26)}Error"
        for i in range(60)
    ]
    rows[31] = "FAILED   3          130  ExportEbError"
    data = ("\n".join(rows) + "\n").encode()
    assert records_shape(data.decode()) is Shape.TABLE
    result = optimize(data, COARSE)
    shown = render_preview(result)
    assert rows[31] in shown
    assert rows[31].strip() in result.signals
    assert rows[40] not in shown  # `Error` inside a name is no status


def test_a_sorted_listing_counts_its_few_valued_columns_over_all_rows() -> None:
    rows = _symbols("TTTtDb", [f"symbol_{i}" for i in range(600)])
    data = ("\n".join(rows) + "\n").encode()
    shown = render_preview(optimize(data, COARSE))
    assert "; all 600 rows: column 3: T ×300, t ×100, D ×100, b ×100;" in shown


@pytest.mark.parametrize(
    "name",
    [
        "nm_D_size_sort_libpython311_so.txt",
        "readelf_syms_libpython311_so.txt",
        "objdump_T_libpython311_so.txt",
        "ctags_x_pyerrors_h.txt",
    ],
)
def test_symbol_tables_show_no_symbol_as_a_failure(name: str) -> None:
    result = optimize((FIXTURES / "real" / name).read_bytes(), COARSE)
    assert not any("PyExc_" in signal for signal in result.signals)
    assert sum("PyExc_" in line for line in render_preview(result).splitlines()) <= 3  # a sample


def test_a_long_listing_sorted_by_size_keeps_its_largest_files() -> None:
    rows = [f"-rw-r--r-- 1 root root {90000 - 37 * i:6} Jan  3  2023 file_{i}.so" for i in range(200)]
    data = ("\n".join(rows) + "\n").encode()
    assert records_shape(data.decode()) is Shape.SORTED
    shown = render_preview(optimize(data, COARSE))
    assert rows[0] in shown and rows[10] in shown and rows[150] not in shown


def test_a_table_keeps_its_header_the_largest_rows_and_names_the_folded_rows() -> None:
    rows = ["USER       PID  PPID STAT %CPU   RSS COMMAND"]
    rows += [f"root     {100 + i:5} {1:5} S     0.0 {900 - i:5} worker{i}" for i in range(80)]
    rows[25] = "root       124     1 R    88.0   120 hog"
    data = ("\n".join(rows) + "\n").encode()
    assert records_shape(data.decode()) is Shape.TABLE
    shown = render_preview(optimize(data, COARSE))
    assert rows[0] in shown and rows[1] in shown and rows[25] in shown  # header, top RSS, top %CPU
    assert len(data) > 2048
    assert "COMMAND of the folded rows:" in shown and "worker30" in shown


def test_a_nested_column_keeps_its_outermost_rows() -> None:
    rows = ["import time: self [us] | cumulative | imported package"]
    for top in range(8):
        rows += [f"import time: {10 + j:9} | {10 + j:10} | {'  ' * (1 + j % 3)}mod{top}_{j}" for j in range(12)]
        rows.append(f"import time: {50:9} | {5000 + top:10} | top{top}")
    data = ("\n".join(rows) + "\n").encode()
    assert records_shape(data.decode()) is Shape.TABLE
    shown = render_preview(optimize(data, COARSE))
    assert all(f"| top{top}\n" in shown for top in range(8))


def test_templated_diagnostics_keep_each_shape_and_list_the_folded_values() -> None:
    rows = []
    for unit in range(3):
        rows.append(f"/usr/bin/ld: u{unit}.o: in function `unit{unit}(double)':")
        rows.append(f"u{unit}.cpp:(.text+0x27): undefined reference to `ns{unit}::calc_{unit}_0(double)'")
        rows += [f"/usr/bin/ld: u{unit}.cpp:(.text+0x{40 + i:x}): undefined reference to `ns{unit}::calc_{unit}_{i}(double)'" for i in range(1, 12)]
    rows.append("collect2: error: ld returned 1 exit status")
    data = ("\n".join(rows) + "\n").encode()
    assert records_shape(data.decode()) is Shape.TEMPLATED
    result = optimize(data, COARSE)
    shown = render_preview(result)
    for unit in range(3):  # a shape of few lines shows them all; a run shows its first line
        assert rows[unit * 13] in shown and rows[unit * 13 + 1] in shown and rows[unit * 13 + 2] in shown
    assert "[… 10 lines like the one above: ns0::calc_0_2(double), ns0::calc_0_3(double)," in shown
    assert rows[-2] in shown and rows[-1] in shown  # the last of a shape, the closing line
    assert "collect2: error: ld returned 1 exit status" in result.signals
    assert len(shown) < 0.6 * len(data)
    _covered(data, result)


def test_identical_lines_fold_as_copies() -> None:
    data = b"ERROR something failed\n" * 300
    shown = render_preview(optimize(data, COARSE))
    assert "[… 297 lines, each the same as the one above]" in shown


@pytest.mark.parametrize("name", ["design_notes.md", "real/pydoc_render.txt", "real/git_blame.txt"])
def test_prose_and_documentation_are_not_records(name: str) -> None:
    assert records_shape((FIXTURES / name).read_text(errors="replace")) is None


def test_fine_refs_hold_each_folded_run() -> None:
    rows = [f"{i}K\t/data/d{i}" for i in range(1, 400)]
    data = ("\n".join(rows) + "\n").encode()
    result = optimize(data, FINE)
    runs = [omission.data for omission in result.omissions]
    assert runs and all(run in data for run in runs)
    _covered(data, result)


_ROW = st.sampled_from(
    ["KEY=value", "A_1=" + "x " * 80, "4.0K\t/a/b", "12M\t/a", "USER PID CMD", "root 1 init",
     "x: error: failed", "", "  nested", "plain words here", "import time: 1 | 2 | a"]
)  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(_ROW, min_size=8, max_size=200), st.sampled_from(list(Granularity)))
def test_generated_listings_never_raise_and_stay_covered(rows: list[str], granularity: Granularity) -> None:
    data = ("\n".join(rows) * 4).encode()
    result = optimize(data, OptimizerConfig(granularity))
    _covered(data, result)


def test_a_process_forest_keeps_its_roots_and_cuts_long_rows() -> None:
    rows = ["UID        PID  PPID  C STIME TTY          TIME CMD"]
    for root in range(4):
        rows.append(f"root     {100 * root + 1:>5}     1  0 13:27 ?        00:00:00 /usr/sbin/daemon{root} " + "--flag " * 60)
        rows += [f"root     {100 * root + n:>5} {100 * root + 1:>5}  0 13:27 ?        00:00:00  \\_ worker {n}" for n in range(2, 20)]
        rows.append(f"root     {100 * root + 50:>5} {100 * root + 19:>5}  0 13:27 ?        00:00:00      \\_ sleep 5")
    shown = render_preview(optimize(("\n".join(rows) + "\n").encode(), COARSE))
    for root in range(4):
        assert f"/usr/sbin/daemon{root} --flag" in shown
    assert "--flag " * 40 not in shown and "--flag …" in shown  # cut, behind the ref


@pytest.mark.parametrize(
    ("header", "row"),
    [
        ("USER       PID  PPID STAT %CPU   RSS COMMAND", "root     {pid:5}     1 S     0.0 {size:5} {name}"),
        (
            "COMMAND     PID USER   FD   TYPE DEVICE SIZE/OFF    NODE NAME",
            "python3.1 14995 root  {pid:3}u   REG  254,0 {size:8} {pid:7} {name}",
        ),
    ],
)
def test_folded_names_past_the_listed_ones_say_in_how_many_rows_they_are(header: str, row: str) -> None:
    names = [f"worker-{chr(97 + i % 26)}{i // 26}" for i in range(150)]  # names, not paths
    names[100:100] = ["idle"] * 3  # one name in three rows, past the names listed
    rows = [header] + [row.format(pid=100 + i, size=900 - i, name=name) for i, name in enumerate(names)]
    shown = render_preview(optimize(("\n".join(rows) + "\n").encode(), COARSE))
    more = re.search(r" of the folded rows: .*, … \+(\d+) names in (\d+) rows; all of it: ", shown)
    assert more is not None and int(more[2]) == int(more[1]) + 2
    assert "idle" not in shown


def test_folded_names_each_in_one_row_are_counted_as_before() -> None:
    rows = ["USER       PID  PPID STAT %CPU   RSS COMMAND"]
    rows += [f"root     {100 + i:5}     1 S     0.0 {900 - i:5} worker{i}" for i in range(150)]
    shown = render_preview(optimize(("\n".join(rows) + "\n").encode(), COARSE))
    assert re.search(r", … \+\d+; all of it: ", shown)


@pytest.mark.parametrize(
    ("rows", "said"),
    [
        (  # open files: mapped ones apart from the few open by number
            ["COMMAND   PID USER   FD   TYPE DEVICE SIZE/OFF    NODE NAME"]
            + [f"worker  4100 root  mem    REG  254,0 {5000 + i:8} {700 + i:7} /usr/lib/libm{i}.so" for i in range(60)]
            + [f"worker  4100 root {fd:>4}   CHR    1,3      0t0       3 /dev/null" for fd in ("0r", "1w", "2w")]
            + ["worker  4100 root   3r   REG  254,0     4096     812 /srv/app.db"],
            ["FD of the folded rows: mem ×", ", 0r, 1w, 2w", "TYPE of the folded rows: REG ×"],
        ),
        (  # processes: the few in another state than sleeping
            ["USER       PID  PPID STAT %CPU   RSS COMMAND"]
            + [f"root     {100 + i:5} {1:5} {'D' if i in (20, 40) else 'S':4} 0.0 {900 - i:5} worker{i}" for i in range(80)],
            ["STAT of the folded rows: S ×", ", D ×2"],
        ),
    ],
)
def test_a_table_counts_the_few_values_of_its_folded_rows_per_column(rows: list[str], said: list[str]) -> None:
    """Which rows are of which kind (mapped or open files, sleeping or blocked processes)
    is read from a column before the names: its values are counted, numbers aside."""
    data = ("\n".join(rows) + "\n").encode()
    assert records_shape(data.decode()) is Shape.TABLE
    shown = render_preview(optimize(data, COARSE))
    assert all(part in shown for part in said)
    assert "USER of the folded rows" not in shown and "PID of the folded rows" not in shown


@pytest.mark.parametrize(
    ("header", "row"),
    [
        (  # open files of a process
            "COMMAND     PID USER   FD   TYPE DEVICE SIZE/OFF    NODE NAME",
            "python3.1 14995 root  mem    REG  254,0 {size:8} {node:7} {name}",
        ),
        ("  PID   RSS EXE", "{node:5} {size:5} {name}"),  # processes by their executable
    ],
)
def test_folded_path_names_are_listed_by_folder_with_their_counts(header: str, row: str) -> None:
    """How many rows are under a folder, and which files, stays readable however many rows fold."""
    tree = "/opt/venv/lib/python3.11/site-packages/"
    libraries = [f"/usr/lib/x86_64-linux-gnu/lib{word}.so.3" for word in "abcdefghijklmnopqrstuvwxyz"]
    names = libraries[:13] * 3 + [f"{tree}numpy/random/m{i}.cpython-311-x86_64-linux-gnu.so" for i in range(9)]
    names += [f"{tree}scipy/linalg/_{word}.cpython-311-x86_64-linux-gnu.so" for word in ("fblas", "flapack", "expm") * 4]
    names += ["/dev/null"] * 3 + libraries[13:] * 3
    # The libraries are the largest rows and stand at both ends: the rows kept are theirs.
    sizes = [200 + i if "/lib/" in name else 100 for i, name in enumerate(names)]
    rows = [header] + [row.format(size=size, node=size, name=name) for size, name in zip(sizes, names, strict=True)]
    shown = render_preview(optimize(("\n".join(rows) + "\n").encode(), COARSE))
    footer = shown[shown.index("of the folded rows, by folder: ") :]
    assert f"(… = {tree})" in footer
    assert "…/numpy/random/ (9, each ending .cpython-311-x86_64-linux-gnu.so): m{0…8}" in footer
    assert "…/scipy/linalg/ (12, each ending .cpython-311-x86_64-linux-gnu.so): _fblas ×4, _flapack ×4, _expm ×4" in footer
    assert "/dev/ (3): null ×3" in footer
    folded = re.search(r"/usr/lib/x86_64-linux-gnu/ \((\d+)\): ([^;\]]*)", footer)
    assert folded is not None
    shown_rows = sum(f"/usr/lib/x86_64-linux-gnu/lib{word}.so.3\n" in shown for word in "abcdefghijklmnopqrstuvwxyz")
    assert int(folded[1]) + shown_rows >= 78 - 3  # the largest rows are shown whole
    assert all(f"lib{word}.so.3" in folded[2] for word in "klmnopq")


def _lsof_maps(sizes: list[int]) -> bytes:
    header = "COMMAND     PID USER   FD   TYPE DEVICE SIZE/OFF    NODE NAME"
    rows = [
        f"python3 14995 root  mem    REG  254,0 {size:>8} {9000000 - 7 * n:>7} /usr/lib/x{n % 7}/lib{n}.so"
        for n, size in enumerate(sizes)
    ]
    return ("\n".join([header, *rows]) + "\n").encode()


def test_a_table_footer_says_the_largest_size_of_its_folded_rows() -> None:
    sizes = [(n * 7919) % 100_000 + 100 for n in range(90)]
    result = optimize(_lsof_maps(sizes), COARSE)
    shown = render_preview(result)
    footer = shown.splitlines()[-1]
    said = re.search(r"largest SIZE/OFF of the folded rows: (\d+);", footer)
    assert said, footer
    visible_sizes = {int(line.split()[6]) for line in shown.splitlines()[1:] if line.startswith("python3")}
    assert int(said[1]) == max(size for size in sizes if size not in visible_sizes)
    assert int(said[1]) < max(visible_sizes)  # the largest rows are kept: the bound says so
    # NODE holds numbers too, larger ones, but names no size.
    assert "NODE of the folded rows" not in footer and "900" not in said[0]
