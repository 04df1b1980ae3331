"""Tests for the table optimizer: classification, goldens, anomalous rows kept, exact bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Golden, render_preview
from tokenlab.classify import classify
from tokenlab.optimizers import ContentType, Granularity, Omission, OptimizerConfig
from tokenlab.optimizers.table import optimizer as table
from tokenlab.pipeline import analyze
from tokenlab.restore import restore
from tokenlab.store import FolderStore

COARSE = OptimizerConfig()
FINE = OptimizerConfig(Granularity.FINE)
CAPTURE = Path(__file__).parent.parent / "fixtures" / "real" / "test_report_12k.csv"


def report(rows: int = 400, failed: tuple[int, ...] = (77, 301), delimiter: str = ",") -> bytes:
    lines = [delimiter.join(["suite", "name", "status", "time_s", "message"])]
    for index in range(rows):
        status = "failed" if index in failed else "passed"
        message = "AssertionError: boom" if index in failed else ""
        lines.append(
            delimiter.join(["unit", f"test_case_{index:04d}", status, f"0.{index % 7:03d}", message])
        )
    return ("\n".join(lines) + "\n").encode()


GOOD = b"a,b,c\n" + b"1,2,3\n" * 300


def joined_omissions(data: bytes, config: OptimizerConfig) -> list[bytes]:
    return [part.data for part in table.optimize(data, config).parts if isinstance(part, Omission)]


@pytest.mark.parametrize("granularity", ["coarse", "fine"])
def test_capture_golden(granularity: str, golden: Golden) -> None:
    config = FINE if granularity == "fine" else COARSE
    golden.check(
        f"table/test_report_12k.{granularity}.txt",
        render_preview(table.optimize(CAPTURE.read_bytes(), config)),
    )


def test_capture_keeps_failed_rows_and_declares_them() -> None:
    result = table.optimize(CAPTURE.read_bytes(), COARSE)
    shown = render_preview(result)
    for name in ("feature_117]", "feature_251]", "test_region_count"):
        assert sum(name in signal for signal in result.signals) == 1
    assert all(signal in shown for signal in result.signals)
    assert "[status: passed ×11,998, failed ×3]" in shown
    assert "[time_s: numbers 0.000 to 0.229]" in shown
    assert shown.count("\n") < 30


def test_coarse_ref_holds_every_folded_row_in_order() -> None:
    data = report()
    (folded,) = joined_omissions(data, COARSE)
    kept = [line for line in data.decode().splitlines(keepends=True) if line.encode() not in folded]
    assert len(kept) == 1 + 5 + 2  # header, first rows, failed rows
    fine = joined_omissions(data, FINE)
    assert len(fine) == 3 and b"".join(fine) == folded


def test_rare_values_and_failures_are_anomalies() -> None:
    data = report(failed=(250,)).replace(b"unit,test_case_0100", b"integration,test_case_0100")
    shown = render_preview(table.optimize(data, COARSE))
    assert "integration,test_case_0100" in shown  # rare value in a categorical column
    assert "unit,test_case_0250,failed" in shown
    assert "unit,test_case_0101" not in shown


def test_common_values_are_not_anomalies() -> None:
    failed = tuple(range(0, 400, 3))  # a third failed: a spread, but each a failure
    shown = render_preview(table.optimize(report(failed=failed), COARSE))
    assert "test_case_0003,failed" in shown
    spread = report(failed=()).replace(b"unit,test_case_00", b"other,test_case_00")
    assert "anomalous" not in render_preview(table.optimize(spread, COARSE))


def test_anomalies_are_capped_with_a_ref() -> None:
    limits = table.TableLimits(anomalies_shown=10, rare_share=0.5, rare_max_share=0.5)
    failed = tuple(range(1, 400, 10))
    result = table.optimize(report(failed=failed), COARSE, limits)
    shown = render_preview(result)
    assert len(result.signals) == 10
    assert "[… 30 more anomalous rows, folded above; all of them: #ref:ctx_" in shown
    rest = [part.data for part in result.parts if isinstance(part, Omission)][-1]
    assert rest.count(b"\n") == 30 and rest.count(b",failed,") == 30


def test_tsv_and_quoted_newlines() -> None:
    tsv = report(delimiter="\t")
    assert classify(tsv).content_type is ContentType.TABLE
    assert "tab-separated" in render_preview(table.optimize(tsv, COARSE))
    quoted = report().replace(
        b"AssertionError: boom", b'"AssertionError: boom\n  at line 3, col 4\n  ""quoted"""', 1
    )
    result = table.optimize(quoted, COARSE)
    shown = render_preview(result)
    assert 'AssertionError: boom\n  at line 3, col 4\n  ""quoted"""\n' in shown
    assert any("\n" in signal for signal in result.signals)
    assert "[table: 400 rows × 5 columns" in shown


def test_small_tables_pass_through() -> None:
    data = report(rows=20)
    assert len(data) < 4096
    assert render_preview(table.optimize(data, COARSE)) == data.decode()


@pytest.mark.parametrize(
    "data",
    [
        b"a,b,c\n" + b'1,"unterminated\n' * 300,
        GOOD + b'1,"unterminated\n' + b"1,2,3\n" * 300,
        GOOD + b"1,2\r3,4\n" * 400,
        GOOD + b"1,\x00,3\n" * 400 + b"\xff\xfe,x,y\n",
        b"a,b,c\n" + b"1,2,3" * 2000,
        b"a,b,c\r\n" + b"1,2,3\r\n" * 1000 + b"9,9,9,9\r\n" + b"1,2,3\r\n" * 10,
    ],
    ids=["runaway-quote", "late-runaway-quote", "bare-cr", "nul-latin1", "one-long-row", "crlf-ragged"],
)
def test_hostile_tables_restore_exactly(data: bytes, tmp_path: Path) -> None:
    store = FolderStore(tmp_path / "store")
    packet = analyze(data, source="t.csv", store=store)
    assert packet.recovery_status.value == "PASS", packet.recovery_failures
    assert restore(packet.visible.encode("utf-8"), store) == data
    for config in (COARSE, FINE):
        for omission in table.optimize(data, config).omissions:
            assert b"".join(data[a:b] for a, b in omission.source) == omission.data


def test_crlf_ragged_row_is_kept() -> None:
    data = b"a,b,c\r\n" + b"1,2,3\r\n" * 1000 + b"9,9,9,9\r\n" + b"1,2,3\r\n" * 10
    result = table.optimize(data, COARSE)
    assert "9,9,9,9" in result.signals
    assert "1 with another field count" in render_preview(result)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (report(), ContentType.TABLE),
        (b"id;name;price\n" + b"1;apple;0.5\n" * 20, ContentType.TABLE),
        (b"2026-01-01 10:00:00,123 INFO a, b, c\n" * 20, ContentType.LOG),
        (b"| name | status | time |\n|---|---|---|\n" + b"| a, b | ok | 1, 2 |\n" * 20, ContentType.TEXT),
        (b"Hello, world, this is prose that runs on and on.\n" * 10, ContentType.TEXT),
        (b"# Notes\n\nWe tried a, b and c. Then d, e.\nSome text, more, more.\n" * 5, ContentType.TEXT),
        (b"1,2,3\n4,5,6\n7,8,9\n1,2,3\n4,5,6\n", ContentType.TEXT),
    ],
    ids=["csv", "semicolon", "python-log", "markdown-table", "prose", "markdown", "no-header"],
)
def test_classification(data: bytes, expected: ContentType) -> None:
    assert classify(data).content_type is expected


def test_large_table_stays_linear() -> None:
    data = report(rows=100_000, failed=(5, 99_999))
    result = table.optimize(data, COARSE)
    shown = render_preview(result)
    assert len(shown) < 3000
    assert "test_case_99999,failed" in shown


PSQL = Path(__file__).parent.parent / "fixtures" / "real"


@pytest.mark.parametrize("name", ["psql_wide_join_select.txt", "psql_explain_analyze_buffers.txt"])
@pytest.mark.parametrize("granularity", ["coarse", "fine"])
def test_psql_goldens(name: str, granularity: str, golden: Golden) -> None:
    config = FINE if granularity == "fine" else COARSE
    golden.check(f"table/{name}.{granularity}.txt", render_preview(table.optimize((PSQL / name).read_bytes(), config)))


def psql_rows(count: int) -> bytes:
    lines = ["  id | status ", "-----+--------"]
    lines += [f" {n:>3} | {'failed' if n == 7 else 'ok'}" for n in range(count)]
    return ("\n".join([*lines, f"({count} rows)", ""])).encode()


def test_psql_aligned_table_is_a_table_not_yaml() -> None:
    assert classify(psql_rows(60)).content_type is ContentType.TABLE
    assert classify(b"title\n-----\nsome: text\nmore: here\nand: this\n").content_type is not ContentType.TABLE


def test_psql_table_keeps_header_footer_and_failed_row() -> None:
    data = psql_rows(300) * 2
    result = table.optimize(data, COARSE)
    shown = render_preview(result)
    assert shown.count("  id | status \n-----+--------\n") == 2 and shown.count("(300 rows)") == 2
    assert shown.count("   7 | failed") == 2 and "… 292 rows (lines 11–302)" in shown and "… 292 rows (lines 314–605)" in shown
    assert all(signal in shown for signal in result.signals)


def test_short_psql_tables_show_whole() -> None:
    data = (psql_rows(30) + b"Indexes:\n    \"t_pkey\" PRIMARY KEY, btree (id)\n\n") * 6
    assert render_preview(table.optimize(data, COARSE)) == data.decode()


def test_explain_plan_keeps_every_node_and_folds_details() -> None:
    data = (PSQL / "psql_explain_analyze_buffers.txt").read_bytes()
    shown = render_preview(table.optimize(data, COARSE))
    nodes = [line for line in data.decode().splitlines() if "->" in line or "(actual time" in line]
    assert len(nodes) == 17 and all(node in shown for node in nodes)
    assert "… 4 lines: Output, Filter, Rows Removed by Filter, Buffers (lines 37–40)" in shown
    assert "Execution Time: 33.968 ms" in shown and "(51 rows)" in shown


@pytest.mark.parametrize("name", ["psql_wide_join_select.txt", "psql_explain_analyze_buffers.txt", "psql_describe_plus.txt"])
def test_psql_captures_restore_exactly(name: str, tmp_path: Path) -> None:
    data = (PSQL / name).read_bytes()
    store = FolderStore(tmp_path / "psql")
    packet = analyze(data, source=name, store=store)
    assert packet.recovery_status.value == "PASS", packet.recovery_failures
    assert restore(packet.visible.encode("utf-8"), store) == data
    for config in (COARSE, FINE):
        for omission in table.optimize(data, config).omissions:
            assert b"".join(data[a:b] for a, b in omission.source) == omission.data


def one_column_cells(header: str, documents: list[str]) -> bytes:
    """psql's aligned output of one column whose values hold newlines: each line padded to
    the column's width and ended by `+` while the value goes on, then `(N rows)`."""
    width = max(len(header) + 2, *(len(line) + 3 for document in documents for line in document.splitlines()))
    lines = [header.center(width), "-" * width]
    for document in documents:
        value = document.splitlines()
        lines += [(" " + line).ljust(width - 1) + "+" for line in value[:-1]] + [" " + value[-1]]
    lines.append(f"({len(documents)} row{'s' if len(documents) != 1 else ''})")
    return ("\n".join(lines) + "\n\n").encode()


def plan_document(index: int) -> str:
    nodes = [
        {"Node Type": "Seq Scan", "Relation Name": f"orders_{index}_{n}", "Actual Rows": n, "Rows Removed by Filter": 60000 + n}
        for n in range(30)
    ]
    plan = {"Plan": {"Node Type": "Hash Join", "Join Type": "Anti", "Plans": nodes}, "Execution Time": 359.675 + index}
    return json.dumps([plan], indent=2)


def settings_document(index: int) -> str:
    return json.dumps({"name": f"service_{index}", "status": "failed" if index == 1 else "ok",
                       "history": [{"at": n, "note": "x" * 40} for n in range(40)]}, indent=2)


@pytest.mark.parametrize(
    "data",
    [
        b"".join(one_column_cells("QUERY PLAN", [plan_document(index)]) for index in range(3)),
        one_column_cells("jsonb_pretty", [settings_document(index) for index in range(3)]),
    ],
    ids=["explain-json-plans", "jsonb-pretty-column"],
)
def test_a_json_document_in_a_cell_is_laid_out_as_json(data: bytes) -> None:
    assert classify(data).content_type is ContentType.TABLE
    result = table.optimize(data, COARSE)
    shown = render_preview(result)
    assert "+\n" not in shown  # the cell's continuation column is gone from what is shown
    for line in data.decode().splitlines():
        if line.startswith("(") or set(line) == {"-"}:
            assert line in shown  # the rule and the `(N rows)` footers as printed
    for key in ('"Execution Time": 359.675', '"Join Type": "Anti"', '"status": "failed"'):
        assert key in shown or key not in data.decode()
    omissions = list(result.omissions)
    assert omissions and len(shown) < len(data) / 2
    for omission in omissions:  # refs hold the input's bytes, padding and `+` included
        assert b"".join(data[a:b] for a, b in omission.source) == omission.data


def test_a_multi_line_cell_that_is_no_json_stays_as_printed() -> None:
    source = "\n".join(f"    x := x + {n};  -- step {n}" for n in range(60))
    data = one_column_cells("prosrc", [f"BEGIN\n{source}\nEND;"])
    assert render_preview(table.optimize(data, COARSE)) == data.decode()


def test_a_sample_cut_inside_a_one_column_cell_is_still_a_table() -> None:
    data = one_column_cells("QUERY PLAN", [plan_document(0)])
    cut = data[: data.index(b"orders_0_20")]
    assert classify(cut + b"\n").content_type is ContentType.TABLE
    assert classify(b"Heading line\n------------\n indented text\n more of it\n").content_type is not ContentType.TABLE
