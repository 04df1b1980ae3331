"""The tokenizer's ranks cache: read back only whole and made from the pinned vocabulary;
anything else is ignored and rebuilt, silently; written by rename."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from tokenlab.counting import ranks_cache, tokens

SHA, SIZE = tokens._VOCAB_SHA256, tokens._VOCAB_BYTES
RANKS = {b"a": 0, b"b": 1, b"\xff\x00": 2}


@pytest.fixture
def cache_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The cache as the test's own: never the session's, which other tests read."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = ranks_cache.path(SHA)
    assert path is not None
    return path


def _read(cache_path: str) -> dict[bytes, int] | None:
    payload = ranks_cache.read_payload(cache_path, SHA, SIZE)
    return None if payload is None else ranks_cache.ranks_of(payload)


def test_it_lives_in_the_users_cache_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert str(ranks_cache.path(SHA)).startswith(str(tmp_path / "xdg" / "tokenlab") + os.sep)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for ignored in ("", "relative/cache"):  # unset or relative: as the XDG spec says
        monkeypatch.setenv("XDG_CACHE_HOME", ignored)
        assert str(ranks_cache.path(SHA)).startswith(str(tmp_path / "home" / ".cache" / "tokenlab") + os.sep)


def test_without_a_home_folder_nothing_is_cached(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setattr(os.path, "expanduser", lambda path: path)  # as when no home is known
    assert ranks_cache.path(SHA) is None
    ranks_cache.write(None, RANKS, SHA, SIZE)
    assert ranks_cache.read_payload(None, SHA, SIZE) is None
    assert tokens.mergeable_ranks() == tokens._ranks(tokens.vocabulary_bytes())
    assert list(tmp_path.rglob("*.ranks")) == []


def test_written_ranks_read_back_equal(cache_path: str) -> None:
    assert _read(cache_path) is None
    ranks_cache.write(cache_path, RANKS, SHA, SIZE)
    assert _read(cache_path) == RANKS
    assert [name for name in os.listdir(os.path.dirname(cache_path)) if name.startswith(".")] == []


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[:-1],  # cut short
        lambda data: data[:-1] + bytes([data[-1] ^ 1]),  # one bit of the payload
        lambda data: data.replace(SHA.encode(), SHA[::-1].encode(), 1),  # another vocabulary
        lambda data: data.replace(b" 1 ", b" 0 ", 1),  # another format
        lambda data: b"",
        lambda data: b"\n" + data,
    ],
)
def test_a_damaged_or_foreign_file_is_not_read(cache_path: str, damage: object) -> None:
    ranks_cache.write(cache_path, RANKS, SHA, SIZE)
    path = Path(cache_path)
    path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    assert _read(cache_path) is None


def test_another_vocabulary_size_is_not_read(cache_path: str) -> None:
    ranks_cache.write(cache_path, RANKS, SHA, SIZE + 1)
    assert _read(cache_path) is None


def test_a_folder_that_cannot_be_written_is_no_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_bytes(b"")
    ranks_cache.write(str(blocker / "tokenlab" / "x.ranks"), RANKS, SHA, SIZE)  # its folder is a file
    assert not (blocker / "tokenlab").exists()


def test_concurrent_writers_leave_one_whole_file(cache_path: str) -> None:
    writers = [threading.Thread(target=ranks_cache.write, args=(cache_path, RANKS, SHA, SIZE)) for _ in range(8)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
    assert _read(cache_path) == RANKS
    assert os.listdir(os.path.dirname(cache_path)) == [os.path.basename(cache_path)]


def test_the_encoding_writes_the_cache_and_a_corrupt_one_is_rebuilt_silently(cache_path: str) -> None:
    parsed = tokens._ranks(tokens.vocabulary_bytes())
    assert tokens.mergeable_ranks() == parsed  # no cache yet: parsed, then written
    assert _read(cache_path) == parsed
    Path(cache_path).write_bytes(b"tokenlab-ranks 1 garbage\n\x00")
    assert tokens.mergeable_ranks() == parsed
    assert _read(cache_path) == parsed


def test_cached_ranks_are_taken_without_reading_the_vocabulary(
    cache_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ranks_cache.write(cache_path, RANKS, SHA, SIZE)

    def no_vocabulary() -> bytes:
        raise AssertionError("the vocabulary was read")

    monkeypatch.setattr(tokens, "_read_vocabulary", no_vocabulary)
    assert tokens.mergeable_ranks() == RANKS
    tokens.prefetch_vocabulary()
    assert tokens.mergeable_ranks() == RANKS
