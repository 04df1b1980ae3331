"""A whole-input scan a slice at a time finds what one scan finds."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokenlab.optimizers.lines import scan

_PATTERNS = [
    re.compile(rb"[\r\n][ \t]*+(?:from |at )"),  # led by the line break before it
    re.compile(rb":\d+\)(?=[\r\n]|\Z)"),  # ends where its line ends
    re.compile(rb"(?<=x)yz|FAIL: "),  # looks behind
]
_PIECES = [b"\n", b"\r", b"\r\n", b" ", b"\t", b"from ", b"at ", b":12)", b"x", b"yz", b"FAIL: ", b"word"]


@pytest.fixture(autouse=True)
def tiny_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan, "SLICE_BYTES", 3)


@given(st.lists(st.sampled_from(_PIECES), max_size=40).map(b"".join), st.sampled_from(_PATTERNS))
@settings(max_examples=500, deadline=None)
def test_slices_find_what_one_scan_finds(data: bytes, pattern: re.Pattern[bytes]) -> None:
    whole = [(found.start(), found.end()) for found in pattern.finditer(data)]
    assert [(found.start(), found.end()) for found in scan.matches(pattern, data)] == whole
    first = scan.search(pattern, data)
    assert (first and (first.start(), first.end())) == (whole[0] if whole else None)


def test_a_match_led_by_a_line_break_at_a_slice_end_is_found() -> None:
    data = b"abcd\n  at x"
    assert [found.start() for found in scan.matches(_PATTERNS[0], data)] == [4]


@given(st.lists(st.sampled_from(_PIECES), max_size=40).map(b"".join))
def test_offsets_are_every_occurrence_of_each_word(data: bytes) -> None:
    words = (b"at ", b"FAIL: ", b"x")
    expected = sorted(at for at in range(len(data)) if any(data.startswith(word, at) for word in words))
    assert sorted(scan.offsets(data, words)) == expected
