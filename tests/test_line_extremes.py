"""The largest size a fold hides: which column holds sizes, in the shapes of several
tools, and what the fold says of it."""

from __future__ import annotations

import pytest

from tokenlab.optimizers.lines.extremes import Sized, largest_note, names_size, size_column, size_of

# Sizes that follow no order and spread over orders of magnitude, as files' do.
SIZES = [
    4096, 17584, 121280, 631, 25409073, 82, 2275, 9114, 486, 56146, 1224, 3110760, 12316, 133, 66008, 7669,
]


def _rows(template: str) -> list[list[str]]:
    return [template.format(size=size, n=n).split() for n, size in enumerate(SIZES)]


def _human(size: int) -> str:
    return f"{size / 1000:.1f}kB" if size >= 1000 else f"{size}B"


@pytest.mark.parametrize(
    ("rows", "header", "column"),
    [
        # ls -l and tar -tv: plain numbers with no header are not told from ids.
        (_rows("-rw-r--r-- 1 root root {size} Apr 28 2025 file{n}.py"), None, None),
        (_rows("-rw-r--r-- me/staff {size} 2025-09-02 09:14 src/file{n}.c"), None, None),
        # ls -l with a header row added, as a table prints it.
        (
            _rows("-rw-r--r-- 1 root root {size} Apr 28 2025 file{n}.py"),
            "MODE N USER GROUP SIZE MON DAY YEAR NAME",
            4,
        ),
        # unzip -l: the header names the column.
        (_rows("{size} 2025-09-02 09:14 org/A{n}.class"), "Length Date Time Name", 0),
        # lsof: DEVICE, SIZE/OFF and NODE hold numbers; only SIZE/OFF is a size.
        (
            _rows("python3 14995 root mem REG 254,0 {size} 7709{n} /lib/lib{n}.so"),
            "COMMAND PID USER FD TYPE DEVICE SIZE/OFF NODE NAME",
            6,
        ),
        # npm pack --dry-run: sizes carry units.
        ([["npm", "notice", _human(size), f"lib/f{n}.js"] for n, size in enumerate(SIZES)], None, 2),
        # du -h: units on a size that leads the row.
        ([[f"{size // 1024}K", f"./dir{n}"] for n, size in enumerate(SIZES)], None, 0),
    ],
    ids=["ls-l", "tar-tv", "ls-l-headed", "unzip-l", "lsof", "npm-pack", "du-h"],
)
def test_the_size_column_is_found_in_each_tools_rows(
    rows: list[list[str]], header: str | None, column: int | None
) -> None:
    assert size_column(rows, header.split() if header else None) == column


def test_numbers_that_are_ids_or_counters_are_no_sizes() -> None:
    # PIDs and line numbers spread evenly; inode numbers under their header word.
    pids = [[str(4000 + 7 * n), "sleep"] for n in range(40)]
    numbered = [[f"{n + 1}", f"line{n}"] for n in range(40)]
    nodes = [["x", str(size)] for size in SIZES]
    # A share with decimals (`strace -c`'s `% time`) carries no unit.
    shares = [[f"{size / 1e6:.2f}", f"call{n}"] for n, size in enumerate(SIZES)]
    assert size_column(pids) is None
    assert size_column(numbered) is None
    assert size_column(nodes, ["NAME", "NODE"]) is None
    assert size_column(shares) is None
    # Rows that end in a number name nothing: a query's result.
    assert size_column([[f"{size}kB", str(n)] for n, size in enumerate(SIZES)]) is None


def test_header_words_that_name_a_size() -> None:
    assert all(map(names_size, ["SIZE", "SIZE/OFF", "Length", "bytes", "1K-blocks", "RSS"]))
    assert not any(map(names_size, ["PID", "NODE", "INODE", "LINE", "ADDR", "NAME"]))


def test_sizes_compare_on_one_scale_whatever_their_unit() -> None:
    assert size_of("4.0K") == 4096.0
    assert size_of("94.6kB") is not None and size_of("1.2M") is not None
    assert size_of("94.6kB") < size_of("1.2M")  # type: ignore[operator]
    assert size_of("0t0") is None
    assert size_of("254,0") is None


def test_a_fold_names_its_largest_row_only_when_no_row_shown_is_larger() -> None:
    hidden = [Sized("12.3kB", 12300.0, "a.js"), Sized("94.6kB", 94600.0, "docs/config.html"), None]
    assert largest_note(hidden, [Sized("59.7kB", 59700.0, "b.md")]) == "largest 94.6kB docs/config.html"
    assert largest_note(hidden, [Sized("1.2MB", 1.2e6, "c.bin")]) == "largest 94.6kB"
    assert largest_note([None], []) == ""


def test_a_long_path_is_named_by_its_end() -> None:
    name = "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/numpy.libs/libscipy_openblas64_-3.so"
    note = largest_note([Sized("25409073", 25409073.0, name)], [])
    assert note.startswith("largest 25409073 …/")
    assert note.endswith("/numpy.libs/libscipy_openblas64_-3.so")
