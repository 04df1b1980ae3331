"""`changes`: the diff between two commits within a budget, with pointers into the newer side."""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path

import pytest

from tests.conftest import run_git
from tokenlab.counting import tokens
from tokenlab.errors import InputError
from tokenlab.reads.changes import ChangesRequest, ChangesResponse, changes, parse_hunks
from tokenlab.reads.pointers import PointerTargetError, deref, parse_pointer


def numbered(count: int, changed: Collection[int] = ()) -> str:
    return "".join(f"line {n} {'CHANGED' if n in changed else 'same'}\n" for n in range(1, count + 1))


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("TOKENLAB_NODE", "testnode")
    root = tmp_path / "proj"
    root.mkdir()
    run_git(root, "init", "-q")
    (root / "data.txt").write_text(numbered(400))
    (root / "other.txt").write_text("untouched\n")
    run_git(root, "add", ".")
    run_git(root, "commit", "-qm", "v1")
    (root / "data.txt").write_text(numbered(400, {10, 11, 200, 390}))
    run_git(root, "commit", "-qam", "v2")
    monkeypatch.chdir(root)
    return root


def assert_within_budget(response: ChangesResponse) -> None:
    assert response.tokens == tokens.count(response.content)
    assert response.tokens <= response.budget_tokens


def test_a_diff_that_fits_comes_back_whole(repo: Path) -> None:
    response = changes(ChangesRequest(Path("data.txt"), "HEAD~1", "HEAD", 4000))
    expected = run_git(repo, "diff", "HEAD~1", "HEAD", "--", "data.txt")
    assert response.view == "diff" and response.content.rstrip("\n") == expected
    assert (response.files_changed, response.hunks) == (1, 3)
    assert response.to == run_git(repo, "rev-parse", "HEAD")
    assert_within_budget(response)


def test_pointers_name_the_newer_commit_and_deref_exactly(repo: Path) -> None:
    response = changes(ChangesRequest(Path("data.txt"), "HEAD~1", "HEAD", 4000))
    head = run_git(repo, "rev-parse", "HEAD")
    assert len(response.evidence) == 3
    (repo / "data.txt").write_text("the working tree moved on\n")
    for item in response.evidence:
        assert f"@{head}#" in item.pointer
        result = deref(parse_pointer(item.pointer))
        result.verify(item.sha256)
    first = deref(parse_pointer(response.evidence[0].pointer)).data.decode()
    assert "line 10 CHANGED" in first


def test_without_to_the_working_tree_is_the_newer_side(repo: Path) -> None:
    (repo / "data.txt").write_text(numbered(400, {10, 11, 200, 390, 5}))
    response = changes(ChangesRequest(Path("data.txt"), "HEAD", None, 4000))
    assert response.to == "worktree" and response.hunks == 1
    assert "@worktree#" in response.evidence[0].pointer
    deref(parse_pointer(response.evidence[0].pointer)).verify(response.evidence[0].sha256)


def test_a_clean_working_tree_points_at_head(repo: Path) -> None:
    response = changes(ChangesRequest(Path("data.txt"), "HEAD~1", None, 4000))
    assert f"@{run_git(repo, 'rev-parse', 'HEAD')}#" in response.evidence[0].pointer


@pytest.mark.parametrize("budget", [0, 5, 20, 60, 120, 250, 100_000])
def test_never_over_budget_unless_truncated(repo: Path, budget: int) -> None:
    response = changes(ChangesRequest(Path("data.txt"), "HEAD~1", "HEAD", budget))
    if response.truncated:
        assert response.cut and response.tokens <= budget
    else:
        assert_within_budget(response)
    assert (response.degraded_from is None) == (response.view == "diff" and not response.truncated)


def test_a_diff_the_optimizer_can_shrink_comes_back_compressed(repo: Path, isolated_store: Path) -> None:
    lock = {
        f"node_modules/p{n}": {"version": f"1.0.{n}", "integrity": "sha512-" + "a" * 40} for n in range(150)
    }
    (repo / "package-lock.json").write_text(json.dumps(lock, indent=2))
    run_git(repo, "add", ".")
    run_git(repo, "commit", "-qm", "lock v1")
    (repo / "package-lock.json").write_text(json.dumps(lock, indent=1))
    (repo / "other.txt").write_text("touched\n")
    response = changes(ChangesRequest(repo, "HEAD", None, 400))
    assert response.view == "compressed" and response.degraded_from == "diff"
    assert "+touched" in response.content and "#ref:ctx_" in response.content
    assert isolated_store.exists()
    assert_within_budget(response)


def test_when_every_line_changed_the_hunk_list_stands_in(repo: Path) -> None:
    (repo / "data.txt").write_text(numbered(400, set(range(1, 401))))
    run_git(repo, "commit", "-qam", "v3")
    response = changes(ChangesRequest(Path("data.txt"), "HEAD~1", "HEAD", 1500))
    assert response.view == "hunks" and "L1-L400 (was L1, -400 +400)" in response.content
    narrow = changes(ChangesRequest(Path("data.txt"), "HEAD~2", "HEAD~1", 120))
    assert narrow.view == "hunks" and "L7-L14" in narrow.content


def test_no_changes_say_so(repo: Path) -> None:
    response = changes(ChangesRequest(Path("other.txt"), "HEAD~1", "HEAD", 100))
    assert response.view == "diff" and response.content.startswith("no changes to other.txt")
    assert response.evidence == ()


def test_a_folder_covers_every_file_in_it(repo: Path) -> None:
    (repo / "other.txt").write_text("touched\n")
    response = changes(ChangesRequest(repo, "HEAD~1", None, 4000))
    assert response.files_changed == 2 and response.path == "."


def test_unknown_commits_and_paths_are_clear_errors(repo: Path, tmp_path: Path) -> None:
    with pytest.raises(PointerTargetError, match="unknown commit"):
        changes(ChangesRequest(Path("data.txt"), "deadbeef", None, 100))
    with pytest.raises(InputError, match="no such file"):
        changes(ChangesRequest(Path("missing.txt"), "HEAD", None, 100))
    outside = tmp_path / "outside.txt"
    outside.write_text("x\n")
    with pytest.raises(InputError, match="not inside a git repository"):
        changes(ChangesRequest(outside, "HEAD", None, 100))


def test_hunk_parsing_is_not_fooled_by_removed_header_lookalikes() -> None:
    diff = (
        "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@ def f\n"
        "---- not a header\n+++++ not a header either\n context\n"
        "@@ -10 +10,0 @@\n-gone\n"
    )
    hunks = parse_hunks(diff)
    assert [(h.path, h.new_start, h.new_length, h.heading) for h in hunks] == [
        ("x", 1, 2, "def f"),
        ("x", 10, 0, ""),
    ]
