"""`PackageFiles`: any added, removed or written file of the package is a change; compiled
files, and the folders Python writes them to, are not."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import tokenlab
from tokenlab.agent.package_files import PackageFiles


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A copy of the package's sources, with no compiled folders."""
    package = Path(tokenlab.__file__).parent
    target = tmp_path / "tokenlab"
    shutil.copytree(package, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def _later(path: Path) -> None:
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))


def test_an_untouched_package_is_unchanged(copy: Path) -> None:
    files = PackageFiles(str(copy))
    assert files.unchanged() and files.unchanged()


def test_compiled_files_and_their_new_folders_are_no_change(copy: Path) -> None:
    files = PackageFiles(str(copy))
    for folder in (copy, copy / "optimizers" / "log"):
        (folder / "__pycache__").mkdir()
        (folder / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"compiled")
        assert files.unchanged()
    assert files.unchanged()


@pytest.mark.parametrize("name", ["optimizers/log/optimizer.py", "syntax/queries/python-tags.scm"])
def test_a_written_module_or_data_file_is_a_change(copy: Path, name: str) -> None:
    files = PackageFiles(str(copy))
    _later(copy / name)
    assert not files.unchanged()


def test_a_file_rewritten_in_place_with_a_new_size_is_a_change(copy: Path) -> None:
    files = PackageFiles(str(copy))
    entry = copy / "entry.py"
    modified = entry.stat().st_mtime_ns
    entry.write_bytes(entry.read_bytes() + b"\n")
    os.utime(entry, ns=(modified, modified))  # even with its old time
    assert not files.unchanged()


@pytest.mark.parametrize("change", ["add", "remove", "rename", "replace"])
def test_an_added_removed_or_renamed_file_is_a_change(copy: Path, change: str) -> None:
    files = PackageFiles(str(copy))
    module = copy / "agent" / "wire.py"
    folder_time = module.parent.stat().st_mtime_ns
    if change == "add":
        (module.parent / "new_module.py").write_text("")
    elif change == "remove":
        module.unlink()
    elif change == "rename":
        module.rename(module.with_name("wire2.py"))
    else:  # as an editor saves: a new file renamed over the old one, with the old one's times
        replacement = module.with_name("wire.py.tmp")
        replacement.write_bytes(module.read_bytes())
        info = module.stat()
        os.utime(replacement, ns=(info.st_atime_ns, info.st_mtime_ns))
        replacement.rename(module)
        os.utime(module.parent, ns=(folder_time, folder_time))  # the folder's time alone would not tell
        assert files.unchanged()  # the same bytes and times: the same code
        return
    assert not files.unchanged()
