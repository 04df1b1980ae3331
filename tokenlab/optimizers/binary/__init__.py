"""The binary family: input that is not text, never decoded.

    __init__.py    `detect`: odd bytes outside text lines
    optimizer.py   one line with size and sha256, the bytes behind a ref
"""

from __future__ import annotations

_TEXT_CONTROLS = b"\t\n\r\f\b\x1b"
_CONTROL_BYTES = bytes(b for b in range(32) if b not in _TEXT_CONTROLS) + b"\x7f"


def detect(data: bytes, sample: bytes) -> str | None:
    """Binary is content that is not text: not line-structured text with a few odd bytes.

    A tool that writes Latin-1 (`café`) or a stray NUL on every line still writes lines a
    person reads; random or packed bytes have no lines that are mostly characters.
    """
    if not sample:
        return None
    text = sample.decode("utf-8", errors="replace")
    odd = _odd_characters(text)
    if odd <= len(text) // 100:
        return None
    lines = text.split("\n")
    if len(lines) > 2:
        lines.pop()  # the sample may end inside a line
    texty = sum(1 for line in lines if _odd_characters(line) * _TEXT_LINE_ODD_SHARE <= len(line))
    if len(lines) >= 2 and texty >= 0.9 * len(lines):
        return None
    return f"{odd} undecodable or control bytes in the first {len(sample)}, not in text lines"


# A text line may have up to a quarter of odd characters (`café` in Latin-1 is one in four).
_TEXT_LINE_ODD_SHARE = 4
_ODD_CHARACTERS = str.maketrans("", "", "\ufffd" + _CONTROL_BYTES.decode("latin-1"))


def _odd_characters(text: str) -> int:
    """Undecodable bytes (shown as U+FFFD) and control characters other than whitespace."""
    return len(text) - len(text.translate(_ODD_CHARACTERS))
