"""Iterative JSON scanning for documents too deep for recursive parsers.

orjson stops at 1,024 levels and the stdlib scanner at the interpreter's recursion limit,
but a document nested 100,000 deep is still one valid JSON value and must be recognised and
laid out without crashing. This module checks the grammar and finds the end of a value with
an explicit stack, so its cost is linear in the input and independent of depth. It is only
the fallback path: fast C parsers handle every ordinary document.
"""

from __future__ import annotations

import re

# JSON whitespace is exactly these four characters (str.isspace would accept more).
_WS = r"[ \t\n\r]*"
# Unrolled string pattern: linear on multi-megabyte strings, no per-character alternation.
_STRING = r'"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"'
_NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
_LITERAL = r"true|false|null"

_TOKEN = re.compile(
    _WS + rf"(?:(?P<string>{_STRING})|(?P<punct>[{{}}\[\],:])|(?P<scalar>(?:{_NUMBER}|{_LITERAL})(?![0-9A-Za-z.+\-])))"
)
_TRAILING_WS = re.compile(_WS + r"\Z")
_SCALAR_AT = re.compile(rf"{_STRING}|(?:{_NUMBER}|{_LITERAL})(?![0-9A-Za-z.+\-])")
# For skipping a container that is already known to be valid: strings (which may hold
# brackets) and brackets are the only tokens that matter.
_BRACKET_OR_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)

# Parser states: what the grammar allows next.
_VALUE, _VALUE_OR_CLOSE, _KEY, _KEY_OR_CLOSE, _COLON, _COMMA_OR_CLOSE = range(6)
_CLOSER = {"{": "}", "[": "]"}


def is_valid_document(text: str) -> bool:
    """True when `text` is exactly one JSON value, optionally surrounded by whitespace."""
    stack: list[str] = []
    state = _VALUE
    pos = 0
    match_token = _TOKEN.match
    while True:
        match = match_token(text, pos)
        if match is None:
            return False
        pos = match.end()
        punct = match.group("punct")
        if punct is None:
            if state == _KEY or state == _KEY_OR_CLOSE:
                if match.group("string") is None:
                    return False
                state = _COLON
                continue
            if state != _VALUE and state != _VALUE_OR_CLOSE:
                return False
            state = _COMMA_OR_CLOSE
        elif punct in "{[":
            if state != _VALUE and state != _VALUE_OR_CLOSE:
                return False
            stack.append(punct)
            state = _KEY_OR_CLOSE if punct == "{" else _VALUE_OR_CLOSE
            continue
        elif punct in "}]":
            allowed = state == _COMMA_OR_CLOSE or (
                state == (_KEY_OR_CLOSE if punct == "}" else _VALUE_OR_CLOSE)
            )
            if not stack or not allowed or _CLOSER[stack.pop()] != punct:
                return False
            state = _COMMA_OR_CLOSE
        elif punct == ":":
            if state != _COLON:
                return False
            state = _VALUE
            continue
        else:  # comma
            if state != _COMMA_OR_CLOSE or not stack:
                return False
            state = _KEY if stack[-1] == "{" else _VALUE
            continue
        if not stack:
            return _TRAILING_WS.match(text, pos) is not None


def value_end(text: str, pos: int) -> int:
    """End index of the valid JSON value starting exactly at `pos`, found without recursion.

    The caller guarantees validity (the document passed a parser or `is_valid_document`);
    on malformed text the result is a best effort that never runs past the end.
    """
    if pos >= len(text):
        return len(text)
    if text[pos] not in "{[":
        match = _SCALAR_AT.match(text, pos)
        return match.end() if match else pos + 1
    depth = 0
    for match in _BRACKET_OR_STRING.finditer(text, pos):
        token = match.group()
        if token in "{[":
            depth += 1
        elif token in "}]":
            depth -= 1
            if depth == 0:
                return match.end()
    return len(text)
