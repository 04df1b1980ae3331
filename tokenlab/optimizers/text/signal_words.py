"""Where signal and failure words stand in a document, and which words only name a thing.

Found by one `bytes.find` sweep per word over the lowered text (see `optimizer.py`); a
word inside a path or a code span names something and is set aside by `without_names`.
"""

from __future__ import annotations

from bisect import bisect_left

from tokenlab.patterns import compile_on_use

# Words inside a path (`checkers/deprecated.py`) or a code span (`` `failed` ``, a state's
# name in prose) name something: they are no failure or warning. A path word is matched
# only where a word starts, so that each word is read once (tried at every byte, a long
# word without a separator was read again from each); group 1 is a code span.
_NAME_WORD_RE = compile_on_use(rb"(?<!\S)[^\s/\\]*+[/\\]\S*+|(`[^`\n]*+`)")
_SPACE_RE = compile_on_use(rb"\s")
_WORD_BYTES = frozenset(
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
) | frozenset(range(0x80, 0x100))


def without_names(line: bytes) -> bytes:
    """`line` with each path word and code span replaced by a space.

    A code span can end inside a word (`` `a b`/c ``): the rest of that word is a path
    word when it holds a separator. Whether it does is read once per word, however many
    spans end inside it.
    """
    if b"`" not in line or (b"/" not in line and b"\\" not in line):
        return _NAME_WORD_RE.sub(b" ", line)  # no span can end before a separator
    pieces: list[bytes] = []
    kept = 0  # where the bytes not yet replaced start
    read_to = 0  # the rest of the word ending here holds no separator
    position = 0
    while (match := _NAME_WORD_RE.search(line, position)) is not None:
        pieces += (line[kept : match.start()], b" ")
        position = kept = match.end()
        if match.group(1) is not None and position >= read_to:
            space = _SPACE_RE.search(line, position)
            word_end = space.start() if space else len(line)
            if line.find(b"/", position, word_end) >= 0 or line.find(b"\\", position, word_end) >= 0:
                pieces.append(b" ")
                position = kept = word_end
            read_to = word_end
    pieces.append(line[kept:])
    return b"".join(pieces)


def signal_positions(data: bytes, words: tuple[str, ...]) -> list[int]:
    """Sorted offsets of signal words: one `bytes.find` sweep per word over lowered text."""
    lowered = data.lower()
    found = []
    for word in words:
        prefix = word.endswith("*")
        needle = word.rstrip("*").lower().encode()
        position = lowered.find(needle)
        while position >= 0:
            after = position + len(needle)
            if (position == 0 or lowered[position - 1] not in _WORD_BYTES) and (
                prefix or after >= len(lowered) or lowered[after] not in _WORD_BYTES
            ):
                found.append(position)
            position = lowered.find(needle, after)
    return sorted(found)


def word_length(text: bytes, position: int) -> int:
    end = position
    while end < len(text) and text[end] in _WORD_BYTES:
        end += 1
    return end - position


def has_signal(signals: list[int], start: int, end: int) -> bool:
    at = bisect_left(signals, start)
    return at < len(signals) and signals[at] < end
