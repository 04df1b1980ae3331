"""Tests for the JSON optimizer: goldens, fidelity, exact coverage, robustness, speed-safety."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import Golden, render_preview
from tokenlab.counting import tokens
from tokenlab.optimizers import Granularity, Omission, OptimizerConfig, visible
from tokenlab.optimizers.json_doc import detect as detect_json
from tokenlab.optimizers.json_doc import optimizer as json_doc
from tokenlab.optimizers.json_doc import records as json_records
from tokenlab.optimizers.json_doc import scan as json_scan
from tokenlab.optimizers.json_doc.config import DEFAULT_CONFIG, JsonDocConfig
from tokenlab.optimizers.json_doc.segments import Keep, Omit
from tokenlab.optimizers.lines import shown as line_shown

FIXTURES = Path(__file__).parent.parent / "fixtures"
COARSE = OptimizerConfig()
FINE = OptimizerConfig(granularity=Granularity.FINE)
# Small limits so that short generated documents exercise every folding path.
TINY = JsonDocConfig(
    max_depth=3,
    max_string_chars=8,
    string_prefix_chars=3,
    blob_min_chars=10,
    blob_prefix_chars=2,
    max_scalar_items=2,
    head_items=1,
    tail_items=1,
    max_members=2,
    records_listed=2,
    max_anomalies=1,
    bulky_chars=30,
    min_fold_chars=0,
)

FIXTURE_FILES = [
    "api_response.json",
    "real/npm_view.json",
    "real/pip_inspect.json",
    "real/ruff_check.json",
    "real/eslint_json.json",
]


def preview(
    data: bytes, config: OptimizerConfig = COARSE, doc: JsonDocConfig = DEFAULT_CONFIG
) -> str:
    return render_preview(json_doc.optimize(data, config, doc))


def assert_tiles(text: str, segments: list[json_doc.Segment]) -> None:
    """Kept and omitted spans, in order, cover the original exactly once."""
    position = 0
    for segment in segments:
        if isinstance(segment, (Keep, Omit)):
            assert segment.start == position, f"gap or overlap at {position}"
            assert segment.end >= segment.start
            position = segment.end
    assert position == len(text)


def signals(name: str) -> list[str]:
    path = FIXTURES / f"{name}.signals"
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line]


# -- goldens ------------------------------------------------------------------------------

SMALL_CASES = {
    "noise_fields": {
        "id": "req_1",
        "status": "failed",
        "error": {"code": 503, "message": "upstream timed out"},
        "telemetry": {"spans": [{"n": i, "d": i * 3} for i in range(40)]},
        **{f"padding_{i:02d}": "x" * 30 for i in range(6)},
        "region": "eu-west-1",
    },
    "long_values": {
        "name": "blob-holder",
        "description": "A long description. " * 20,
        "escaped": 'quote " and tab \t and é ' * 12,
        "sha": "a1B2" * 30,
        "versions": [f"1.{i}.0" for i in range(30)],
        "tags": ["a", "b"],
    },
    "records_listed": [
        {"id": 1, "name": "alpha", "status": "ok", "latency_ms": 12, "debug": {"pid": 4411}},
        {"id": 2, "name": "beta", "status": "error", "latency_ms": 14, "debug": {"pid": 4412}},
        {"id": 3, "name": "gamma", "status": "ok", "latency_ms": 13, "debug": {"pid": 4413}},
    ],
    "records_folded": [
        {
            "id": i,
            "status": "ok",
            "latency_ms": 100 + i % 7,
            "host": f"web-{i % 4}",
            "owner": "team-a",
        }
        | ({"error": "disk full"} if i == 61 else {})
        | ({"latency_ms": 90000} if i == 150 else {})
        for i in range(200)
    ],
    "mixed_top_scalar": "just a string at the top level",
}


@pytest.mark.parametrize("case", sorted(SMALL_CASES))
@pytest.mark.parametrize(
    "granularity", [Granularity.COARSE, Granularity.FINE], ids=["coarse", "fine"]
)
def test_small_goldens(case: str, granularity: Granularity, golden: Golden) -> None:
    data = (json.dumps(SMALL_CASES[case], indent=2, ensure_ascii=False) + "\n").encode()
    rendered = preview(data, OptimizerConfig(granularity=granularity))
    golden.check(f"json/{case}.{granularity.value}.txt", rendered)
    json.loads(rendered)  # the visible text stays parseable JSON


@pytest.mark.parametrize("name", FIXTURE_FILES)
def test_fixture_goldens(name: str, golden: Golden) -> None:
    rendered = preview((FIXTURES / name).read_bytes())
    golden.check(f"json/{name.replace('/', '_')}.txt", rendered)


# -- fidelity and savings -----------------------------------------------------------------


@pytest.mark.parametrize("name", FIXTURE_FILES)
def test_fixture_signals_stay_visible(name: str) -> None:
    """As the SIGNAL stage checks them: verbatim, or by their values in a group line."""
    rendered = preview((FIXTURES / name).read_bytes())
    assert line_shown.not_shown(tuple(signals(name)), rendered) == ()


@pytest.mark.parametrize(
    ("name", "minimum"),
    [("api_response.json", 0.95), ("real/npm_view.json", 0.80), ("real/pip_inspect.json", 0.95)],
)
def test_fixture_savings(name: str, minimum: float) -> None:
    raw = (FIXTURES / name).read_bytes()
    saved = 1 - tokens.count(preview(raw)) / tokens.count(raw.decode("utf-8"))
    assert saved >= minimum


@pytest.mark.parametrize("name", FIXTURE_FILES)
@pytest.mark.parametrize("config", [COARSE, FINE], ids=["coarse", "fine"])
def test_fixture_layout_covers_every_byte(name: str, config: OptimizerConfig) -> None:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    segments = json_doc.plan(text, config)
    assert segments is not None
    assert_tiles(text, segments)
    json.loads(render_preview(json_doc.optimize(text.encode(), config)))


def test_omissions_hold_exact_original_bytes() -> None:
    raw = (FIXTURES / "api_response.json").read_bytes()
    result = json_doc.optimize(raw, COARSE)
    omissions = list(result.omissions)
    assert omissions
    assert all(omission.data in raw for omission in omissions)
    # Every original byte is either shown or held by exactly one omission.
    held = sum(len(omission.data) for omission in omissions)
    text = raw.decode()
    segments = json_doc.plan(text, COARSE)
    assert segments is not None
    shown = sum(len(text[s.start : s.end].encode()) for s in segments if isinstance(s, Keep))
    assert shown + held == len(raw)


def test_visible_fields_keep_original_formatting() -> None:
    raw = (
        b'{"id" :  7 ,\r\n  "status":"failed",  '
        b'"telemetry" : {"a": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]}}'
    )
    rendered = preview(raw)
    assert rendered.startswith(
        '{"id" :  7 ,\r\n  "status":"failed",  "telemetry" : "{1 key} #ref:ctx_'
    )
    assert rendered.endswith('"}')


def test_count_fields_of_a_record_stay_beside_its_nested_findings() -> None:
    # eslint's `-f json`: per file, its messages and how many errors and warnings.
    files = [
        {
            "filePath": f"/src/mod{f:02}.js",
            "messages": [{"ruleId": "no-var", "severity": 2, "message": "Unexpected var.", "line": n} for n in range(8)],
            "suppressedMessages": [],
            "errorCount": 6 + f % 2,
            "fatalErrorCount": 0,
            "warningCount": 2,
            "fixableErrorCount": 1,
            "source": "var a = 1;\n" * 40,
        }
        for f in range(20)
    ]
    rendered = preview(json.dumps(files, separators=(",", ":")).encode())
    assert '"errorCount":7' in rendered and '"warningCount":2' in rendered
    assert '"fatalErrorCount":0' in rendered
    assert '"source":"var a' not in rendered


def test_anomalous_records_survive_folding() -> None:
    records = [{"id": i, "status": "ok", "took": 10 + i % 3, "zone": "a"} for i in range(500)]
    records[321]["status"] = "FATAL"
    records[400]["error"] = {"code": "E42"}
    records[77]["took"] = 9999
    rendered = preview(json.dumps(records).encode())
    for fragment in ('"id": 321, "status": "FATAL"', '"id": 400', '"code": "E42"', '"took": 9999'):
        assert fragment in rendered
    assert '"id": 250' not in rendered
    assert "[76 similar items] #ref:" in rendered


def _jobs(count: int) -> bytes:
    jobs = [
        {"id": f"job-{n:04d}", "type": "resize", "state": "succeeded", "attempts": 1,
         "started_at": f"2026-04-02T10:{n % 60:02d}:00Z", "duration_ms": 3000 + 37 * n,
         "output": {"bucket": "media-prod", "key": f"out/{n:04d}.bin", "bytes": 1000 * n}}
        for n in range(count)
    ]  # fmt: skip
    jobs[min(41, count - 1)] |= {"state": "failed", "error": {"code": "UPSTREAM_UNAVAILABLE"}}
    return json.dumps({"status": "partial_failure", "items": jobs}, indent=2).encode()


def test_tens_of_records_whose_views_keep_most_of_them_show_one_line_each() -> None:
    rendered = preview(_jobs(60))
    assert '{"id": "job-0000", "type": "resize", "state": "succeeded"' in rendered  # a line each
    assert '{"id": "job-0059", "type": "resize", "state": "succeeded"' in rendered
    assert '"code": "UPSTREAM_UNAVAILABLE"' in rendered and '"duration_ms": 4517' in rendered  # the failure
    assert '"duration_ms": 3000' not in rendered
    assert tokens.count(rendered) < 0.5 * tokens.count(_jobs(60).decode())


def test_a_few_records_keep_their_record_layout() -> None:
    rendered = preview(_jobs(20))
    assert '{"id": "job-0000", "type"' not in rendered and '"key": "out/0000.bin"' in rendered


def test_small_fold_costs_more_than_it_saves_so_it_stays() -> None:
    assert preview(b'{"debug": 1, "id": 2}') == '{"debug": 1, "id": 2}'


def test_long_string_prefix_never_splits_an_escape() -> None:
    for filler in range(8):
        value = "a" * filler + "\\u00e9\\n\\\\" * 40
        raw = ('{"message": "' + value + '"}').encode()
        rendered = preview(raw)
        json.loads(rendered)
    pair = '{"message": "' + "\\ud83d\\ude00" * 40 + '"}'
    assert json.loads(preview(pair.encode()))["message"].startswith("\U0001f600")


# -- deep, odd and hostile input ----------------------------------------------------------


@pytest.mark.parametrize("opener,closer", [("[", "]"), ('{"a":', "}")])
def test_depth_100000_does_not_crash(opener: str, closer: str) -> None:
    raw = (opener * 100_000 + "1" + closer * 100_000).encode()
    assert json_doc.looks_like_json(raw)
    result = json_doc.optimize(raw, COARSE)
    rendered = render_preview(result)
    assert len(rendered) < 400
    json.loads(rendered)
    text = raw.decode()
    segments = json_doc.plan(text, COARSE)
    assert segments is not None
    assert_tiles(text, segments)


def test_deep_but_invalid_is_not_json() -> None:
    assert not json_doc.looks_like_json(b"[" * 5000 + b"1" + b"]" * 4999)
    assert not json_doc.looks_like_json(b"[" * 5000 + b"1," + b"]" * 5000)


@pytest.mark.parametrize(
    "raw,expected",
    [
        (b'{"a": 1}', True),
        (b"  [1, 2.5e3, true, null]\n", True),
        (b'"top"', True),
        (b"", False),
        (b'{"a": 1', False),
        (b'{"a": 1}\n{"b": 2}\n', False),
        (b"\xff\xfe{}", False),
        (b"NaN", False),
        (b"plain text", False),
    ],
)
def test_looks_like_json(raw: bytes, expected: bool) -> None:
    assert json_doc.looks_like_json(raw) is expected


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"{",
        b'{"a": 1,}',
        b"\x00\x01\x02",
        b"caf\xe9 latin-1",
        b"\x1b[31m{}\x1b[0m",
        b"[1, 2]\r\n[3]",
        b'{"a": 1}' * 3,
    ],
)
def test_invalid_json_is_shown_whole(raw: bytes) -> None:
    result = json_doc.optimize(raw, COARSE)
    assert "".join(p for p in result.parts if isinstance(p, str)) == visible(raw)
    assert not list(result.omissions)


def test_odd_but_valid_documents() -> None:
    dupes = b'{"id": 1, "id": 2, "status": "failed", "status": "ok"}'
    assert preview(dupes) == dupes.decode()
    huge_number = b'{"id": ' + b"9" * 5000 + b"}"
    assert preview(huge_number, doc=TINY)  # orjson rejects it; never raises
    escapes = '{"name": "\\u00e9\\ud83d\\ude00", "emoji": "😀"}'.encode()
    assert preview(escapes) == escapes.decode()
    assert preview(b"  42  ") == "  42  "
    assert preview(b"[]") == "[]" and preview(b"{}") == "{}"


def test_five_megabyte_string_keeps_a_prefix() -> None:
    raw = b'{"log": "' + b"y" * 5_000_000 + b'"}'
    rendered = preview(raw)
    assert len(rendered) < 200
    assert json.loads(rendered)["log"].startswith("yyy")


def test_scanner_finds_value_ends_without_recursion() -> None:
    text = '[{"a": "]}\\"["}, [1, [2]]] tail'
    assert json_scan.value_end(text, 0) == len(text) - 5
    assert json_scan.value_end(text, 1) == 15
    assert json_scan.value_end(text, 2) == 5
    assert json_scan.value_end('"x\\"y" ', 0) == 6
    assert json_scan.value_end("-1.5e3,", 0) == 6


# -- records census -----------------------------------------------------------------------


def census_of(records: list[object]) -> json_records.Census:
    census = json_records.Census(json_records.KeyClassifier(json_records.RecordsConfig()))
    for record in records:
        census.add(record)
    return census


def test_census_ranks_failures_before_outliers() -> None:
    records: list[object] = [{"status": "ok", "ms": 100 + i % 5} for i in range(100)]
    records[10] = {"status": "ok", "ms": 50_000}
    records[20] = {"state": "CrashLoopBackOff", "ms": 101}
    records[30] = {"result": {"ok": False}, "ms": 102}
    assert census_of(records).anomalies() == [20, 30, 10]


def test_census_ignores_a_spread_that_is_not_an_anomaly() -> None:
    records: list[object] = [{"ms": i * i} for i in range(200)]
    assert census_of(records).anomalies() == []
    assert census_of([{"ok": True}] * 5 + [{"ok": True, "error": None}]).anomalies() == []


def test_key_normalisation() -> None:
    keys = json_records.KeyClassifier(json_records.RecordsConfig())
    assert keys.kind("errorMessage") is json_records.KeyKind.DECISION
    assert keys.kind("_id") is json_records.KeyKind.DECISION
    assert keys.kind("padding_0042") is json_records.KeyKind.NOISE
    assert keys.kind("request_telemetry") is json_records.KeyKind.NOISE
    assert keys.kind("region") is json_records.KeyKind.OTHER


# -- properties ---------------------------------------------------------------------------

_KEYS = st.sampled_from(
    ["id", "name", "status", "error", "telemetry", "padding_1", "noise", "data", "ms", 'é"k', "x"]
)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["ok", "failed", "error"])
    | st.text(max_size=24)
)
_DOCUMENTS = st.recursive(
    _SCALARS,
    lambda children: st.lists(children, max_size=6) | st.dictionaries(_KEYS, children, max_size=6),
    max_leaves=40,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    document=_DOCUMENTS,
    indent=st.sampled_from([None, 0, 2, "\t"]),
    ascii_only=st.booleans(),
    fine=st.booleans(),
)
def test_generated_json_tiles_and_stays_parseable(
    document: object, indent: int | str | None, ascii_only: bool, fine: bool
) -> None:
    text = json.dumps(document, indent=indent, ensure_ascii=ascii_only)
    config = FINE if fine else COARSE
    for doc_config in (TINY, JsonDocConfig()):
        segments = json_doc.plan(text, config, doc_config)
        assert segments is not None
        assert_tiles(text, segments)
        result = json_doc.optimize(text.encode(), config, doc_config)
        rendered = render_preview(result)
        json.loads(rendered)
        if not list(result.omissions):
            assert rendered == text


@settings(max_examples=300)
@given(st.binary(max_size=300))
def test_optimize_never_raises_on_arbitrary_bytes(raw: bytes) -> None:
    result = json_doc.optimize(raw, COARSE)
    assert all(isinstance(part, (str, Omission)) for part in result.parts)
    json_doc.looks_like_json(raw)


@settings(max_examples=200)
@given(st.text(alphabet='[]{}",: 01a\\tnulrefs', max_size=60))
def test_scanner_agrees_with_the_stdlib_parser(text: str) -> None:
    try:
        json.loads(text)
        valid = True
    except (ValueError, RecursionError):
        valid = False
    assert json_scan.is_valid_document(text) is valid


def test_long_array_of_bulky_records_still_lists_every_record() -> None:
    readme = "Long README text. " * 200
    packages = [
        {"metadata": {"name": f"pkg-{i}", "version": f"1.{i}", "description": readme}}
        for i in range(300)
    ]
    rendered = preview(json.dumps({"installed": packages}, indent=2).encode())
    assert all(f'"name": "pkg-{i}"' in rendered for i in range(300))
    assert all(f'"version": "1.{i}"' in rendered for i in range(300))
    assert readme not in rendered


# -- one line per record ------------------------------------------------------------------


def _finding(i: int) -> dict[str, object]:
    """A linter finding shaped like ruff's `--output-format json`: every one is an error."""
    return {
        "cell": None,
        "code": f"F{400 + i % 7}",
        "end_location": {"column": 12, "row": i + 1},
        "filename": f"/src/pkg/mod_{i // 10:02d}.py",
        "fix": {"applicability": "safe", "edits": [{"content": "", "row": i}] * 3, "message": "Fix it"},
        "location": {"column": 8, "row": i + 1},
        "message": f"`name_{i}` imported but unused",
        "noqa_row": i + 1,
        "severity": "error",
        "url": "https://docs.example.org/rules/unused-import",
    }


@pytest.mark.parametrize("config", [COARSE, FINE], ids=["coarse", "fine"])
def test_findings_keep_every_identity_one_line_each(config: OptimizerConfig) -> None:
    findings = [_finding(i) for i in range(160)]
    text = json.dumps(findings, indent=2)
    rendered = preview(text.encode(), config)
    json.loads(rendered)
    lines = rendered.splitlines()
    for i in range(160):
        identity = (
            f'"filename": "/src/pkg/mod_{i // 10:02d}.py"',
            f'"location": {{"column": 8, "row": {i + 1}}}',
            f'"message": "`name_{i}` imported but unused"',
        )
        assert sum(1 for line in lines if all(part in line for part in identity)) == 1
    assert '"edits"' not in rendered and '"url"' not in rendered
    segments = json_doc.plan(text, config)
    assert segments is not None
    assert_tiles(text, segments)
    assert len(rendered) < 0.5 * len(text)


def test_coarse_lines_share_one_ref_holding_the_items() -> None:
    findings = [_finding(i) for i in range(160)]
    text = json.dumps(findings, indent=2)
    result = json_doc.optimize(text.encode(), COARSE)
    (omission,) = result.omissions
    assert omission.data.decode() == text[text.index("{") : text.rindex("}") + 1]
    assert "[the 160 items above, each in full] #ref:ctx_" in render_preview(result)


def test_usual_failures_are_no_anomaly_but_a_rare_one_is() -> None:
    findings = [_finding(i) for i in range(160)]
    census = census_of(list(findings))
    assert census.failures_are_usual() and census.outliers() == []
    jobs = [{"id": f"job_{i}", "status": "ok", "node": "n" * 80} for i in range(300)]
    jobs[123]["status"] = "failed"
    rendered = preview(json.dumps(jobs, indent=2).encode())
    assert '{"id": "job_122", "status": "ok"}' in rendered
    assert '"id": "job_123",\n    "status": "failed",\n    "node"' in rendered  # shown whole


def test_nested_findings_inside_records_are_listed() -> None:
    """eslint `-f json`: one record per file, each holding its findings, on one line."""
    files = [
        {
            "filePath": f"/src/mod{f}.js",
            "messages": [
                {
                    "ruleId": "no-unused-vars",
                    "severity": 2,
                    "message": f"'v{f}_{m}' is defined but never used.",
                    "line": m + 1,
                    "column": 7,
                    "messageId": "unusedVar",
                    "endLine": m + 1,
                    "endColumn": 12,
                    "suggestions": [
                        {
                            "messageId": "removeVar",
                            "fix": {"range": [1, 9], "text": ""},
                            "desc": f"Remove unused variable 'v{f}_{m}'.",
                        }
                    ],
                }
                for m in range(8)
            ],
            "errorCount": 8,
            "source": "const x = 1;\n" * 40,
        }
        for f in range(14)
    ]
    text = json.dumps(files, separators=(",", ":"))
    result = json_doc.optimize(text.encode(), COARSE)
    rendered = render_preview(result)
    grouped = json.loads(rendered)[0]["findings by rule"]
    assert len(grouped) == 1 and grouped[0]["ruleId"] == "no-unused-vars" and grouped[0]["severity"] == 2
    listed = grouped[0]["findings"]
    assert listed.startswith("[×112] {in /src/: mod0.js:1:7 :2:7 :3:7 :4:7 :5:7 :6:7 :7:7 :8:7 mod1.js:1:7 ")
    assert listed.endswith(", v13_6, v13_7}' is defined but never used.")
    for f in range(14):
        assert f'{{"filePath":"/src/mod{f}.js","messages":"[8 items] #ref:ctx_' in rendered
    assert len(result.signals) == 112 and "/src/mod13.js:8:7: 'v13_7' is defined but never used." in result.signals
    assert line_shown.not_shown(result.signals, rendered) == ()
    assert "Remove unused variable" not in rendered


def test_eslint_json_findings_are_listed_by_rule() -> None:
    """eslint `-f json`: every finding's location and message values under its rule, each
    file's path and counts beside its folded findings, at least 60% saved."""
    raw = (FIXTURES / "real/eslint_json.json").read_bytes()
    result = json_doc.optimize(raw, COARSE)
    rendered = render_preview(result)
    grouped = json.loads(rendered)[0]["findings by rule"]
    assert [group["ruleId"] for group in grouped] == [
        "no-var", "no-unused-vars", "eqeqeq", "no-debugger", "prefer-const", "no-undef", "no-dupe-keys"
    ]
    assert (
        '{"ruleId":"no-debugger","severity":2,"message":"Unexpected \'debugger\' statement.",'
        '"findings":"[×20] {in /tmp/survey/work/js/lib/: mod00 mod01'
    ) in rendered
    assert "mod08 mod09}.js:9:24 {mod10 mod11" in rendered and "'{f0, f1, f2," in rendered
    assert '"filePath":"/tmp/survey/work/js/lib/mod19.js","…": "2 fields: messages, suppressedMessages #ref:ctx_' in rendered
    assert '"errorCount":6,"fatalErrorCount":0,"warningCount":2,"fixableErrorCount":1,"fixableWarningCount":1' in rendered
    assert len(result.signals) == 160 and line_shown.not_shown(result.signals, rendered) == ()
    assert 1 - tokens.count(rendered) / tokens.count(raw.decode()) >= 0.6


def test_findings_the_rule_cannot_read_keep_the_record_layout() -> None:
    """A finding without a line (eslint's `File ignored …`) would fold unseen: no grouping."""
    files = [
        {"filePath": f"/src/m{f}.js", "messages": [{"ruleId": "r", "message": "Bad.", "line": n} for n in range(6)]}
        for f in range(4)
    ]
    files[2]["messages"] = [{"ruleId": None, "severity": 1, "message": "File ignored because of a matching pattern."}]
    rendered = preview(json.dumps(files).encode())
    assert "findings by rule" not in rendered and "File ignored because" in rendered


def test_grouped_findings_show_quotes_and_escapes() -> None:
    files = [
        {"file": f"src/m{f}.py", "errors": [{"code": "E1", "message": f'Bad "q{f}" \\ here', "line": 3, "col": 1}]}
        for f in range(5)
    ]
    result = json_doc.optimize(json.dumps(files).encode(), COARSE)
    rendered = render_preview(result)
    json.loads(rendered)
    assert len(result.signals) == 5 and line_shown.not_shown(result.signals, rendered) == ()


def test_thousands_of_records_keep_the_folded_layout() -> None:
    jobs = [{"id": f"job_{i}", "status": "ok", "node": "n" * 80} for i in range(3000)]
    rendered = preview(json.dumps(jobs, indent=2).encode())
    assert '"id": "job_1500"' not in rendered
    assert "[2,999 similar items] #ref:" in rendered


def test_few_distinct_messages_of_one_template_are_each_spelled_as_the_input_writes_them() -> None:
    """Three `'x' is not defined` findings are three bugs a person greps for by their exact
    message; twenty variants of one template stay one line listing the values."""
    files = [
        {"filePath": f"/src/m{f}.js", "messages": [
            {"ruleId": "no-var", "severity": 2, "message": "Unexpected var.", "line": n, "column": 1} for n in range(1, 9)
        ] + [{"ruleId": "no-undef", "severity": 2, "message": f"'gone{f % 3}' is not defined.", "line": 40, "column": 7}]}
        for f in range(12)
    ]
    raw = json.dumps(files, separators=(",", ":")).encode()
    result = json_doc.optimize(raw, COARSE)
    rendered = render_preview(result)
    for name in ("gone0", "gone1", "gone2"):
        assert f'"message":"\'{name}\' is not defined."' in rendered
    assert '"message":"Unexpected var.","findings":"[×96] ' in rendered
    assert line_shown.not_shown(result.signals, rendered) == ()
    many = raw  # twelve distinct names: more than a template spells out
    for f in range(12):
        many = many.replace(f"'gone{f % 3}'".encode(), f"'name{f}'".encode(), 1)
    assert "'{name0, name1, name2," in render_preview(json_doc.optimize(many, COARSE))


def test_json_lines_are_told_from_their_first_line_without_parsing_the_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def parsed_whole(data: bytes) -> bool:
        raise AssertionError("the whole input was parsed")

    lines = b'{"id": 1, "ok": true}\n{"id": 2, "ok": false}\n'
    with monkeypatch.context() as patched:
        patched.setattr(json_doc, "looks_like_json", parsed_whole)
        assert detect_json(lines, lines) is None
    # Whitespace after a whole first line, or a first line that is not whole, leaves the
    # answer to the whole document's parse.
    for document in (b'{"id": 1}\n \t\r\n', b'{"ids": [\n1, 2]}\n', b"[1]\n[2]"):
        assert (detect_json(document, document) is not None) == json_doc.looks_like_json(document), document
