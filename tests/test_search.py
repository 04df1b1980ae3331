"""Budgeted search: ranked, labelled snippets with exact pointers and an honest left-out count."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import GIT
from tokenlab.counting import tokens
from tokenlab.errors import InputError
from tokenlab.reads.pointers import deref, parse_pointer
from tokenlab.reads.search import MAX_LINE_CHARS, SearchRequest, SearchResponse, search

SERVICE = '''"""Billing service."""


class Invoice:
    def renew(self, months):
        """Renew the invoice."""
        return self.extend(months)

    def extend(self, months):
        return months


def renew_all(invoices):
    for invoice in invoices:
        invoice.renew(12)
'''

GUIDE = """# Guide

## Renewal

Invoices renew every year; call renew() yourself to renew early.
"""


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("TOKENLAB_NODE", "testnode")
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "billing.py").write_text(SERVICE)
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text(GUIDE)
    (root / "notes.txt").write_text("".join(f"line {n}: renew reminder\n" for n in range(300)))
    (root / "blob.bin").write_bytes(b"renew\x00\x01\x02")
    (root / ".gitignore").write_text("ignored/\n")
    (root / "ignored").mkdir()
    (root / "ignored" / "cache.py").write_text("renew = 1\n")
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "fixtures"]):
        subprocess.run([*GIT, "-C", str(root), *args], check=True, capture_output=True)
    monkeypatch.chdir(root)
    return root


def assert_within_budget(response: SearchResponse) -> None:
    assert response.tokens == tokens.count(response.content)
    assert response.tokens <= response.budget_tokens
    assert response.matches_shown + response.matches_left_out == response.matches_total


def test_the_definition_ranks_first_and_is_labelled(repo: Path) -> None:
    response = search(SearchRequest("renew", (repo / "src", repo / "docs"), 2000))
    first = response.snippets[0]
    assert first.path == "src/billing.py" and 5 in first.match_lines
    assert first.symbol == "Invoice.renew"
    labels = {snippet.symbol for snippet in response.snippets}
    assert "renew_all" in labels and "Guide/Renewal" in labels
    assert_within_budget(response)


def test_every_snippet_pointer_derefs_to_its_lines(repo: Path) -> None:
    response = search(SearchRequest("renew", (), 3000))
    assert response.snippets
    for snippet in response.snippets:
        result = deref(parse_pointer(snippet.evidence.pointer))
        result.verify(snippet.evidence.sha256)
        assert result.data.count(b"\n") == snippet.end_line - snippet.start_line + 1


def test_a_small_budget_says_how_many_matches_were_left_out(repo: Path) -> None:
    response = search(SearchRequest("renew", (), 150))
    assert response.matches_left_out > 0
    assert f"{response.matches_left_out} left out" in response.content
    assert_within_budget(response)


def test_everything_shown_says_so(repo: Path) -> None:
    response = search(SearchRequest("extend", (repo / "src",), 2000))
    assert response.matches_left_out == 0 and "[all 2 matches in 1 files shown]" in response.content


def test_an_impossible_budget_is_truncated_not_exceeded(repo: Path) -> None:
    response = search(SearchRequest("renew", (), 3))
    assert response.truncated and response.tokens <= 3 and not response.snippets


def test_ignored_and_binary_files_are_not_searched(repo: Path) -> None:
    paths = {snippet.path for snippet in search(SearchRequest("renew", (), 100_000)).snippets}
    assert "ignored/cache.py" not in paths and "blob.bin" not in paths
    assert {"src/billing.py", "docs/guide.md", "notes.txt"} <= paths


def test_never_whole_files(repo: Path) -> None:
    response = search(SearchRequest("renew", (repo / "notes.txt",), 100_000))
    assert response.matches_total == 300
    assert all(snippet.end_line - snippet.start_line < 10 for snippet in response.snippets)


def test_smart_case_and_regex(repo: Path) -> None:
    assert search(SearchRequest("invoice", (repo / "src",), 2000)).matches_total == 5
    assert search(SearchRequest("Invoice", (repo / "src",), 2000)).matches_total == 1
    regex = search(SearchRequest(r"def \w+\(self", (repo / "src",), 2000, regex=True))
    assert regex.matches_total == 2


@pytest.mark.parametrize(("query", "regex"), [("", False), ("(", True)])
def test_bad_queries_are_input_errors(repo: Path, query: str, regex: bool) -> None:
    with pytest.raises(InputError):
        search(SearchRequest(query, (), 100, regex=regex))


def test_a_missing_path_is_an_input_error(repo: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        search(SearchRequest("x", (repo / "nope",), 100))


def test_long_lines_are_clipped_around_the_match(tmp_path: Path) -> None:
    (tmp_path / "min.js").write_text("a" * 5000 + "needle" + "b" * 5000 + "\n")
    response = search(SearchRequest("needle", (tmp_path / "min.js",), 2000))
    assert "needle" in response.content
    longest = max(len(line) for line in response.content.splitlines())
    assert longest < MAX_LINE_CHARS + 20


def test_files_outside_a_repository_are_searched_with_absolute_pointers(tmp_path: Path) -> None:
    folder = tmp_path / "loose"
    (folder / ".hidden").mkdir(parents=True)
    (folder / "a.txt").write_text("alpha\nneedle\n")
    (folder / ".hidden" / "b.txt").write_text("needle\n")
    response = search(SearchRequest("needle", (folder,), 2000))
    assert response.matches_total == 1
    pointer = response.snippets[0].evidence.pointer
    assert "//" in pointer.removeprefix("nas://") and "@worktree#L1-L2" in pointer


def test_the_allow_predicate_keeps_symlinked_files_out(tmp_path: Path) -> None:
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text("needle\n")
    (inside / "link.txt").symlink_to(outside / "secret.txt")
    (inside / "own.txt").write_text("needle\n")
    response = search(
        SearchRequest("needle", (inside,), 2000), allow=lambda path: path.is_relative_to(inside)
    )
    assert response.matches_total == 1 and response.snippets[0].path.endswith("own.txt")


def test_results_are_deterministic(repo: Path) -> None:
    first = search(SearchRequest("renew", (), 400))
    assert search(SearchRequest("renew", (), 400)) == first
