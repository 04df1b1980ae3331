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


def test_a_verbose_import_trace_names_the_modules_imported_before_its_failure() -> None:
    data = (Path(__file__).parent.parent / "fixtures" / "real" / "python_v_import_verbose_missing_module.log").read_bytes()
    text = render_preview(optimize(data, COARSE))
    note = re.search(r"above on: import ×\d+: ([^;}]*)[;}]", text)
    assert note is not None
    names = note[1].split(", ")
    assert names.index("'json'") < names.index("'sqlite3'") < names.index("'decimal'") == len(names) - 1
