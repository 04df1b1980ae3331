"""Tests for the XML optimizer: report goldens, failures visible, exact recovery, hostile input."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import xml_cases
from tests.conftest import Golden, render_preview
from tokenlab.classify import classify
from tokenlab.counting import tokens
from tokenlab.optimizers import ContentType, Omission, OptimizerConfig
from tokenlab.optimizers.lines import shown as line_shown
from tokenlab.optimizers.xml_report import optimizer as xml_report
from tokenlab.packet import Status
from tokenlab.pipeline import analyze
from tokenlab.restore import restore
from tokenlab.store import FolderStore, open_store

COARSE = OptimizerConfig()
REAL_XML = sorted((Path(__file__).parent.parent / "fixtures" / "real").glob("*.xml"))
CASES = {
    "junit_pytest": xml_cases.junit_pytest,
    "surefire": xml_cases.surefire,
    "checkstyle": xml_cases.checkstyle,
}


def preview(data: bytes) -> str:
    return render_preview(xml_report.optimize(data, COARSE))


def saved(data: bytes) -> float:
    return 1 - tokens.count(preview(data)) / tokens.count(data.decode("utf-8"))


@pytest.mark.parametrize("case", sorted(CASES))
def test_goldens(case: str, golden: Golden) -> None:
    golden.check(f"xml/{case}.txt", preview(CASES[case]()))


@pytest.mark.parametrize("case", sorted(CASES))
def test_omissions_tile_the_input(case: str) -> None:
    """Visible literal input bytes and omissions, in order, are the input."""
    data = CASES[case]()
    result = xml_report.optimize(data, COARSE)
    omissions = list(result.omissions)
    assert omissions
    position = 0
    for omission in omissions:
        found = data.find(omission.data, position)
        assert found >= position
        position = found + len(omission.data)
    assert sum(len(o.data) for o in omissions) < len(data)


def test_junit_failures_and_errors_stay_visible() -> None:
    data = xml_cases.junit_pytest()
    shown = preview(data)
    for name in ("test_refund_partial", "test_export_unicode", "test_store_reopen"):
        assert f'name="{name}"' in shown
    assert "<failure message=\"AssertionError: assert 'pending' == 'settled'\">" in shown
    assert "UnicodeEncodeError: 'ascii' codec can't encode character" in shown
    assert "PermissionError: [Errno 13] Permission denied" in shown
    assert 'tests="200"' in shown and 'failures="2"' in shown and 'errors="1"' in shown
    assert "tests/test_api.py:88: AssertionError</failure>" in shown  # the body's last line
    assert 'name="test_case_012"' in shown  # skipped cases stay, up to a limit
    assert 'name="test_case_013"' not in shown
    assert sum(int(n) for n in re.findall(r"<!-- (\d+) passing testcases", shown)) == 194
    assert saved(data) > 0.85


def test_surefire_and_checkstyle_keep_what_matters() -> None:
    shown = preview(xml_cases.surefire())
    for fragment in (
        'name="shouldRejectNegativeQuantity"',
        'message="expected: &lt;400&gt; but was: &lt;200&gt;"',
        'name="shouldConnectToInventory"',
        'message="Connection refused: localhost/127.0.0.1:5432"',
        "<flakyFailure",
        "[… 16 lines: #ref:ctx_",
    ):
        assert fragment in shown
    lint = preview(xml_cases.checkstyle())
    assert "Class04.java:12:1: error Unused import - java.util.List. [UnusedImportsCheck]" in lint
    assert "[×20] {/home/runner/work/shop/src/main/java/com/shop/module0/Class04.java:30:9 :33:12 :36:10 … +17 in this file}" in lint
    assert "Class41.java:7:5: warning Missing a Javadoc comment." in lint
    assert "[checkstyle: 60 files, 2 with findings (29 warnings, 1 error) in 4 groups: #ref:ctx_" in lint


def test_generic_xml_folds_long_runs_and_keeps_anomalies() -> None:
    items = "".join(
        f'  <host name="web-{i}" status="{"down" if i == 33 else "up"}" region="eu"/>\n' for i in range(80)
    )
    data = f"<inventory>\n{items}</inventory>\n".encode()
    shown = preview(data)
    assert 'name="web-0"' in shown and 'name="web-33" status="down"' in shown
    assert 'name="web-50"' not in shown
    assert "<!-- 32 host elements: #ref:ctx_" in shown


def test_small_document_is_unchanged() -> None:
    data = b'<?xml version="1.0"?>\n<testsuite tests="2"><testcase name="a"/><testcase name="b"/>'
    data += b"</testsuite>\n"
    assert preview(data) == data.decode()


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"<a>",
        b"<a></b>",
        b"<a/><b/>",
        b"text <a/>",
        b"<a><!-- unterminated </a>",
        b'<a x="1>',
        b"<html><br></html>",
        b"<!DOCTYPE x [<!ENTITY a 'b'>]><x>&a;</x>junk",
        b"\xff\xfe<\x00a\x00/\x00>\x00",
    ],
)
def test_malformed_input_is_shown_whole(data: bytes) -> None:
    result = xml_report.optimize(data, COARSE)
    assert not list(result.omissions)
    assert "".join(p for p in result.parts if isinstance(p, str)) == data.decode("utf-8", "replace")


def test_entities_are_never_expanded() -> None:
    laughs = b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
    laughs += b"".join(
        b' <!ENTITY lol%d "%s">\n' % (n, (b"&lol%d;" % (n - 1) if n > 1 else b"&lol;") * 10)
        for n in range(1, 10)
    )
    laughs += b"]>\n<lolz>&lol9;</lolz>\n"
    assert xml_report.looks_like_xml(laughs)
    assert preview(laughs) == laughs.decode()
    external = b'<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>'
    assert preview(external) == external.decode()


def test_deep_nesting_and_large_input_stay_linear() -> None:
    deep = b"<a>" * 50_000 + b"x" + b"</a>" * 50_000
    assert xml_report.looks_like_xml(deep)
    assert render_preview(xml_report.optimize(deep, COARSE)) == deep.decode()
    big = xml_cases.junit_pytest(20_000)
    shown = preview(big)
    assert len(shown) < len(big) / 20


def test_classification() -> None:
    for make in CASES.values():
        assert classify(make()).content_type is ContentType.XML
    assert classify(b'{"a": "<b/>"}').content_type is ContentType.JSON
    assert classify(b"<html><body><p>hi<br></p></body></html>").content_type is not ContentType.XML
    assert classify(b"<13>Jan  1 00:00:00 host app: started\n" * 3).content_type is not ContentType.XML


@pytest.mark.parametrize("case", sorted(CASES))
def test_end_to_end_recovery(case: str, tmp_path: Path) -> None:
    data = CASES[case]()
    store = FolderStore(tmp_path / "store")
    packet = analyze(data, source=f"{case}.xml", store=store)
    assert packet.content_type is ContentType.XML
    assert packet.recovery_status.value == "PASS", packet.recovery_failures
    assert restore(packet.visible.encode("utf-8"), store) == data
    for ref in packet.refs:
        assert store.load(ref.id).data == ref.data


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400) | st.text(alphabet='<>/a b="\'!-?[]CDAT&;\n', max_size=120).map(str.encode))
def test_arbitrary_bytes_never_raise(data: bytes) -> None:
    result = xml_report.optimize(data, COARSE)
    assert all(isinstance(part, (str, Omission)) for part in result.parts)
    xml_report.looks_like_xml(data)


_CASE_LINES = st.lists(
    st.tuples(st.sampled_from(["pass", "fail", "skip", "out"]), st.text(alphabet="ab <&é\n", max_size=30)),
    min_size=1,
    max_size=60,
)


def _suite(cases: list[tuple[str, str]]) -> bytes:
    body = []
    for n, (kind, text) in enumerate(cases):
        text = text.replace("&", "&amp;").replace("<", "&lt;")
        inner = {
            "pass": "",
            "fail": f'<failure message="m{n}">{text}</failure>',
            "skip": "<skipped/>",
            "out": f"<system-out>{text * 40}</system-out>",
        }[kind]
        body.append(f'<testcase name="t{n}">{inner}</testcase>' if inner else f'<testcase name="t{n}"/>')
    return (f'<testsuite tests="{len(cases)}">\n' + "\n".join(body) + "\n</testsuite>\n").encode()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_CASE_LINES)
def test_generated_reports_round_trip_and_show_failures(cases: list[tuple[str, str]]) -> None:
    data = _suite(cases)
    store = open_store()
    packet = analyze(data, source="generated.xml", store=store)
    assert restore(packet.visible.encode("utf-8"), store) == data
    shown = render_preview(xml_report.optimize(data, COARSE))
    for n, (kind, _) in enumerate(cases):
        if kind == "fail":
            assert f'<testcase name="t{n}"><failure message="m{n}">' in shown
            assert f'<testcase name="t{n}">' in packet.automatic_signals
            assert f'<failure message="m{n}">' in packet.automatic_signals
    assert f'<testsuite tests="{len(cases)}">' in packet.automatic_signals
    assert packet.signal_status is Status.PASS, packet.missing_signals


# --- signals: what the SIGNAL stage checks --------------------------------------------------


def signal_pass(data: bytes, source: str) -> tuple[str, ...]:
    """The automatic signals of a full run, which must all be visible."""
    packet = analyze(data, source=source, store=open_store())
    assert packet.content_type is ContentType.XML
    assert packet.automatic_signals
    assert packet.signal_status is Status.PASS, packet.missing_signals
    assert not packet.missing_signals
    return packet.automatic_signals


def test_junit_signals_name_each_failure_its_message_and_the_suite() -> None:
    signals = xml_report.optimize(xml_cases.junit_pytest(), COARSE).signals
    assert len(signals) == 7
    for name in ("test_refund_partial", "test_export_unicode", "test_store_reopen"):
        assert sum(f'name="{name}"' in s and s.startswith("<testcase ") for s in signals) == 1
    assert "<failure message=\"AssertionError: assert 'pending' == 'settled'\">" in signals
    assert any(s.startswith('<error message="failed on setup with &quot;PermissionError') for s in signals)
    assert any(s.startswith("<testsuite ") and 'tests="200"' in s and 'failures="2"' in s for s in signals)
    assert not any("test_case_012" in s for s in signals)  # skipped, not failing
    assert signal_pass(xml_cases.junit_pytest(), "junit.xml") == signals


def test_surefire_signals_keep_multi_line_tags_by_their_lines() -> None:
    signals = signal_pass(xml_cases.surefire(), "TEST-surefire.xml")
    assert (
        '<failure message="expected: &lt;400&gt; but was: &lt;200&gt;" type="org.opentest4j.AssertionFailedError">'
        in signals
    )
    assert any('name="shouldConnectToInventory"' in s for s in signals)
    assert any(s.startswith("<flakyFailure message=") for s in signals)
    data = b"\n".join(
        [
            b"<testsuite",
            b'    name="multi"',
            b'    tests="40" failures="1"',
            b'    time="1.5">',
            *(b'  <testcase name="t%d" classname="c.Multi" time="0.01"/>' % n for n in range(39)),
            b'  <testcase classname="c.Multi"',
            b'            name="broken" time="0.2">',
            b'    <failure type="AssertionError"',
            b'             message="line one',
            b'line two">trace</failure>',
            b"  </testcase>",
            b"</testsuite>\n",
        ]
    )
    signals = signal_pass(data, "multi.xml")
    assert signals == (
        'name="broken" time="0.2">',
        'message="line one',
        'name="multi"',
        'tests="40" failures="1"',
    )


def test_checkstyle_signals_are_each_error_as_a_diagnostic_line() -> None:
    signals = signal_pass(xml_cases.checkstyle(), "checkstyle.xml")
    path = "/home/runner/work/shop/src/main/java/com/shop/module0/Class04.java"
    assert signals == (f"{path}:12:1: error Unused import - java.util.List. [UnusedImportsCheck]",)


def test_checkstyle_findings_group_by_rule_and_template() -> None:
    """eslint's checkstyle report: every error listed by location under its message
    template (names tallied), a folder shared by a list named once, a frequent warning
    sampled with a count, and the whole report behind one ref."""
    data = (REAL_XML[0].parent / "eslint_checkstyle.xml").read_bytes()
    result = xml_report.optimize(data, COARSE)
    shown = render_preview(result)
    assert shown.startswith('<?xml version="1.0" encoding="utf-8"?><checkstyle version="4.3">\n[checkstyle: 14 files')
    assert "(102 errors, 11 warnings) in 9 groups: #ref:ctx_" in shown
    assert (
        "[×11] {in /tmp/captures/eslintproj/src/: mod00.js:10:10 mod01.js:5:10 mod05.js:15:10 mod06.js:35:10"
        " mod07.js:27:10 mod08.js:10:10 :26:10 mod10.js:10:10 mod12.js:28:10 :32:10 mod13.js:12:10}:"
        " error 'helperMissing' is not defined. (no-undef)"
    ) in shown
    assert "error '{fs ×14, e ×8, b ×12}' is defined but never used. (no-unused-vars)" in shown
    assert "mod02.js:12:3 … +8}: warning Unexpected console statement. (no-console)" in shown
    assert "<error " not in shown and shown.rstrip().endswith("</checkstyle>")
    assert len(result.signals) == 102 and not line_shown.not_shown(result.signals, shown)
    assert [o.data for o in result.omissions] == [data[data.index(b"<file ") : data.rindex(b"</checkstyle>")]]
    assert saved(data) >= 0.6


def test_checkstyle_errors_stay_shown_with_a_path_of_spaces() -> None:
    """A path the location helpers do not read as one (a space in it) still shows each error."""
    errors = "".join(
        f'<error line="{n}" column="1" severity="error" message="Bad thing {n}." source="x.Rule"/>' for n in (3, 9)
    )
    data = f'<checkstyle><file name="my dir/a b.js">{errors}</file><file name="c.js"/></checkstyle>'.encode()
    result = xml_report.optimize(data, COARSE)
    shown = render_preview(result)
    assert not line_shown.not_shown(result.signals, shown) and len(result.signals) == 2


def test_clean_checkstyle_report_says_so() -> None:
    files = "".join(f'<file name="src/m{n:02d}.js"></file>' for n in range(40))
    shown = preview(f'<?xml version="1.0"?><checkstyle version="4.3">{files}</checkstyle>'.encode())
    assert shown.startswith('<?xml version="1.0"?><checkstyle version="4.3">\n[checkstyle: 40 files, no findings: #ref:ctx_')


def test_checkstyle_of_another_shape_keeps_the_generic_layout() -> None:
    data = b'<checkstyle><file name="a.js"><error line="1" message="m">text</error></file></checkstyle>'
    assert preview(data) == data.decode()


def test_every_testsuite_tag_stays_in_a_long_run_of_suites() -> None:
    """Twelve passing suites are not folded as `testsuite elements`: each keeps its tag and counts."""
    suites = [
        f'<testsuite name="suite{n}" tests="8" failures="0" errors="0">'
        + "".join(f'<testcase name="case{n}_{k}" classname="s{n}" time="0.001"/>' for k in range(8))
        + "</testsuite>\n"
        for n in range(12)
    ]
    failing = '<testcase name="case7_3" classname="s7" time="0.001"><failure message="boom"/></testcase>'
    suites[7] = suites[7].replace('<testcase name="case7_3" classname="s7" time="0.001"/>', failing)
    suites[7] = suites[7].replace('failures="0"', 'failures="1"')
    data = ("<testsuites>\n" + "".join(suites) + "</testsuites>\n").encode()
    shown = preview(data)
    for n in range(12):
        assert f'<testsuite name="suite{n}" tests="8"' in shown
    assert "testsuite elements" not in shown and "passing testcases" in shown
    signals = signal_pass(data, "suites.xml")
    assert signals[:2] == (
        '<testcase name="case7_3" classname="s7" time="0.001">',
        '<failure message="boom"/>',
    )
    assert len(signals) == 14


def test_signals_are_capped_failures_first() -> None:
    cases = "".join(f'<testcase name="t{n}"><failure message="m{n}"/></testcase>\n' for n in range(400))
    data = f'<testsuite tests="400" failures="400">\n{cases}</testsuite>\n'.encode()
    signals = xml_report.optimize(data, COARSE).signals
    assert len(signals) == xml_report.DEFAULT_CONFIG.max_signals
    assert signals[:2] == ('<testcase name="t0">', '<failure message="m0"/>')
    assert not any(s.startswith("<testsuite") for s in signals)


def test_documents_that_are_not_reports_declare_no_signals() -> None:
    items = "".join(f'  <host name="web-{i}" status="up"/>\n' for i in range(80))
    assert xml_report.optimize(f"<inventory>\n{items}</inventory>\n".encode(), COARSE).signals == ()
    assert xml_report.optimize(b"<a></b>", COARSE).signals == ()


@pytest.mark.parametrize("path", REAL_XML, ids=[path.name for path in REAL_XML])
def test_real_reports_pass_the_signal_stage(path: Path) -> None:
    signals = signal_pass(path.read_bytes(), path.name)
    expected = {
        "eslint_checkstyle.xml": 102,  # each error-severity finding
        "pytest_junit.xml": 13,
        "surefire_TEST-com.example.calc.InterestTest.xml": 7,
    }
    assert len(signals) == expected.get(path.name, len(signals)), signals


def _parametrised_failures(count: int) -> bytes:
    cases = "".join(
        f'<testcase classname="t" name="test_rate[{n}]" time="0.001"><failure message="assert {n} == {n + 1}">'
        f"amount = {n}\n\n    def test_rate(amount):\n&gt;       assert convert(amount) == amount + 1\n"
        f"E       assert {n} == {n + 1}\n\ntest_r.py:9: AssertionError</failure></testcase>"
        for n in range(count)
    )
    other = '<testcase classname="t" name="test_other" time="0.1"><failure message="KeyError">boom\nline</failure></testcase>'
    suite = f'<testsuite name="pytest" failures="{count + 1}" tests="{count + 1}">{cases}{other}</testsuite>'
    return f'<?xml version="1.0" encoding="utf-8"?><testsuites>{suite}</testsuites>'.encode()


def test_failing_cases_of_one_skeleton_show_the_first_and_one_line_for_the_rest() -> None:
    data = _parametrised_failures(12)
    result = xml_report.optimize(data, COARSE)
    shown = render_preview(result)
    assert 'name="test_rate[0]"' in shown and "E       assert 0 == 1" in shown
    assert "[×11 more like the one above" in shown and 'name="test_other"' in shown
    # The cases' numbers are a run, said once (`test_rate[1–11]`): each one counts as shown.
    assert line_shown.not_shown(tuple(f'name="test_rate[{n}]"' for n in range(12)), shown) == ()
    assert line_shown.not_shown(result.signals, shown) == ()


def test_a_few_failing_cases_each_stay_whole() -> None:
    shown = render_preview(xml_report.optimize(_parametrised_failures(5), COARSE))
    assert all(f"E       assert {n} == {n + 1}" in shown for n in range(5))
