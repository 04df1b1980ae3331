"""Tests for the git status optimizer: real `git status` forms in a throwaway repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import GIT, Golden, render_preview, run_git
from tokenlab.classify import classify
from tokenlab.optimizers import ContentType, OptimizerConfig
from tokenlab.optimizers.git_status import optimizer as git_status

FIXTURES = Path(__file__).parent.parent / "fixtures" / "real"
FOLDERS = {"gen/a": ("f", ".txt", 60), "gen/b": ("g", ".json", 50), "gen/c": ("h", ".md", 40)}
NEW_FILES = [f"{folder}/{p}{i}{ext}" for folder, (p, ext, n) in FOLDERS.items() for i in range(1, n + 1)]
UNTRACKED = [f"scratch/sub/u{i}.log" for i in range(1, 13)]
FORMS = {
    "normal": (),
    "short": ("--short",),
    "porcelain": ("--porcelain",),
    "short_branch": ("-sb",),
    "uall": ("-uall",),
    "short_uall": ("--short", "-uall"),
    "porcelain_v2": ("--porcelain=v2", "--branch"),
}


def write(repo: Path, name: str, text: str) -> None:
    path = repo / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """150 staged new files in three folders, plus every other kind of entry."""
    repo = tmp_path_factory.mktemp("status")
    run_git(repo, "init", "-q", "-b", "main")
    for name in ("src/app.py", "src/util.py", "src/db.py", "docs/intro.md", "old/a.txt", "old/b.txt"):
        write(repo, name, f"{name}\n")
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", "Start")
    for name in NEW_FILES:
        write(repo, name, f"{name}\n")
    write(repo, "src/app.py", "changed\n")
    run_git(repo, "add", "gen", "src/app.py")
    run_git(repo, "rm", "-q", "old/a.txt")
    run_git(repo, "mv", "docs/intro.md", "docs/guide.md")
    write(repo, "src/util.py", "unstaged\n")
    (repo / "old/b.txt").unlink()
    for name in UNTRACKED:
        write(repo, name, "log\n")
    write(repo, "notes with space.txt", "n\n")
    return repo


def status(repo: Path, *args: str) -> bytes:
    command = [*GIT, "-C", str(repo), "-c", "color.status=false", "status", *args]
    return subprocess.run(command, check=True, capture_output=True).stdout


def shown_paths(rendered: str) -> set[str]:
    """Paths a reader derives from folder lines: `gen/a/ (60 files): f1.txt, f10.txt, …`."""
    paths = set()
    for found in re.finditer(r"(\S+/) \([\d,]+ files\): (.*)", rendered):
        paths.update(found.group(1) + name for name in found.group(2).split(", "))
    return paths


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_path_stays_derivable(form: str, repo: Path) -> None:
    data = status(repo, *FORMS[form])
    assert classify(data).content_type is ContentType.GIT_STATUS
    result = git_status.optimize(data, OptimizerConfig())
    rendered = render_preview(result)
    grouped = shown_paths(rendered)
    untracked = UNTRACKED if "-uall" in FORMS[form] else ["scratch/"]
    tracked = ["src/app.py", "src/util.py", "old/a.txt", "old/b.txt", "docs/guide.md"]
    for path in [*NEW_FILES, *tracked, *untracked, "notes with space.txt"]:
        assert path in grouped or path in rendered, path
    assert len(rendered) < 0.75 * len(data)
    (omission,) = result.omissions
    assert omission.data == data
    for signal in result.signals:
        assert signal in rendered


@pytest.mark.parametrize("form", ["normal", "short_branch"])
def test_golden(form: str, repo: Path, golden: Golden) -> None:
    result = git_status.optimize(status(repo, *FORMS[form]), OptimizerConfig())
    golden.check(f"git_status/{form}.txt", render_preview(result))


def test_branch_line_headers_and_single_entries_stay_verbatim(repo: Path) -> None:
    data = status(repo)
    rendered = render_preview(git_status.optimize(data, OptimizerConfig()))
    for line in (
        "On branch main\n",
        "Changes to be committed:\n",
        "Changes not staged for commit:\n",
        "Untracked files:\n",
        "\trenamed:    docs/intro.md -> docs/guide.md\n",
        "\tdeleted:    old/a.txt\n",
        "\tnotes with space.txt\n",
    ):
        assert line in rendered
    assert '(use "git restore' not in rendered
    assert "\tnew file:   gen/a/ (60 files): f1.txt, f10.txt, " in rendered
    uall = render_preview(git_status.optimize(status(repo, "-uall"), OptimizerConfig()))
    assert "\tscratch/sub/ (12 files): u1.log, u10.log, u11.log, u12.log, u2.log, " in uall


@pytest.mark.parametrize("name", ["git_status.txt", "git_status_short.txt"])
def test_short_status_is_shown_as_it_is(name: str) -> None:
    data = (FIXTURES / name).read_bytes()
    assert classify(data).content_type is ContentType.GIT_STATUS
    assert render_preview(git_status.optimize(data, OptimizerConfig())) == data.decode()


@pytest.mark.parametrize(
    "text",
    [
        "Just some prose.\nAnother line of prose.\nAnd a third.\n",
        "src/app.py\nsrc/util.py\ndocs/intro.md\n",
        "M       src/app.py\n?       notes.txt\nA       new.py\n",  # svn status
        "commit 0123456789abcdef0123456789abcdef01234567\nAuthor: A <a@b>\n",
        "On branch main\nYour branch is up to date.\n",
    ],
)
def test_other_text_is_not_git_status(text: str) -> None:
    assert not git_status.looks_like_git_status(text.encode())
