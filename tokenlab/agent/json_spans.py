"""Where values sit in a JSON document's bytes, and splicing new strings into those places.

The proxy changes a few string values (tool results) in a request body and must leave every
other byte as the client sent it: a provider's prompt cache matches the serialized prefix,
and re-serializing the whole body would change its whitespace, key order and escapes. So
the body is parsed once with `json` (to decide what to change) and scanned once here (to
find where those values are), and only their bytes are replaced.

The scanner walks only into the containers on a wanted path; everything else is skipped
with regular expressions (a string token at a time), so a large body costs one pass.
A key repeated in one object is found at its last occurrence, as `json.loads` reads it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping

Path = tuple[str | int, ...]
Span = tuple[int, int]

_WS = re.compile(rb"[ \t\n\r]*")
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_SCALAR = re.compile(rb"-?[0-9][0-9.eE+-]*|true|false|null")
_NESTED = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)

_Trie = dict[str | int, "_Trie | None"]


class JsonSpanError(ValueError):
    """The bytes are not the JSON document the paths were taken from."""


def spans(raw: bytes, paths: Iterable[Path]) -> dict[Path, Span]:
    """The byte span of the value at each path (paths into `json.loads(raw)`)."""
    trie: _Trie = {}
    for path in paths:
        node = trie
        for step in path[:-1]:
            child = node.setdefault(step, {})
            if child is None:
                raise JsonSpanError(f"path {path} runs through a wanted value")
            node = child
        node[path[-1]] = None
    found: dict[Path, Span] = {}
    _walk(raw, _ws(raw, 0), trie, (), found)
    return found


def splice(raw: bytes, replacements: Mapping[Span, bytes]) -> bytes:
    """`raw` with each span replaced by its bytes (spans do not overlap)."""
    pieces, at = [], 0
    for (start, end), new in sorted(replacements.items()):
        pieces += [raw[at:start], new]
        at = end
    pieces.append(raw[at:])
    return b"".join(pieces)


def string_bytes(text: str) -> bytes:
    """`text` as a JSON string, the same bytes for the same text every time."""
    return json.dumps(text).encode("ascii")


def _ws(raw: bytes, at: int) -> int:
    match = _WS.match(raw, at)
    assert match is not None  # matches the empty string
    return match.end()


def _walk(raw: bytes, at: int, trie: _Trie, prefix: Path, found: dict[Path, Span]) -> int:
    """Record the spans of `trie`'s paths in the container at `at`; the container's end."""
    opening = raw[at : at + 1]
    if opening not in (b"{", b"["):
        raise JsonSpanError(f"expected a container at byte {at}")
    closing = b"}" if opening == b"{" else b"]"
    at = _ws(raw, at + 1)
    index = 0
    while raw[at : at + 1] != closing:
        if opening == b"{":
            key_match = _STRING.match(raw, at)
            if key_match is None:
                raise JsonSpanError(f"expected a key at byte {at}")
            step: str | int = json.loads(key_match.group())
            at = _ws(raw, key_match.end())
            if raw[at : at + 1] != b":":
                raise JsonSpanError(f"expected ':' at byte {at}")
            at = _ws(raw, at + 1)
        else:
            step = index
        if step in trie and trie[step] is None:
            end = _skip(raw, at)
            found[(*prefix, step)] = (at, end)
        elif step in trie:
            child = trie[step]
            assert child is not None
            end = (
                _walk(raw, at, child, (*prefix, step), found)
                if raw[at : at + 1] in (b"{", b"[")
                else _skip(raw, at)
            )
        else:
            end = _skip(raw, at)
        at = _ws(raw, end)
        index += 1
        if raw[at : at + 1] == b",":
            at = _ws(raw, at + 1)
        elif raw[at : at + 1] != closing:
            raise JsonSpanError(f"expected ',' or the container's end at byte {at}")
    return at + 1


def _skip(raw: bytes, at: int) -> int:
    """The end of the value starting at `at`."""
    first = raw[at : at + 1]
    if first == b'"':
        match = _STRING.match(raw, at)
    elif first in (b"{", b"["):
        depth = 0
        for token in _NESTED.finditer(raw, at):
            kind = token.group()[:1]
            if kind in (b"{", b"["):
                depth += 1
            elif kind in (b"}", b"]"):
                depth -= 1
                if depth == 0:
                    return token.end()
        raise JsonSpanError(f"unclosed container at byte {at}")
    else:
        match = _SCALAR.match(raw, at)
    if match is None:
        raise JsonSpanError(f"expected a value at byte {at}")
    return match.end()
