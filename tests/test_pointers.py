"""Evidence pointers: parsing, revisions, and deref exactness from commits and the working tree."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import run_git
from tokenlab.errors import InputError
from tokenlab.reads.pointers import (
    WORKTREE,
    Pointer,
    PointerTargetError,
    VerificationError,
    blob_id,
    deref,
    line_count,
    line_offsets,
    line_slice,
    open_source,
    parse_pointer,
)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("TOKENLAB_NODE", "testnode")
    root = tmp_path / "proj"
    root.mkdir()
    run_git(root, "init", "-q")
    (root / "src").mkdir()
    (root / "src" / "a.py").write_bytes(b"one\ntwo\r\nthree\nfour")
    (root / "notes.md").write_text("# Title\n\nbody\n")
    run_git(root, "add", ".")
    run_git(root, "commit", "-qm", "first")
    monkeypatch.chdir(root)
    return root


# --- parsing ------------------------------------------------------------------------------


def test_long_and_short_forms_parse_to_the_same_place() -> None:
    long = parse_pointer("nas://box/proj/src/a.py@abc123#L2-L3")
    short = parse_pointer("src/a.py@abc123#L2-L3")
    assert (long.node, long.tree, long.path, long.rev, long.start, long.end) == (
        "box",
        "proj",
        "src/a.py",
        "abc123",
        2,
        3,
    )
    assert (short.path, short.rev, short.start, short.end) == ("src/a.py", "abc123", 2, 3)
    assert short.node is None and long.short == short.short


@pytest.mark.parametrize(
    "text",
    [
        "nas://box/proj/src/a.py@abc123#L2-L3",
        "nas://box//etc/hosts@worktree#L1-L1",
        "src/a.py@worktree",
        "dir with space/f@x.md@0123abcd#L7-L9",
    ],
)
def test_pointers_round_trip(text: str) -> None:
    assert parse_pointer(text).uri == text


def test_single_line_fragment_means_one_line() -> None:
    pointer = parse_pointer("a.py@HEAD#L5")
    assert (pointer.start, pointer.end) == (5, 5)


def test_absolute_path_form_has_an_empty_tree() -> None:
    pointer = parse_pointer("nas://box//etc/hosts@worktree#L1-L2")
    assert pointer.tree == "" and pointer.path == "/etc/hosts"


@pytest.mark.parametrize(
    "text",
    [
        "a.py",
        "a.py#L1-L2",
        "@abc",
        "a.py@-rf#L1",
        "a.py@abc#L3-L2",
        "a.py@abc#L0-L1",
        "../x@abc#L1",
        "nas://box@abc",
    ],
)
def test_malformed_pointers_are_input_errors(text: str) -> None:
    with pytest.raises(InputError):
        parse_pointer(text)


# --- lines ---------------------------------------------------------------------------------


def test_lines_keep_their_exact_endings() -> None:
    data = b"one\ntwo\r\nthree\nfour"
    assert line_count(data) == 4
    assert line_slice(data, 2, 3) == b"two\r\nthree\n"
    assert line_slice(data, 4, 4) == b"four"
    with pytest.raises(PointerTargetError):
        line_slice(data, 4, 5)


@given(st.binary(max_size=300))
def test_every_line_range_reassembles_the_bytes(data: bytes) -> None:
    total = line_count(data)
    offsets = line_offsets(data)
    assert len(offsets) - 1 == total
    assert b"".join(line_slice(data, n, n, offsets=offsets) for n in range(1, total + 1)) == data


def test_blob_id_is_what_git_computes(tmp_path: Path) -> None:
    data = b"hello\x00world\r\n"
    (tmp_path / "f").write_bytes(data)
    expected = subprocess.run(
        ["git", "hash-object", str(tmp_path / "f")], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert blob_id(data, 40) == expected


# --- revisions ------------------------------------------------------------------------------


def test_a_clean_tracked_file_is_pointed_at_in_its_commit(repo: Path) -> None:
    source = open_source(repo / "src" / "a.py")
    head = run_git(repo, "rev-parse", "HEAD")
    assert source.revision == head
    assert source.pointer(2, 3).uri == f"nas://testnode/proj/src/a.py@{head}#L2-L3"


def test_modified_and_untracked_files_are_pointed_at_in_the_working_tree(repo: Path) -> None:
    (repo / "src" / "a.py").write_bytes(b"changed\n")
    (repo / "new.txt").write_bytes(b"x\n")
    assert open_source(repo / "src" / "a.py").revision == WORKTREE
    assert open_source(repo / "new.txt").revision == WORKTREE


def test_a_file_outside_any_repository_gets_an_absolute_pointer(tmp_path: Path) -> None:
    loose = tmp_path / "loose.txt"
    loose.write_bytes(b"a\nb\n")
    source = open_source(loose)
    assert source.location.tree == ""
    assert source.pointer(1, 2).uri.startswith(f"nas://{source.node}//")
    assert deref(parse_pointer(source.pointer(1, 2).uri)).data == b"a\nb\n"


def test_a_folder_device_or_missing_file_cannot_be_read(repo: Path) -> None:
    with pytest.raises(InputError, match="folder"):
        open_source(repo / "src")
    with pytest.raises(InputError, match="no such file"):
        open_source(repo / "missing.py")
    with pytest.raises(InputError, match="not a regular file"):
        open_source(Path("/dev/zero"))


def test_a_file_over_the_size_cap_is_refused_before_reading(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tokenlab.reads import pointers

    monkeypatch.setattr(pointers, "MAX_READ_BYTES", 10)
    with pytest.raises(InputError, match="up to 10 bytes"):
        open_source(repo / "notes.md")


# --- deref ---------------------------------------------------------------------------------


def test_deref_reads_the_commit_even_after_the_working_tree_moved_on(repo: Path) -> None:
    source = open_source(repo / "src" / "a.py")
    evidence = source.evidence(2, 4)
    (repo / "src" / "a.py").write_bytes(b"rewritten entirely\n")
    run_git(repo, "commit", "-qam", "second")
    result = deref(parse_pointer(evidence.pointer))
    assert result.data == b"two\r\nthree\nfour"
    result.verify(evidence.sha256)
    assert evidence.sha256 == hashlib.sha256(b"two\r\nthree\nfour").hexdigest()


def test_short_form_and_symbolic_revisions_are_accepted(repo: Path) -> None:
    assert deref(parse_pointer("src/a.py@HEAD#L1-L1")).data == b"one\n"
    assert deref(parse_pointer("notes.md@HEAD")).data == b"# Title\n\nbody\n"


def test_worktree_pointer_verifies_until_the_file_changes(repo: Path) -> None:
    (repo / "src" / "a.py").write_bytes(b"local\nedit\n")
    evidence = open_source(repo / "src" / "a.py").evidence(2, 2)
    assert "@worktree#L2-L2" in evidence.pointer
    deref(parse_pointer(evidence.pointer)).verify(evidence.sha256)
    (repo / "src" / "a.py").write_bytes(b"local\nedited again\n")
    with pytest.raises(VerificationError) as caught:
        deref(parse_pointer(evidence.pointer)).verify(evidence.sha256)
    assert caught.value.exit_code == 1
    assert "working tree" in str(caught.value)


def test_unknown_commit_path_and_range_are_clear_errors(repo: Path) -> None:
    cases = {
        "src/a.py@0123456789abcdef0123456789abcdef01234567#L1-L1": "unknown commit",
        "src/nope.py@HEAD#L1-L1": "does not exist at commit",
        "src/a.py@HEAD#L9-L10": "outside the file",
        "src@HEAD": "not a file",
    }
    for text, message in cases.items():
        with pytest.raises(PointerTargetError, match=message) as caught:
            deref(parse_pointer(text))
        assert caught.value.exit_code == 2


def test_a_pointer_into_another_tree_or_node_is_refused(repo: Path) -> None:
    with pytest.raises(PointerTargetError, match="tree 'other'"):
        deref(parse_pointer("nas://testnode/other/src/a.py@HEAD#L1-L1"))
    (repo / "new.txt").write_bytes(b"x\n")
    with pytest.raises(PointerTargetError, match="node 'elsewhere'"):
        deref(parse_pointer("nas://elsewhere/proj/new.txt@worktree#L1-L1"))


def test_commit_pointers_ignore_the_node(repo: Path) -> None:
    head = run_git(repo, "rev-parse", "HEAD")
    result = deref(parse_pointer(f"nas://elsewhere/proj/src/a.py@{head}#L1-L1"))
    assert result.data == b"one\n" and result.commit == head


def test_verify_accepts_upper_case_and_rejects_other_hashes(repo: Path) -> None:
    result = deref(Pointer(path="src/a.py", rev="HEAD", start=1, end=1))
    result.verify(result.sha256.upper())
    with pytest.raises(VerificationError, match="sha256 mismatch"):
        result.verify("0" * 64)
