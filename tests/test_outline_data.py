"""Data outlines: JSON, YAML and TOML key trees, CSV/TSV tables, limits and odd input."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tokenlab.reads.outline import OutlineConfig, find_section, outline, render_outline
from tokenlab.reads.symbols import Symbol, walk

FIXTURES = Path(__file__).parent.parent / "fixtures" / "reads"
DATA_FIXTURES = ["api_response.json", "ci_workflow.yaml", "service_config.toml", "orders.csv", "genes.tsv"]


def fixture_outline(name: str, config: OutlineConfig | None = None):  # type: ignore[no-untyped-def]
    path = FIXTURES / name
    text = path.read_text(encoding="utf-8")
    return outline(str(path), text, config) if config else outline(str(path), text)


def section(name: str, key: str) -> tuple[str, int, int, str]:
    found = find_section(fixture_outline(name), key)
    assert found is not None, key
    return found.kind, found.start_line, found.end_line, found.detail


@pytest.mark.parametrize("fixture", DATA_FIXTURES, ids=str)
def test_data_outline_golden(fixture: str, golden) -> None:  # type: ignore[no-untyped-def]
    golden.check(f"outline/{fixture}.txt", render_outline(fixture_outline(fixture), None))


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("pagination", ("key", 4, 9, "object{4 keys}")),
        ("pagination.total", ("key", 7, 7, "57")),
        ("filters", ("key", 10, 10, 'array[2] ["status:open", "region:eu"]')),
        ("orders", ("key", 11, 68, "array[3]")),
        ("orders[0]", ("item", 12, 31, "object{6 keys}")),
        ("orders.0.customer.address.geo.lat", ("key", 22, 22, "54.3498")),
        ("orders[0].lines[0].sku", ("key", 26, 26, '"TEA-GRN-100"')),
        ("paid", ("key", 30, 30, "false")),  # a bare key: the first one in the file
        ("warnings", ("key", 69, 69, "array[0] []")),
    ],
)
def test_json_key_paths(key: str, expected: tuple[str, int, int, str]) -> None:
    assert section("api_response.json", key) == expected


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("name", ("key", 2, 2, "ci")),
        ("on.pull_request.paths", ("key", 8, 11, "sequence[3]")),
        ("env", ("key", 13, 15, "&common-env mapping{2 keys}")),
        ("jobs.test", ("key", 18, 38, "mapping{4 keys}")),
        ("jobs.test.strategy.matrix.python", ("key", 23, 23, 'sequence[3] ["3.11", "3.12", "3.13"]')),
        ("jobs.test.env.<<", ("key", 25, 25, "*common-env")),
        ("jobs.test.steps[0].uses", ("key", 28, 28, "actions/checkout@v4")),
        ("jobs.lint", ("key", 40, 44, "mapping{2 keys}")),  # the trailing comment is not part of it
    ],
)
def test_yaml_key_paths(key: str, expected: tuple[str, int, int, str]) -> None:
    assert section("ci_workflow.yaml", key) == expected


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("owner.team", ("key", 4, 4, '"checkout"')),
        ("server", ("table", 7, 11, "table{4 keys}")),
        ("server.timeouts.idle", ("key", 11, 11, "120")),
        ("features", ("table", 18, 20, "table{2 keys}")),  # the comment after it belongs to no table
        ("features.one-click", ("key", 20, 20, "false")),
        ("payments.providers[1]", ("table", 29, 33, "table{4 keys}")),
        ("payments.providers[1].fallback.provider", ("key", 33, 33, '"stripe"')),
        ("logging.format", ("key", 37, 40, "text, 4 lines")),
    ],
)
def test_toml_key_paths(key: str, expected: tuple[str, int, int, str]) -> None:
    assert section("service_config.toml", key) == expected


def test_csv_counts_records_not_lines() -> None:
    result = fixture_outline("orders.csv")
    text = (FIXTURES / "orders.csv").read_text(encoding="utf-8")
    records = list(csv.reader(io.StringIO(text, newline="")))
    assert result.line_count == 65 and len(records) - 1 == 61  # three records span several lines
    header, rows = result.symbols
    assert (header.name, header.start_line, header.end_line, header.detail) == ("header", 1, 1, "6 columns")
    assert [c.name for c in header.children] == records[0]
    assert (rows.start_line, rows.end_line, rows.detail) == (2, 65, "61 rows")
    assert [(r.name, r.start_line, r.end_line) for r in rows.children] == [
        ("1", 2, 2),
        ("2", 3, 4),
        ("3", 5, 5),
    ]
    assert rows.children[2].detail == '10233,2026-03-01T11:01:09Z,Byrne, Aoife,IE,0.00,said "no rush"'
    assert result.note == ""


def test_tsv_outline() -> None:
    result = fixture_outline("genes.tsv")
    header, rows = result.symbols
    assert [c.name for c in header.children] == [
        "gene",
        "chromosome",
        "start",
        "end",
        "strand",
        "description",
    ]
    assert header.children[0].detail == "e.g. BRCA1"
    assert rows.detail == "5 rows" and len(rows.children) == 3


def test_csv_ragged_rows_and_blank_lines() -> None:
    result = outline("x.csv", "a,b\n\n1,2\n3\n\n")
    assert result.symbols[1].detail == "2 rows"
    assert "1 row with a different number of fields" in result.note


def test_csv_stops_with_a_note_on_reader_errors() -> None:
    huge_field = '"' + "x" * 200_000 + '"'
    result = outline("x.csv", f"a,b\n1,2\n3,{huge_field}\n")
    assert result.symbols[1].detail == "1 row"
    assert result.note.startswith("the csv reader stopped at line 3: field larger than field limit")
    nothing_read = outline("x.csv", huge_field)
    assert [s.kind for s in nothing_read.symbols] == ["chunk"]
    assert nothing_read.note.startswith("the csv reader stopped at line 1")


def test_json_deep_nesting_is_depth_limited_and_counted() -> None:
    depth = 50_000
    text = '{"a": ' * depth + "1" + "}" * depth
    result = outline("deep.json", text)
    assert len(walk(result.symbols)) == 6
    assert "depth limited to 6: 1 deeper containers not expanded" in result.note
    unbalanced = outline("deep.json", "[" * 100_000)
    assert unbalanced.line_count == 1


def test_json_breadth_limit_counts_unlisted_keys() -> None:
    text = json.dumps({"big": {f"k{i}": i for i in range(30)}}, indent=1)
    result = outline("b.json", text, OutlineConfig(data_breadth=10))
    assert len(result.symbols[0].children) == 10
    assert "20 keys beyond the first 10 per container not listed" in result.note


def test_json_top_level_array_and_scalar() -> None:
    result = outline("a.json", '[\n {"id": 1},\n {"id": 2}\n]\n')
    assert [(s.kind, s.name, s.start_line) for s in result.symbols] == [("item", "[0]", 2)]
    assert result.note == "top level: array[2]"
    scalar = outline("s.json", '"just a string"')
    assert scalar.note == 'top level: "just a string"; line chunks'
    assert [(s.kind, s.detail) for s in scalar.symbols] == [("chunk", '"just a string"')]
    assert outline("e.json", "{}\n").note == "top level: object{0 keys}; line chunks"


def test_json_keys_with_escapes_and_control_characters() -> None:
    result = outline("k.json", '{"a\\nb": 1, "caf\\u00e9": 2, "x.y": 3}')
    assert [s.name for s in result.symbols] == ["a\\nb", "café", "x.y"]
    assert find_section(result, "x.y") == result.symbols[2]  # a dotted key, found whole
    assert len(render_outline(result, None).splitlines()) == 3


def test_yaml_multiple_documents() -> None:
    text = "kind: Service\nmetadata:\n  name: web\n---\nkind: Deployment\nspec:\n  replicas: 3\n"
    result = outline("k8s.yaml", text)
    assert [(s.kind, s.name, s.start_line, s.end_line) for s in result.symbols] == [
        ("document", "1", 1, 3),
        ("document", "2", 4, 7),
    ]
    found = find_section(result, "2.spec.replicas")
    assert found is not None and (found.start_line, found.detail) == (7, "3")


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("broken.json", '{"a": [1, 2,, "b": {"c": }\n'),
        ("broken.yaml", "a: [1, 2\nb: : :\n  - - -\n\t\x00"),
        ("broken.toml", "[a\nb = = 1\n[[c]\n"),
        ("empty.json", ""),
        ("empty.yaml", ""),
        ("empty.toml", ""),
        ("empty.csv", ""),
        ("nul.csv", "a,b\n\x00,\x00\n"),
        ("binary.json", "\x00\x01\x02\ufffd{"),
        ("crlf.toml", "[a]\r\nb = 1\r\n"),
    ],
)
def test_odd_data_never_raises(path: str, text: str) -> None:
    result = outline(path, text)
    for symbol in walk(result.symbols):
        assert 1 <= symbol.start_line <= symbol.end_line <= result.line_count
    render_outline(result, None)


def test_data_lines_nest() -> None:
    for fixture in DATA_FIXTURES:
        result = fixture_outline(fixture)
        pending: list[Symbol] = list(result.symbols)
        while pending:
            symbol = pending.pop()
            for child in symbol.children:
                assert symbol.start_line <= child.start_line <= child.end_line <= symbol.end_line, fixture
            pending.extend(symbol.children)


def test_yaml_longer_than_the_grammar_can_follow() -> None:
    # tree-sitter-yaml gives up after row 32,767; such files are parsed in parts.
    entries = "".join(f"  /items/{i}:\n    get:\n      summary: item {i}\n" for i in range(11_000))
    text = "openapi: 3.0.0\npaths:\n" + entries + "components:\n  schemas: {}\n"
    result = outline("api.yaml", text)
    assert result.line_count == 33_004
    assert [(s.name, s.start_line, s.end_line, s.detail) for s in result.symbols] == [
        ("openapi", 1, 1, "3.0.0"),
        ("paths", 2, 33_002, "mapping{11,000 keys}"),
        ("components", 33_003, 33_004, "mapping{1 key}"),
    ]
    paths = result.symbols[1]
    assert len(paths.children) == 500 and "10,500 keys beyond the first 500" in result.note
    last_listed = paths.children[-1]
    assert (last_listed.name, last_listed.start_line, last_listed.end_line) == ("/items/499", 1_500, 1_502)
    found = find_section(result, "paths./items/7.get.summary")
    assert found is not None and (found.start_line, found.detail) == (26, "item 7")
