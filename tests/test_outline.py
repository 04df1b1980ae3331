"""The public outline API: language choice, rendering, section lookup, robustness."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenlab.reads.outline import Outline, Symbol, find_section, outline, render_outline
from tokenlab.reads.symbols import walk

FIXTURES = Path(__file__).parent.parent / "fixtures" / "reads"


def flat(result: Outline) -> list[tuple[int, str, str, int, int]]:
    """(depth, kind, name, start, end) for every symbol, in document order."""
    rows = []
    pending = [(symbol, 0) for symbol in reversed(result.symbols)]
    while pending:
        symbol, depth = pending.pop()
        rows.append((depth, symbol.kind, symbol.name, symbol.start_line, symbol.end_line))
        pending.extend((child, depth + 1) for child in reversed(symbol.children))
    return rows


def read_fixture(name: str) -> tuple[str, str]:
    path = FIXTURES / name
    return str(path), path.read_text(encoding="utf-8")


def test_python_fixture_outline() -> None:
    result = outline(*read_fixture("inventory.py"))
    assert result.language == "python"
    assert result.line_count == 106
    assert flat(result) == [
        (0, "function", "cached", 11, 21),
        (1, "function", "wrapper", 15, 19),  # the decorator line starts the range
        (0, "class", "Item", 24, 32),
        (1, "method", "unit_price", 30, 32),
        (0, "class", "Location", 35, 47),
        (1, "method", "free_space", 41, 42),
        (1, "method", "put", 44, 47),  # the trailing comment is not part of it
        (0, "class", "Warehouse", 51, 93),
        (1, "class", "ReorderRule", 54, 61),
        (2, "method", "__init__", 55, 58),
        (2, "method", "needs_order", 60, 61),
        (1, "method", "__init__", 63, 65),
        (1, "method", "on_hand", 67, 68),
        (1, "method", "shelf_label", 70, 74),  # two stacked decorators
        (1, "method", "orders", 76, 86),
        (2, "function", "quantity_for", 77, 80),
        (1, "method", "sync", 88, 93),
        (0, "function", "nightly", 97, 100),
    ]


def test_markdown_fixture_outline() -> None:
    result = outline(*read_fixture("handbook.md"))
    assert result.language == "markdown"
    assert flat(result) == [
        (0, "heading", "Team handbook", 6, 10),  # front matter is not a setext heading
        (0, "heading", "Getting started", 11, 57),  # setext, level 1
        (1, "heading", "Accounts", 16, 29),  # '#' lines in the ``` fence are code
        (1, "heading", "Equipment", 30, 36),  # and in the ~~~ fence too
        (1, "heading", "Contracts", 37, 57),  # setext, level 2
        (2, "heading", "Renewal", 42, 46),
        (2, "heading", "Ending a contract", 47, 57),  # closing #'s dropped; list + '---' is a rule
        (0, "heading", "Reference", 58, 67),  # the commented-out heading is skipped
        (1, "heading", "Glossary", 60, 65),  # indented code is not a heading
        (1, "heading", "Contacts", 66, 67),
    ]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("Title\n=====\n", [("Title", "#", 1, 2)]),
        ("Para one\npara two\n---\n", [("Para one para two", "##", 1, 3)]),
        ("text\n\n---\n", []),
        ("#NoSpace\n#\n# Closed #\n", [("", "#", 2, 2), ("Closed", "#", 3, 3)]),
        ("    # indented four\n   # three\n", [("three", "#", 2, 2)]),
        ("````\n```\n# in\n````\n# out\n", [("out", "#", 5, 5)]),
        ("```\n# unclosed fence\n", []),
        ("> # quoted\n# real\r\n", [("real", "#", 2, 2)]),
    ],
)
def test_markdown_heading_rules(source: str, expected: list[tuple[str, str, int, int]]) -> None:
    symbols = walk(outline("doc.md", source).symbols)
    headings = [(s.name, s.detail, s.start_line, s.end_line) for s in symbols if s.kind == "heading"]
    assert headings == expected


def test_render_outline_levels() -> None:
    result = outline(*read_fixture("handbook.md"))
    assert render_outline(result, 1) == (
        "# Team handbook (L6-L10)\n# Getting started (L11-L57) [+5]\n# Reference (L58-L67) [+2]\n"
    )
    full = render_outline(result, None)
    assert "    ### Renewal (L42-L46)\n" in full
    assert len(full.splitlines()) == 10


def test_render_code_outline() -> None:
    rendered = render_outline(outline(*read_fixture("inventory.py")), 2)
    assert rendered.startswith(
        "function cached (L11-L21)\n  function wrapper (L15-L19)\nclass Item (L24-L32)\n"
    )
    assert "  class ReorderRule (L54-L61) [+2]\n" in rendered
    assert render_outline(outline(*read_fixture("inventory.py")), 1).startswith(
        "function cached (L11-L21) [+1]\n"
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Renewal", ("Renewal", 42)),
        ("Getting started/Contracts/Renewal", ("Renewal", 42)),
        ("Contracts/Renewal", ("Renewal", 42)),
        ("### renewal", ("Renewal", 42)),
        ("Nope", None),
    ],
)
def test_find_markdown_section(name: str, expected: tuple[str, int] | None) -> None:
    found = find_section(outline(*read_fixture("handbook.md")), name)
    assert ((found.name, found.start_line) if found else None) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Warehouse.orders", ("orders", 76)),
        ("Warehouse.ReorderRule.__init__", ("__init__", 55)),
        ("ReorderRule.__init__", ("__init__", 55)),
        ("__init__", ("__init__", 55)),  # the first in the file
        ("Warehouse::orders.quantity_for", ("quantity_for", 77)),
        ("warehouse.ON_HAND", ("on_hand", 67)),
        ("Warehouse.missing", None),
    ],
)
def test_find_code_section(name: str, expected: tuple[str, int] | None) -> None:
    found = find_section(outline(*read_fixture("inventory.py")), name)
    assert ((found.name, found.start_line) if found else None) == expected


def _stdlib_check() -> object:
    path = Path(__file__).parent.parent / "bench" / "stdlib_outline_check.py"
    spec = importlib.util.spec_from_file_location("stdlib_outline_check", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "relative",
    [
        "argparse.py",
        "dataclasses.py",
        "asyncio/tasks.py",
        "unittest/mock.py",
        "typing.py",
        "test/test_compile.py",
    ],
)
def test_stdlib_files_match_ast(relative: str) -> None:
    check = _stdlib_check()
    file = Path(sysconfig.get_paths()["stdlib"]) / relative
    if not file.is_file():
        pytest.skip(f"{relative} is not in this interpreter's stdlib")
    source = check.read_source(file)  # type: ignore[attr-defined]
    differences, _fallback, _count = check.compare(source, str(file))  # type: ignore[attr-defined]
    assert differences == []


def test_python_ast_fallback_on_tree_sitter_misread() -> None:
    # A continuation line inside brackets indented less than its block: valid Python
    # that tree-sitter-python's scanner misreads, losing the definitions after it.
    source = (
        "class T:\n"
        "    def m(self):\n"
        "        def f():\n"
        "            (bar.\n"
        "        baz)\n"
        "        return f\n"
        "\n"
        "class U:\n"
        "    def n(self): pass\n"
    )
    result = outline("t.py", source)
    assert flat(result) == [
        (0, "class", "T", 1, 6),
        (1, "method", "m", 2, 6),
        (2, "function", "f", 3, 5),
        (0, "class", "U", 8, 9),
        (1, "method", "n", 9, 9),
    ]
    assert "ast" in result.note


@pytest.mark.parametrize(
    ("path", "text", "language"),
    [
        ("a.py", "", "python"),
        ("script", "#!/usr/bin/env python3\nprint(1)\n", "python"),
        ("run", "#!/bin/sh\necho hi\n", "bash"),
        ("notes.txt", "hello\n", "text"),
        ("x.unknownext", "a\nb\n", "text"),
    ],
)
def test_language_choice(path: str, text: str, language: str) -> None:
    assert outline(path, text).language == language


def test_plain_text_chunks() -> None:
    text = "".join(f"line {n}\n" for n in range(1, 121))
    result = outline("notes.txt", "\n\n" + text)
    assert [(s.name, s.start_line, s.end_line, s.detail) for s in result.symbols] == [
        ("1", 1, 50, "line 1"),
        ("2", 51, 100, "line 49"),
        ("3", 101, 122, "line 99"),
    ]
    assert result.line_count == 122


def test_code_without_definitions_falls_back_to_chunks() -> None:
    result = outline("script.py", "import os\nprint(os.getcwd())\n")
    assert [s.kind for s in result.symbols] == ["chunk"]
    assert "no definitions" in result.note


@pytest.mark.parametrize(
    "text",
    ["", "\n", "\x00\x01\x02", "def (:\n  class\n", "\ufffd" * 50, "# a\r\n\r\n## b\r", "x" * 100_000],
)
@pytest.mark.parametrize("path", ["a.py", "a.md", "a.txt"])
def test_odd_input_never_raises(path: str, text: str) -> None:
    result = outline(path, text)
    for symbol in walk(result.symbols):
        assert 1 <= symbol.start_line <= symbol.end_line <= max(result.line_count, 1)
    render_outline(result, None)


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet=st.sampled_from("#=-`~ \n\r\tdefclas():@x\"'"), max_size=200))
def test_outline_ranges_stay_in_file(text: str) -> None:
    for path in ("f.py", "f.md"):
        result = outline(path, text)
        for symbol in walk(result.symbols):
            assert 1 <= symbol.start_line <= symbol.end_line <= result.line_count
            for child in symbol.children:
                assert symbol.start_line <= child.start_line and child.end_line <= symbol.end_line


def test_symbol_is_frozen() -> None:
    symbol = Symbol("class", "A", 1, 2)
    with pytest.raises(AttributeError):
        symbol.name = "B"  # type: ignore[misc]


_EVERY_KIND_OF_FILE = [
    "f.py", "f.js", "f.ts", "f.tsx", "f.go", "f.rs", "f.java", "f.c", "f.cpp", "f.php", "f.rb", "f.sh",
    "f.md", "f.json", "f.yaml", "f.toml", "f.csv", "f.tsv", "f.txt",
]  # fmt: skip
_SYNTAX = "{}[]()<>:;,.=-#`~\"'|&*!?@$%\\/ \t\n\r\x00abcdefxyzclassdefnfuncimpl0123456789é\u2028"


@settings(max_examples=40, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(_SYNTAX), max_size=300), data=st.data())
def test_any_text_in_any_language_outlines(text: str, data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(_EVERY_KIND_OF_FILE))
    result = outline(path, text)
    symbols = walk(result.symbols)
    for symbol in symbols:
        assert 1 <= symbol.start_line <= symbol.end_line <= result.line_count
    rendered = render_outline(result, None)
    # One line per symbol, plus the note: the views count on it to mark hidden symbols.
    assert rendered.count("\n") == len(symbols) + (1 if result.note else 0)


def test_tree_sitter_is_imported_only_for_code_and_data() -> None:
    # Start-up time matters: Markdown, CSV and plain text never load tree-sitter.
    script = (
        "import sys\n"
        "from tokenlab.reads.outline import outline\n"
        "outline('a.md', '# x\\n'); outline('a.csv', 'a\\n1\\n'); outline('a.txt', 'x')\n"
        "print('tree_sitter' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
