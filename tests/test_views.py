"""Budgeted views: exact bytes when they fit, honest degradation, never over budget unless truncated."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import GIT
from tokenlab.counting import tokens
from tokenlab.errors import InputError
from tokenlab.reads.pointers import deref, parse_pointer
from tokenlab.reads.views import LineRange, ReadRequest, ReadResponse, View, read


def module_source(classes: int, methods: int) -> str:
    parts = ['"""A generated module."""\n\nimport os\n']
    for c in range(classes):
        parts.append(f'\n\nclass Widget{c}:\n    """Widget number {c}."""\n')
        for m in range(methods):
            parts.append(
                f"\n    def method_{m}(self, value: int) -> int:\n        return value * {m} + {c}\n"
            )
    parts.append("\n\ndef helper(x):\n    return x\n")
    return "".join(parts)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("TOKENLAB_NODE", "testnode")
    root = tmp_path / "proj"
    root.mkdir()
    (root / "big.py").write_text(module_source(30, 12))
    (root / "small.py").write_bytes(
        b"def f():\r\n    return 1\r\n\r\nclass C:\r\n    def m(self):\r\n        pass"
    )
    (root / "doc.md").write_text("# Guide\n\nIntro.\n\n## Install\n\nRun it.\n\n## Renewal\n\nEvery year.\n")
    (root / "empty.txt").write_bytes(b"")
    (root / "latin.txt").write_bytes(b"caf\xe9\nna\xefve\n")
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "fixtures"]):
        subprocess.run([*GIT, "-C", str(root), *args], check=True, capture_output=True)
    monkeypatch.chdir(root)
    return root


def assert_honest(response: ReadResponse) -> None:
    """The invariant every read keeps: within budget unless truncated, counts exact."""
    assert response.tokens == tokens.count(response.content)
    if not response.truncated:
        assert response.tokens <= response.budget_tokens
    else:
        assert response.cut and response.tokens <= response.budget_tokens


def assert_evidence_exact(response: ReadResponse) -> None:
    assert response.evidence
    for item in response.evidence:
        deref(parse_pointer(item.pointer)).verify(item.sha256)


def test_full_view_is_byte_identical_when_it_fits(repo: Path) -> None:
    response = read(ReadRequest(Path("small.py"), View.FULL, 100_000))
    assert response.view == "full" and response.degraded_from is None
    assert response.raw == (repo / "small.py").read_bytes()
    assert response.content.encode() == response.raw
    assert_evidence_exact(response)


def test_auto_picks_full_when_it_fits_and_outline_when_not(repo: Path) -> None:
    whole = read(ReadRequest(Path("big.py"), View.AUTO, 100_000))
    assert whole.view == "full" and whole.raw == (repo / "big.py").read_bytes()
    outlined = read(ReadRequest(Path("big.py"), View.AUTO, 1000))
    assert outlined.view == "outline" and outlined.degraded_from == "full"
    assert "class Widget0" in outlined.content
    assert outlined.outline and outlined.outline[0]["kind"] == "class"
    assert_honest(outlined)
    assert_evidence_exact(outlined)


@pytest.mark.parametrize("budget", [0, 1, 5, 20, 50, 200, 1000, 5000, 100_000])
@pytest.mark.parametrize("view", [View.AUTO, View.FULL, View.OUTLINE])
def test_never_over_budget_unless_truncated(repo: Path, budget: int, view: View) -> None:
    response = read(ReadRequest(Path("big.py"), view, budget))
    assert_honest(response)
    assert response.requested_view == view.value


def test_coarser_outlines_keep_classes_before_their_methods_and_say_what_they_hide(repo: Path) -> None:
    full_outline = read(ReadRequest(Path("big.py"), View.OUTLINE, 100_000))
    assert full_outline.degraded_from is None and "method method_11" in full_outline.content
    coarse = read(ReadRequest(Path("big.py"), View.OUTLINE, 400))
    assert coarse.degraded_from == "outline"
    assert "class Widget29" in coarse.content and "[+12]" in coarse.content
    assert "symbols not shown (smaller, less referenced ones" in coarse.content
    assert_honest(coarse)


def test_tiny_budgets_keep_the_largest_top_level_symbols_then_a_stub(repo: Path) -> None:
    partial = read(ReadRequest(Path("big.py"), View.OUTLINE, 60))
    assert partial.view == "outline" and "of them top-level" in partial.content
    assert "class Widget0" in partial.content and "function helper" not in partial.content
    stub = read(ReadRequest(Path("big.py"), View.AUTO, 30))
    assert stub.view == "stub" and "big.py" in stub.content and "@" in stub.content
    assert_honest(partial)
    assert_honest(stub)


def test_a_stub_that_does_not_fit_is_cut_and_says_so(repo: Path) -> None:
    response = read(ReadRequest(Path("big.py"), View.AUTO, 4))
    assert response.truncated and response.view == "stub"
    assert "does not fit" in (response.cut or "")
    zero = read(ReadRequest(Path("big.py"), View.AUTO, 0))
    assert zero.truncated and zero.content == "" and zero.tokens == 0


def test_lines_view_returns_exact_bytes(repo: Path) -> None:
    response = read(ReadRequest(Path("small.py"), View.LINES, 1000, lines=LineRange.parse("2-4")))
    assert response.view == "lines" and response.raw == b"    return 1\r\n\r\nclass C:\r\n"
    assert_evidence_exact(response)
    tail = read(ReadRequest(Path("small.py"), View.AUTO, 1000, lines=LineRange.parse("5-")))
    assert tail.view == "lines" and tail.raw == b"    def m(self):\r\n        pass"


def test_lines_past_the_end_are_clamped_or_refused(repo: Path) -> None:
    clamped = read(ReadRequest(Path("small.py"), View.LINES, 1000, lines=LineRange(5, 99)))
    assert "clamped" in clamped.note and clamped.raw is not None and clamped.raw.endswith(b"pass")
    with pytest.raises(InputError, match="has 6 lines"):
        read(ReadRequest(Path("small.py"), View.LINES, 1000, lines=LineRange(7, 8)))


@pytest.mark.parametrize("text", ["x", "0-1", "3-2", "1-2-3"])
def test_bad_line_ranges_are_input_errors(text: str) -> None:
    with pytest.raises(InputError):
        LineRange.parse(text)


def test_lines_that_do_not_fit_degrade_to_their_outline(repo: Path) -> None:
    response = read(ReadRequest(Path("big.py"), View.LINES, 60, lines=LineRange(1, 200)))
    assert response.view in ("outline", "stub") and response.degraded_from == "lines"
    assert response.evidence[0].pointer.endswith("#L1-L200")
    assert_honest(response)


def test_section_view_returns_the_symbol_lines(repo: Path) -> None:
    response = read(ReadRequest(Path("big.py"), View.SECTION, 1000, section="Widget3.method_2"))
    assert response.view == "section"
    assert response.content.lstrip().startswith("def method_2") and "+ 3" in response.content
    assert_evidence_exact(response)
    heading = read(ReadRequest(Path("doc.md"), View.AUTO, 1000, section="Renewal"))
    assert heading.view == "section" and heading.raw == b"## Renewal\n\nEvery year.\n"


def test_a_section_that_does_not_fit_degrades_to_its_own_outline(repo: Path) -> None:
    response = read(ReadRequest(Path("big.py"), View.SECTION, 60, section="Widget7"))
    assert response.view == "outline" and response.degraded_from == "section"
    assert "Widget7" in response.content and "Widget8" not in response.content
    assert_honest(response)


def test_an_unknown_section_names_what_exists(repo: Path) -> None:
    with pytest.raises(InputError, match="Widget0"):
        read(ReadRequest(Path("big.py"), View.SECTION, 1000, section="Nope"))
    with pytest.raises(InputError, match="needs --section"):
        read(ReadRequest(Path("big.py"), View.SECTION, 1000))


def test_summary_is_unavailable_without_a_summarizer(repo: Path) -> None:
    with pytest.raises(InputError, match="summarizer"):
        read(ReadRequest(Path("big.py"), View.SUMMARY, 1000))
    for budget in (10, 100, 1000, 100_000):
        assert read(ReadRequest(Path("big.py"), View.AUTO, budget)).view != "summary"


def test_reads_are_deterministic(repo: Path) -> None:
    first = read(ReadRequest(Path("big.py"), View.AUTO, 700))
    second = read(ReadRequest(Path("big.py"), View.AUTO, 700))
    assert first == second and first.as_dict() == second.as_dict()


def test_invalid_utf8_is_shown_with_replacement_but_raw_stays_exact(repo: Path) -> None:
    response = read(ReadRequest(Path("latin.txt"), View.FULL, 1000))
    assert "\ufffd" in response.content and "U+FFFD" in response.note
    assert response.raw == (repo / "latin.txt").read_bytes()
    assert_evidence_exact(response)


def test_an_empty_file_reads_as_empty_full(repo: Path) -> None:
    response = read(ReadRequest(Path("empty.txt"), View.AUTO, 10))
    assert response.view == "full" and response.content == "" and response.tokens == 0
    assert_evidence_exact(response)


def test_modified_files_point_at_the_working_tree(repo: Path) -> None:
    (repo / "small.py").write_bytes(b"def g():\n    pass\n")
    response = read(ReadRequest(Path("small.py"), View.AUTO, 1000))
    assert all("@worktree#" in item.pointer for item in response.evidence)
    assert_evidence_exact(response)


def test_response_object_has_the_documented_fields(repo: Path) -> None:
    fields = read(ReadRequest(Path("doc.md"), View.OUTLINE, 1000)).as_dict()
    for name in ("view", "requested_view", "budget_tokens", "tokens", "generated", "truncated",
                 "degraded_from", "content", "outline", "evidence"):  # fmt: skip
        assert name in fields
    assert fields["generated"] is False
    assert fields["outline"][0] == {
        "kind": "heading", "name": "Guide", "start_line": 1, "end_line": 11, "detail": "#",
        "children": fields["outline"][0]["children"],
    }  # fmt: skip
    assert [child["name"] for child in fields["outline"][0]["children"]] == ["Install", "Renewal"]
    assert set(fields["evidence"][0]) == {"pointer", "sha256"}


def test_negative_budget_is_refused(repo: Path) -> None:
    with pytest.raises(InputError):
        read(ReadRequest(Path("small.py"), View.AUTO, -1))


@settings(max_examples=60, deadline=None)
@given(
    data=st.one_of(
        st.binary(max_size=3000),
        st.text(alphabet="def clas():\n #\r\t{}[]x1é", max_size=3000).map(str.encode),
    ),
    budget=st.integers(min_value=0, max_value=400),
    view=st.sampled_from([View.AUTO, View.FULL, View.OUTLINE]),
    suffix=st.sampled_from([".py", ".md", ".json", ".txt", ".c"]),
)
def test_any_bytes_any_budget_stays_honest(data: bytes, budget: int, view: View, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"input{suffix}"
        path.write_bytes(data)
        response = read(ReadRequest(path, view, budget))
        assert_honest(response)
        if response.raw is not None:
            assert response.raw == data
        for item in response.evidence:
            deref(parse_pointer(item.pointer)).verify(item.sha256)
