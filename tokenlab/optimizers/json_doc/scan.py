"""Iterative JSON scanning for documents too deep for recursive parsers.

orjson stops at 1,024 levels and the stdlib scanner at the interpreter's recursion limit,
but a document nested 100,000 deep is still one valid JSON value and must be recognised and
laid out without crashing. This module checks the grammar and finds the end of a value with
an explicit stack, so its cost is linear in the input and independent of depth. It is only
the fallback path: fast C parsers handle every ordinary document.
"""

from __future__ import annotations

import re

from tokenlab.patterns import compile_on_use

# JSON whitespace is exactly these four characters (str.isspace would accept more).
_WS = r"[ \t\n\r]*"
# Unrolled string pattern: linear on multi-megabyte strings, no per-character alternation.
_STRING = r'"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*"'
_NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
_LITERAL = r"true|false|null"

_SCALAR = rf"(?:{_NUMBER}|{_LITERAL})(?![0-9A-Za-z.+\-])"
_TOKEN = compile_on_use(
    _WS + rf"(?:(?P<string>{_STRING})|(?P<punct>[{{}}\[\],:])|(?P<scalar>{_SCALAR}))"
)
_TRAILING_WS = compile_on_use(_WS + r"\Z")
_SCALAR_AT = compile_on_use(rf"{_STRING}|{_SCALAR}")
# For skipping a container that is already known to be valid: strings (which may hold
# brackets) and brackets are the only tokens that matter.
_HIGH_SURROGATE_ESCAPE = compile_on_use(r"\\u[dD][89abAB][0-9a-fA-F]{2}")
_BRACKET_OR_STRING = compile_on_use(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)

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
            if state in (_KEY, _KEY_OR_CLOSE):
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


def skip(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """End of `pattern` matched at `pos` in a valid document, where a miss is a bug."""
    match = pattern.match(text, pos)
    if match is None:
        raise ValueError(f"unexpected JSON syntax at {pos}")
    return match.end()


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
    return container_ends(text, pos).get(pos, len(text))


def container_ends(text: str, pos: int) -> dict[int, int]:
    """End index of every container that starts inside the valid container at `pos`.

    One pass serves all later questions about the same region, so laying out a deep
    document level by level stays linear instead of rescanning it at every level.
    """
    ends: dict[int, int] = {}
    opened: list[int] = []
    for match in _BRACKET_OR_STRING.finditer(text, pos):
        token = match.group()
        if token == "{" or token == "[":
            opened.append(match.start())
        elif token == "}" or token == "]":
            ends[opened.pop()] = match.end()
            if not opened:
                break
    return ends


_SCALAR_CHARS = frozenset("0123456789+-.eEtrufalsn")
_WS_CHARS = frozenset(" \t\n\r")


def scalar_item_edges(
    text: str, first: int, close: int, count: int, head: int, tail: int
) -> tuple[dict[int, int], dict[int, int]]:
    """Starts and ends of the first `head` and last `tail` items of a valid array of scalars.

    `first` is where item 0 starts, `close` where the `]` is, and `count > head + tail`.
    Also gives the edges of the run between them (the start of item `head`, the end of
    item `count - tail - 1`), so a long array shows its ends without visiting every item
    in Python. The tail is found walking backwards from the bracket.
    """
    starts: dict[int, int] = {}
    ends: dict[int, int] = {}
    pos = first
    for index in range(head):
        starts[index] = pos
        match = _SCALAR_AT.match(text, pos)
        ends[index] = match.end() if match else pos
        pos = _skip_ws(text, _skip_ws(text, ends[index]) + 1)  # past the comma
    starts[head] = pos
    pos = close
    for index in range(count - 1, count - tail - 1, -1):
        end = _skip_ws_back(text, pos)
        if text[end - 1] == '"':
            start = _string_start(text, end - 1)
        else:
            start = end - 1
            while start > 0 and text[start - 1] in _SCALAR_CHARS:
                start -= 1
        starts[index], ends[index] = start, end
        pos = _skip_ws_back(text, start) - 1  # the comma before this item
    ends[count - tail - 1] = _skip_ws_back(text, pos)
    return starts, ends


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WS_CHARS:
        pos += 1
    return pos


def _skip_ws_back(text: str, pos: int) -> int:
    while pos > 0 and text[pos - 1] in _WS_CHARS:
        pos -= 1
    return pos


def _string_start(text: str, closing_quote: int) -> int:
    """The opening quote: the nearest quote before that no backslash escapes."""
    quote = closing_quote
    while True:
        quote = text.rfind('"', 0, quote)
        if quote <= 0:
            return max(quote, 0)
        slash = quote
        while slash > 0 and text[slash - 1] == "\\":
            slash -= 1
        if (quote - slash) % 2 == 0:
            return quote


def safe_cut(text: str, low: int, cut: int) -> int:
    """Move `cut` left so the kept prefix does not end inside an escape sequence."""
    cut = min(cut, len(text))
    slash = text.rfind("\\", max(low, cut - 12), cut)
    while slash != -1:
        run_start = slash
        while run_start > low and text[run_start - 1] == "\\":
            run_start -= 1
        if (slash - run_start) % 2 == 1:
            break  # the last backslash closes a `\\` pair: nothing is split
        length = 6 if text.startswith("u", slash + 1) else 2
        if slash + length > cut:
            cut = slash
        elif length == 6 and slash + 6 == cut and _HIGH_SURROGATE_ESCAPE.match(text, slash):
            cut = slash  # keep a surrogate pair together
        else:
            break
        slash = text.rfind("\\", max(low, cut - 12), cut)
    return cut
