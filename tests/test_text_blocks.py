"""text blocks: record blocks are no paragraphs, small ones stay whole, failure words
count at status positions only, and a long listing's fold counts its columns' values."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import render_preview
from tokenlab.optimizers import Granularity, OptimizerConfig
from tokenlab.optimizers.text.blocks import (
    at_status,
    identity_rows,
    is_prose,
    is_small_listing_of_entries,
    kept_record_lines,
    quoted_value_bodies,
    record_blocks,
)
from tokenlab.optimizers.text.listing_counts import column_summary, lead_names, size_extremes, value_summary
from tokenlab.optimizers.text.optimizer import optimize
from tokenlab.optimizers.text.render import SpanKind, TextSpan, unfold_unprofitable

COARSE = OptimizerConfig(Granularity.COARSE)


def _padded(*blocks: str) -> bytes:
    """Blocks as a document large enough to be outlined (2 KB and more)."""
    filler = "\n".join(f"0x{i:04x} (ENTRY_{i % 3})  value {i * 7}" for i in range(90))
    return ("\n\n".join([*blocks, filler]) + "\n").encode()


@pytest.mark.parametrize(
    "line",
    [
        "The change is mostly plumbing, and the interesting parts come later.",
        "- item 7 of the list in part 3",
        "And more of them.",
    ],
)
def test_prose_lines(line: str) -> None:
    assert is_prose(line.encode())


@pytest.mark.parametrize(
    "line",
    [
        "CREATE TABLE artists (artist_id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);",
        'openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3',
        "        500 http://deb.debian.org/debian bookworm/main amd64 Packages",
        " 0x0000000000000001 (NEEDED)             Shared library: [libz.so.1]",
        "install ok installed\tgdb\t13.1-3\tGNU Debugger",
        "ii  gdb   13.1-3   amd64   GNU Debugger for the programs you write",
    ],
)
def test_record_lines_are_no_prose(line: str) -> None:
    assert not is_prose(line.encode())


@pytest.mark.parametrize(
    "block",
    [
        # a schema dump: statements with no blank line between them
        "CREATE TABLE artists (artist_id INTEGER PRIMARY KEY, name TEXT);\n"
        "CREATE INDEX idx_tracks_album ON tracks(album_id);\n"
        "CREATE VIEW v_top AS SELECT c.customer_id FROM customers c\n/* v_top(customer_id) */;",
        # a package's version table
        "git:\n  Installed: 1:2.39.5-0+deb12u3\n  Candidate: 1:2.39.5-0+deb12u3\n  Version table:\n"
        " *** 1:2.39.5-0+deb12u3 500\n        500 http://deb.debian.org/debian bookworm/main amd64 Packages",
        # a compiler's search list
        '#include <...> search starts here:\n /usr/lib/gcc/x86_64-linux-gnu/12/include\n'
        " /usr/local/include\n /usr/include\nEnd of search list.",
    ],
)
def test_a_small_record_block_stays_whole(block: str) -> None:
    text = render_preview(optimize(_padded("Report of the run", block), COARSE))
    assert block in text


def test_a_large_record_block_keeps_each_records_first_line_and_small_bodies() -> None:
    records = [
        f"pkg{i}:\n  Installed: 1.{i}\n  Candidate: 1.{i + 1}\n  Version table:\n     1.{i + 1} 500\n"
        f"        500 http://deb.debian.org/debian-security bookworm-security/main amd64 Packages"
        for i in range(8)
    ]
    lines = "\n".join(records).encode().split(b"\n")
    kept = kept_record_lines(lines, 0, len(lines))
    assert kept == list(range(len(lines)))  # every record's body is small: all of it stays
    text = render_preview(optimize(_padded("\n".join(records)), COARSE))
    assert "pkg7:\n  Installed: 1.7\n  Candidate: 1.8" in text
    assert "bookworm-security/main amd64 Packages\npkg5:" in text


def test_a_long_listing_is_left_to_sampling_and_its_fold_counts_column_values() -> None:
    rows = [f"ii  lib{i:03d}:amd64  1.{i}-1  {'amd64' if i % 4 else 'all'}  library number {i}" for i in range(300)]
    rows[150] = "rc  oldtool:amd64  0.9-1  amd64  a tool removed but configured"
    text = render_preview(optimize(("\n".join(rows) + "\n").encode(), COARSE))
    # The first row stays as the outline's first line; the fold counts the rows after it.
    assert "… +147 {299 rows from the 2 above on: column 1: ii ×298, rc ×1; column 4: amd64 ×225, all ×74;" in text
    assert rows[150] in text  # the one row in an unusual state
    assert rows[120] not in text


def test_a_table_block_is_no_record_block() -> None:
    rows = [f"{100 + i:5} root      20   0   0.0 S worker_{i}" for i in range(30)]
    lines = "\n".join(rows).encode().split(b"\n")
    assert kept_record_lines(lines, 0, len(lines)) == []


def test_a_large_series_of_alike_blocks_is_folded_by_the_outline() -> None:
    finding = ">> Issue: [B{0:03d}:blacklist] Consider the pickle module.\n   Severity: Low\n   Location: m{0}.py:{0}:0"
    lines = ("\n\n".join(finding.format(i) for i in range(200))).encode().split(b"\n")
    assert record_blocks(lines, bytearray(len(lines))) == []
    few = lines[:11]
    assert record_blocks(few, bytearray(len(few))) == [(0, 3), (4, 7), (8, 11)]


def test_documentation_has_no_record_blocks() -> None:
    prose = "This paragraph explains the design in plain words for the reader.\n" * 20
    lines = (prose + "\nkey_one = 1\nkey_two = 2\n").encode().split(b"\n")
    assert record_blocks(lines, bytearray(len(lines))) == []


@pytest.mark.parametrize(
    ("line", "word"),
    [
        ("error: linker command failed", "error"),
        ("collect2: error: ld returned 1 exit status", "error"),
        ("Status: failed", "failed"),
        ("level=error msg=boom", "error"),
        ("[ERROR] build stopped", "ERROR"),
        ("==42== Invalid read of size 4", "Invalid"),
        ("pkg-a   1.0   FAILED   a package", "FAILED"),
        ("<p>Error code explanation: 500</p>", "Error"),
    ],
)
def test_failure_words_at_status_positions(line: str, word: str) -> None:
    data = line.encode()
    assert at_status(data, data.index(word.encode()), len(word))


@pytest.mark.parametrize(
    ("line", "word"),
    [
        ("ii  libasan8:amd64  12.2.0  amd64  AddressSanitizer -- a fast memory error detector", "error"),
        ("Description: common error description library", "error"),
        ("0000000000012340 T fatal_error_handler", "fatal"),
        ("liberror-perl/oldstable,now 0.17029-2 all [installed,automatic]", "error"),
    ],
)
def test_failure_words_inside_data_are_no_status(line: str, word: str) -> None:
    data = line.encode()
    assert not at_status(data, data.index(word.encode()), len(word))


def test_rows_naming_errors_are_not_kept_and_failure_phrases_are() -> None:
    rows = [f"ii  pkg{i:03d}  1.{i}  {'amd64' if i % 2 else 'all'}  tool number {i}" for i in range(200)]
    rows[40] = "ii  liberror-perl  0.17  all  Perl module for error/exception handling"
    rows[90] = "ii  libcom-err2  1.47  amd64  common error description library"
    rows[120] = "dpkg-query: package 'postgresql-16' is not installed and no information is available"
    result = optimize(("\n".join(rows) + "\n").encode(), COARSE)
    text = render_preview(result)
    # (They may stay as lines of a rare shape, but never as failures.)
    assert result.signals == (rows[120],)
    assert rows[120] in text


def test_a_syscalls_failure_is_kept() -> None:
    calls = [f'openat(AT_FDCWD, "/usr/lib/lib{i}.so", O_RDONLY|O_CLOEXEC) = 3' for i in range(80)]
    calls[50] = 'openat(AT_FDCWD, "/etc/app/override.ini", O_RDONLY) = -1 ENOENT (No such file or directory)'
    text = render_preview(optimize(("\n".join(calls) + "\n").encode(), COARSE))
    assert calls[50] in text


def test_a_fold_of_one_short_record_line_is_not_made() -> None:
    blocks = [f"Package: p{i}\nVersion: 1.{i}\nDepends: libc6 (>= 2.{i})\nDescription: tool {i}" for i in range(60)]
    text = render_preview(optimize(("\n\n".join(blocks) + "\n").encode(), COARSE))
    assert "… +1\n" not in text


def test_column_summary_names_states_not_names() -> None:
    rows = [f"{name} 1.0 amd64 [installed]".encode() for name in ("a", "b", "c", "d")]
    summary, rare = column_summary(rows, 2)
    assert summary == "column 2: 1.0 ×4; column 3: amd64 ×4; column 4: [installed] ×4"
    assert rare == []


def test_a_listings_rows_count_nothing_but_a_line_unlike_them_does() -> None:
    rows = [f"install ok installed\tlibp{i}-kit\t0.{i}\tlibrary for {i + 2} modules" for i in range(120)]
    rows[60] = " 3 packages failed to configure"
    result = optimize(("\n".join(rows) + "\n").encode(), COARSE)
    assert result.signals == ("3 packages failed to configure",)


def test_a_section_whose_folds_hide_less_than_their_markers_is_shown_whole() -> None:
    spans = [
        TextSpan(SpanKind.KEEP, 0, 100),
        TextSpan(SpanKind.FOLD, 100, 130),
        TextSpan(SpanKind.KEEP, 130, 400),
        TextSpan(SpanKind.FOLD, 400, 900),
    ]
    kept = unfold_unprofitable(spans, [(0, 300), (300, 900)])
    assert kept == [TextSpan(SpanKind.KEEP, 0, 400), TextSpan(SpanKind.FOLD, 400, 900)]


_NAMES = [
    a + b
    for a in ("err", "warn", "fail", "abort", "trap", "fault", "halt", "drop")
    for b in ("no", "or", "msg", "str", "ctl", "log", "set", "get")
]


@pytest.mark.parametrize(
    "rows",
    [
        # man pages found by a keyword, each with its summary
        [f"{name} (3)   - {('get', 'print', 'return')[len(name) % 3]} the state of {name}" for name in _NAMES[:60]],
        # a report of facts, each a different key
        [f"{name.title()} setting of the cluster:{' ' * 6}{len(name) * 7}" for name in _NAMES[:50]],
    ],
)
def test_a_small_listing_of_distinct_entries_stays_whole(rows: list[str]) -> None:
    lines = [row.encode() for row in rows]
    assert is_small_listing_of_entries(lines, 0, len(lines))
    assert kept_record_lines(lines, 0, len(lines)) == list(range(len(lines)))


def test_a_small_listing_of_repeats_or_a_large_listing_is_sampled() -> None:
    repeats = [f"2024-05-0{i % 9 + 1} 10:00:{i % 60:02d} GET /health 200 {i}ms".encode() for i in range(60)]
    assert not is_small_listing_of_entries(repeats, 0, len(repeats))
    assert kept_record_lines(repeats, 0, len(repeats)) == []
    versions = [f"  {i * 4:03x}:   2 (GLIBC_2.2.5)   {'d' if i % 2 else 'e'} (GLIBC_2.3)".encode() for i in range(60)]
    assert not is_small_listing_of_entries(versions, 0, len(versions))  # hex cells are numbers too
    large = [f"package-{i} - a library for the thing number {i} of many".encode() for i in range(200)]
    assert not is_small_listing_of_entries(large, 0, len(large))


@pytest.mark.parametrize(
    "line",
    ["Database cluster state:               in production", "Latest checkpoint's REDO location:    0/1500718"],
)
def test_a_field_aligned_after_its_colon_is_no_prose(line: str) -> None:
    assert not is_prose(line.encode())


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


def test_a_long_name_value_listing_keeps_its_unusual_values_and_counts_the_rest() -> None:
    rows = [f"  -Wopt{i:03d}{' ' * 20}\t\t[{'enabled' if i % 3 else 'disabled'}]" for i in range(300)]
    for at in range(100, 220, 10):  # aliases, each naming another option: too many values for columns
        rows[at] = f"  -Wold-name{at}               \t\t-Wnew-name={at}"
    text = render_preview(optimize(("Options:\n" + "\n".join(rows) + "\n").encode(), COARSE))
    assert all(rows[at] in text for at in range(100, 220, 10))
    assert re.search(
        r" … \+\d+ \{\d+ rows from the \d+ above on: column 2: \[enabled\] ×\d+ \(every row not named or shown\),"
        r" \[disabled\] ×\d+ \(-Wopt…: \d{3}, [^}]*, 297\)\}\n",
        text,
    )
    assert rows[121] not in text


def _variables(rows: int, named: dict[int, str], source_at: int = -1) -> str:
    """A build tool's variable dump: `NAME "value"` rows, one of them (at `source_at`) a
    quoted C source running on over 60 lines, each `#if` line looking like a heading."""
    lines = []
    for at in range(rows):
        lines.append(named.get(at, f'TOOL_SETTING_{at:03} "-fopt-{at % 7} /usr/lib/x{at}"'))
        if at == source_at:
            lines.append('TOOL_PROBE_CONTENT "#define STRINGIFY(X) #X')
            for arch in range(30):
                lines += [f"#elif defined(__arch{arch}__)", f'# define ARCH_ID "arch{arch}"']
            lines.append('"')
    return "\n".join(lines) + "\n"


def test_rows_naming_what_runs_stay_in_a_long_dump_of_variables() -> None:
    named = {40: 'TOOL_VERSION "3.25.1"', 70: 'TOOL_C_COMPILER_ID "GNU"', 90: 'TOOL_GENERATOR "Unix Makefiles"'}
    data = ("=== VARIABLES\n" + _variables(120, named)).encode()
    text = render_preview(optimize(data, COARSE))
    assert all(row in text for row in named.values())
    assert 'TOOL_SETTING_055 "' not in text  # the other rows fold


def test_rows_naming_what_runs_stay_in_a_runtime_s_properties() -> None:
    # A runtime's settings: indented `key = value` rows, dotted names.
    rows = [f"    app.option{at}.path = /opt/app/lib/module{at}/share" for at in range(100)]
    rows[30], rows[77] = "    java.vm.version = 17.0.2+8", "    os.arch = amd64"
    text = render_preview(optimize(("Property settings:\n" + "\n".join(rows) + "\n").encode(), COARSE))
    assert "java.vm.version = 17.0.2+8" in text and "os.arch = amd64" in text
    assert "app.option50.path" not in text


def test_records_each_with_an_id_are_no_dump_of_what_runs() -> None:
    data = "".join(f"id: {n}\nname: item-{n}\n" for n in range(30)).encode()
    assert identity_rows(data) == []
    assert len(identity_rows(b"x\nTOOL_VERSION \"1\"\nAvoid ctest truncation: X\n")) == 1


def test_a_quoted_value_over_many_lines_folds_behind_its_named_row() -> None:
    data = ("=== VARIABLES\n" + _variables(40, {38: 'TOOL_VERSION "3.25.1"'}, source_at=10)).encode()
    text = render_preview(optimize(data, COARSE))
    assert 'TOOL_PROBE_CONTENT "#define STRINGIFY(X) #X … +' in text
    assert "ARCH_ID" not in text and text.count("full section") == 1  # `# define` lines are no headings
    assert 'TOOL_VERSION "3.25.1"' in text


def test_quoted_value_bodies_in_an_environment_listing() -> None:
    # Another shape: `NAME="…"` rows, one value a multi-line banner; an unbalanced quote
    # in prose opens nothing.
    lines = [b'HOME="/root"', b'MOTD="Welcome', b"# maintenance window", b"on Sunday", b'error budget: 3"', b'PATH="/usr/bin"']
    assert quoted_value_bodies(b"\n".join(lines), lines, lambda at: _line_at(lines, at)) == [(2, 5)]
    prose = [b'He said "stop', b"and then", b"left", b'the room."', b"Then more."]
    assert quoted_value_bodies(b"\n".join(prose), prose, lambda at: _line_at(prose, at)) == []


def _line_at(lines: list[bytes], position: int) -> int:
    """The line holding byte `position` of the lines joined by newlines."""
    return b"\n".join(lines)[:position].count(b"\n")


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


def test_a_patch_named_after_a_security_advisory_stays_among_folded_patches() -> None:
    data = (Path(__file__).parent.parent / "fixtures" / "real" / "perl_V.txt").read_bytes()
    shown = render_preview(optimize(data, COARSE))
    assert "DEBPKG:fixes/CVE-2023-47038 - [7047915]" in shown  # in a path, still an advisory
    assert "DEBPKG:fixes/CVE-2024-56406 - CVE-2024-56406:" in shown
    assert "DEBPKG:fixes/lto-test-fix" not in shown  # the patches around them still fold


def test_a_changelog_entry_naming_a_security_advisory_stays_among_folded_entries() -> None:
    words = "bump pin fix drop add move test build docs port sync tidy rename split merge".split()
    rows = ["  * " + " ".join(words[(i * 7 + k) % 15] for k in range(3 + i % 9)) for i in range(120)]
    rows[70] = rows[70] + " (GHSA-4xqv-2wqm-fm9g)"
    shown = render_preview(optimize(("Changes:\n" + "\n".join(rows) + "\n").encode(), COARSE))
    assert rows[70] in shown
    assert rows[60] not in shown


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


def test_a_verbose_import_trace_names_the_modules_imported_before_its_failure() -> None:
    data = (Path(__file__).parent.parent / "fixtures" / "real" / "python_v_import_verbose_missing_module.log").read_bytes()
    text = render_preview(optimize(data, COARSE))
    note = re.search(r"above on: import ×\d+: ([^;}]*)[;}]", text)
    assert note is not None
    names = note[1].split(", ")
    assert names.index("'json'") < names.index("'sqlite3'") < names.index("'decimal'") == len(names) - 1


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
