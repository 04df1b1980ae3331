"""Tests for the XML optimizer: report goldens, failures visible, exact recovery, hostile input."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import xml_cases
from tests.conftest import Golden, render_preview
from tokenlab import tokens
from tokenlab.classify import classify
from tokenlab.optimizers import Omission, OptimizerConfig, xml_report
from tokenlab.packet import ContentType
from tokenlab.pipeline import analyze
from tokenlab.restore import restore
from tokenlab.store import Store

COARSE = OptimizerConfig()
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
    assert 'severity="error" message="Unused import - java.util.List."' in lint
    assert "19 repeated findings (MagicNumberCheck ×19)" in lint
    assert "Class41.java" in lint and "Missing a Javadoc comment." in lint
    assert "files without findings" in lint


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
    store = Store(tmp_path / "store")
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
    return ('<testsuite tests="%d">\n' % len(cases) + "\n".join(body) + "\n</testsuite>\n").encode()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_CASE_LINES)
def test_generated_reports_round_trip_and_show_failures(cases: list[tuple[str, str]]) -> None:
    data = _suite(cases)
    store = Store.resolve()
    packet = analyze(data, source="generated.xml", store=store)
    assert restore(packet.visible.encode("utf-8"), store) == data
    shown = render_preview(xml_report.optimize(data, COARSE))
    for n, (kind, _) in enumerate(cases):
        if kind == "fail":
            assert f'<testcase name="t{n}"><failure message="m{n}">' in shown
