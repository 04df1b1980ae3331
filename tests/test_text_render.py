"""Spans of a text document: which folds are worth their marker."""

from __future__ import annotations

from tests.conftest import render_preview
from tokenlab.optimizers import Granularity, OptimizerConfig
from tokenlab.optimizers.text.optimizer import optimize
from tokenlab.optimizers.text.render import SpanKind, TextSpan, shared_start, unfold_small


def test_a_small_fold_is_shown_unless_it_carries_its_listings_note() -> None:
    data = b"kept row\nx\nkept row\n" + b"folded row\n" * 20
    spans = [
        TextSpan(SpanKind.KEEP, 0, 9),
        TextSpan(SpanKind.FOLD, 9, 11),
        TextSpan(SpanKind.KEEP, 11, 20),
        TextSpan(SpanKind.FOLD, 20, len(data)),
    ]
    assert [span.kind for span in unfold_small(spans, 24, data)] == [SpanKind.KEEP, SpanKind.FOLD]
    spans[1] = TextSpan(SpanKind.FOLD, 9, 11, "22 rows from the 1 above on: rows of rare forms: `x`")
    assert [span.kind for span in unfold_small(spans, 24, data)] == [
        SpanKind.KEEP,
        SpanKind.FOLD,
        SpanKind.KEEP,
        SpanKind.FOLD,
    ]


def test_the_start_every_folded_line_shares_is_cut_after_its_last_whole_word() -> None:
    dump = b"".join(b"INSERT INTO artists VALUES(%d,'Artist %d');\n" % (n, n) for n in range(30))
    assert shared_start(dump, 0, len(dump)) == "INSERT INTO artists VALUES("
    patches = b"    DEBPKG:debian/cpan_dirs - a\n    DEBPKG:debian/db_file - b\n    DEBPKG:fixes/CVE-2023 - c\n"
    assert shared_start(patches, 0, len(patches)) == "DEBPKG:"  # indentation aside; `debian/` is not shared
    assert shared_start(b"abc 1\nabd 2\n", 0, 12) == ""  # shorter than a word
    assert shared_start(b"1234 a\n1234 b\n", 0, 14) == ""  # no letter: numbers, not a kind of line


def test_a_large_fold_names_the_start_its_lines_share() -> None:
    """A SQL dump's tables: each fold of rows says what it hides, not only how many."""
    tables = [("artists", "name TEXT", "'Artist {n}'"), ("albums", "title TEXT, year INTEGER", "'Album {n}',{year}")]
    dump = "PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n"
    for table, columns, row in tables:
        dump += f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, {columns});\n"
        dump += "".join(f"INSERT INTO {table} VALUES({n},{row.format(n=n, year=1960 + n % 50)});\n" for n in range(1, 301))
    shown = render_preview(optimize((dump + "COMMIT;\n").encode(), OptimizerConfig(Granularity.COARSE)))
    assert '… +299 "INSERT INTO albums VALUES(…"' in shown
    assert '+300 "' not in shown  # the first fold's note says what its rows are: no name too
