"""Generated summaries: external command, cache by content hash, stale marking, never picked without one."""

from __future__ import annotations

import shlex
import stat
import sys
from pathlib import Path

import pytest

from tokenlab.errors import InputError
from tokenlab.reads.pointers import open_source
from tokenlab.reads.summary import Summarizer, SummaryError
from tokenlab.reads.views import ReadOptions, ReadRequest, View, read

# Prints a short summary of stdin and counts its runs in a file, so caching is observable.
SCRIPT = """
import os, sys
data = sys.stdin.buffer.read()
with open(sys.argv[1], "a") as runs:
    runs.write("run\\n")
if os.environ.get("FAIL_SUMMARY"):
    sys.stderr.write("model unavailable\\n")
    sys.exit(3)
print(f"Summary of {os.environ['TOKENLAB_PATH']}: {len(data)} bytes, {data.count(b'def ')} functions.")
"""


@pytest.fixture
def command(tmp_path: Path) -> tuple[str, Path]:
    script = tmp_path / "summarize.py"
    script.write_text(SCRIPT)
    runs = tmp_path / "runs.log"
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} {shlex.quote(str(runs))}", runs


@pytest.fixture
def source_file(tmp_path: Path) -> Path:
    path = tmp_path / "mod.py"
    path.write_text("".join(f"def f{n}(x):\n    return x + {n}\n\n" for n in range(200)))
    return path


def runs(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_summary_view_is_generated_and_cached_by_content(
    command: tuple[str, Path], source_file: Path, tmp_path: Path
) -> None:
    cmd, log = command
    options = ReadOptions(summarizer=Summarizer(cmd, tmp_path / "cache"))
    first = read(ReadRequest(source_file, View.SUMMARY, 1000), options)
    assert first.view == "summary" and first.generated and not first.stale
    assert "mod.py" in first.content and "200 functions" in first.content
    second = read(ReadRequest(source_file, View.SUMMARY, 1000), options)
    assert second.content == first.content and runs(log) == 1


def test_a_changed_file_is_summarized_again(
    command: tuple[str, Path], source_file: Path, tmp_path: Path
) -> None:
    cmd, log = command
    summarizer = Summarizer(cmd, tmp_path / "cache")
    summarizer.summarize(open_source(source_file))
    source_file.write_text("def only():\n    pass\n")
    fresh = summarizer.summarize(open_source(source_file))
    assert "1 functions" in fresh.text and not fresh.stale and runs(log) == 2


def test_the_old_summary_comes_back_stale_when_the_summarizer_fails(
    command: tuple[str, Path], source_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cmd, _ = command
    summarizer = Summarizer(cmd, tmp_path / "cache")
    summarizer.summarize(open_source(source_file))
    source_file.write_text("def only():\n    pass\n")
    monkeypatch.setenv("FAIL_SUMMARY", "1")
    response = read(ReadRequest(source_file, View.SUMMARY, 1000), ReadOptions(summarizer=summarizer))
    assert response.view == "summary" and response.stale and response.generated
    assert "200 functions" in response.content and "model unavailable" in response.note


def test_cached_only_never_runs_the_command(
    command: tuple[str, Path], source_file: Path, tmp_path: Path
) -> None:
    cmd, log = command
    Summarizer(cmd, tmp_path / "cache").summarize(open_source(source_file))
    source_file.write_text("def only():\n    pass\n")
    stale = Summarizer(cmd, tmp_path / "cache", cached_only=True).summarize(open_source(source_file))
    assert stale.stale and runs(log) == 1


def test_no_summary_at_all_is_an_error_for_the_summary_view_only(
    command: tuple[str, Path], source_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cmd, _ = command
    monkeypatch.setenv("FAIL_SUMMARY", "1")
    options = ReadOptions(summarizer=Summarizer(cmd, tmp_path / "cache"))
    with pytest.raises(SummaryError, match="exited with 3: model unavailable") as caught:
        read(ReadRequest(source_file, View.SUMMARY, 1000), options)
    assert caught.value.exit_code == 1
    fallback = read(ReadRequest(source_file, View.AUTO, 300), options)
    assert fallback.view == "outline" and "summary unavailable" in fallback.note


def test_auto_prefers_the_summary_to_an_outline_when_one_is_configured(
    command: tuple[str, Path], source_file: Path, tmp_path: Path
) -> None:
    cmd, _ = command
    options = ReadOptions(summarizer=Summarizer(cmd, tmp_path / "cache"))
    assert read(ReadRequest(source_file, View.AUTO, 100_000), options).view == "full"
    response = read(ReadRequest(source_file, View.AUTO, 300), options)
    assert response.view == "summary" and response.generated and response.degraded_from is None


def test_a_summary_over_budget_degrades_to_an_outline(
    command: tuple[str, Path], source_file: Path, tmp_path: Path
) -> None:
    cmd, _ = command
    options = ReadOptions(summarizer=Summarizer(cmd, tmp_path / "cache"))
    response = read(ReadRequest(source_file, View.SUMMARY, 12), options)
    assert response.view in ("outline", "stub") and response.degraded_from == "summary"
    assert not response.generated


def test_cache_entries_are_owner_only(command: tuple[str, Path], source_file: Path, tmp_path: Path) -> None:
    cmd, _ = command
    Summarizer(cmd, tmp_path / "cache").summarize(open_source(source_file))
    entries = [path for path in (tmp_path / "cache").rglob("*") if path.is_file()]
    assert len(entries) == 2
    assert all(stat.S_IMODE(path.stat().st_mode) == 0o600 for path in entries)
    assert stat.S_IMODE((tmp_path / "cache").stat().st_mode) == 0o700


@pytest.mark.parametrize("command_text", ["", "   ", "'unclosed"])
def test_bad_commands_are_input_errors(command_text: str) -> None:
    with pytest.raises(InputError):
        Summarizer(command_text)


def test_a_missing_program_is_a_summary_error(source_file: Path, tmp_path: Path) -> None:
    with pytest.raises(SummaryError, match="not found"):
        Summarizer("no-such-summarizer-program", tmp_path / "cache").summarize(open_source(source_file))
