"""The spooled text: the same bytes back whether it stayed in memory or went to its file."""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path

import pytest

from tokenlab.spooled_text import BLOCK_BYTES, SpooledText

PIECES = [b"first line\n", b"second ", b"line\n", b"\xe2\x80\xa6 3 lines\n", b"last"]
WHOLE = b"".join(PIECES)


def written(memory_bytes: int) -> SpooledText:
    text = SpooledText(memory_bytes=memory_bytes)
    for piece in PIECES:
        text.write(piece)
    return text


@pytest.mark.parametrize("memory_bytes", [1 << 20, 8], ids=["memory", "file"])
def test_the_text_reads_back_as_written(memory_bytes: int) -> None:
    text = written(memory_bytes)
    assert text.spilled == (memory_bytes < len(WHOLE))
    assert len(text) == len(WHOLE)
    assert text.getvalue() == WHOLE
    assert b"".join(text.blocks(7)) == WHOLE
    assert b"".join(text.blocks(4, start=10)) == WHOLE[10:]
    assert text.tail(6) == WHOLE[-6:] and text.tail(1000) == WHOLE
    assert not text.endswith_newline()
    out = io.BytesIO()
    text.write_to(out)
    assert out.getvalue() == WHOLE


@pytest.mark.parametrize("memory_bytes", [1 << 20, 8], ids=["memory", "file"])
def test_truncating_keeps_the_start_and_writes_go_on_from_there(memory_bytes: int) -> None:
    text = written(memory_bytes)
    text.truncate(11)
    assert text.endswith_newline()
    text.write(b"[exit 1]\n")
    assert text.getvalue() == b"first line\n[exit 1]\n"
    assert len(text) == 20


def test_needles_across_block_boundaries_are_found() -> None:
    text = SpooledText(b"a" * (BLOCK_BYTES - 3) + b"needle" + b"z" * 1000, memory_bytes=100)
    assert text.missing([b"aneedlez", b"needle", b"absent", b""]) == [b"absent"]
    assert SpooledText(memory_bytes=0).missing([b"x"]) == [b"x"]


def test_equal_texts_compare_block_by_block() -> None:
    assert written(8).equals(written(1 << 20))
    other = written(8)
    other.write(b"!")
    assert not other.equals(written(8))


def test_a_spilled_text_leaves_no_file_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    text = written(8)
    assert text.spilled
    assert os.listdir(tmp_path) == []  # a file with no name
    text.close()
    assert len(text) == 0 and text.getvalue() == b""
