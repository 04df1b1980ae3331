"""JSON paths into a ref: `items[737].error`, `a["b.c"][0]`, `$.a`, `[2]`.

A path is walked over the JSON text with the standard library's C scanner, which skips
each value before the target without building the rest of the document, so a subtree
near the start of a 100 MB document is found at once; the cost grows with the bytes
before the target. The answer is the subtree's span in the text: its original bytes.
"""

from __future__ import annotations

import json
import json.scanner
import re
from typing import Any

from tokenlab.errors import InputError

_PATH_KEY = re.compile(r"[^.\[\]]+")
_WS = re.compile(r"[ \t\n\r]*")
_BRACKET = re.compile(r"\[\s*(-?\d+|\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')\s*\]")
_scanstring: Any = json.decoder.scanstring  # type: ignore[attr-defined]


def parse_path(path: str) -> tuple[str | int, ...]:
    """`items[737].error`, `a["b.c"][0]`, `$.a`, `[2]` → its keys and indexes."""
    segments: list[str | int] = []
    at = 1 if path.startswith("$") else 0
    while at < len(path):
        if path[at] == "[":
            at, segment = _bracket(path, at)
            segments.append(segment)
            continue
        if path[at] == ".":
            at += 1
        elif segments or at:
            raise InputError(f"bad --json-path {path!r}: expected '.' or '[' at column {at + 1}")
        match = _PATH_KEY.match(path, at)
        if not match:
            raise InputError(f"bad --json-path {path!r}: expected a key at column {at + 1}")
        segments.append(match.group())
        at = match.end()
    return tuple(segments)


def _bracket(path: str, at: int) -> tuple[int, str | int]:
    close = _BRACKET.match(path, at)
    if not close:
        raise InputError(f'bad --json-path {path!r}: expected [N] or ["key"] at column {at + 1}')
    inner = close.group(1)
    if inner[0] == '"':
        return close.end(), str(json.loads(inner))
    if inner[0] == "'":
        return close.end(), re.sub(r"\\(.)", r"\1", inner[1:-1])
    return close.end(), int(inner)


def path_name(segments: tuple[str | int, ...]) -> str:
    out = "$"
    for segment in segments:
        if isinstance(segment, int):
            out += f"[{segment}]"
        elif _PATH_KEY.fullmatch(segment) and segment.strip() == segment:
            out += f".{segment}"
        else:
            out += f"[{json.dumps(segment)}]"
    return out


class Walker:
    """Walk a JSON text to a path with the C scanner; values before the target are skipped."""

    scan = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]

    def __init__(self, text: str, ref_id: str) -> None:
        self.text, self.ref_id = text, ref_id

    def bad(self, at: int) -> InputError:
        return InputError(f"ref {self.ref_id} is not JSON (at character {at:,}); --json-path needs JSON")

    def ws(self, at: int) -> int:
        return _WS.match(self.text, at).end()  # type: ignore[union-attr]

    def char(self, at: int) -> str:
        return self.text[at] if at < len(self.text) else ""

    def skip(self, at: int) -> int:
        """The end of the JSON value starting at `at`."""
        try:
            return int(self.scan(self.text, at)[1])
        except (StopIteration, ValueError, RecursionError):
            raise self.bad(at) from None

    def locate(self, segments: tuple[str | int, ...]) -> tuple[int, int]:
        at = self.ws(0)
        for depth, segment in enumerate(segments):
            where = path_name(segments[:depth])
            kind = {"{": "an object", "[": "an array"}.get(self.char(at), "a scalar")
            if kind == "a scalar":
                self.skip(at)  # not JSON at all, or a scalar
            if isinstance(segment, int) != (kind == "an array") or kind == "a scalar":
                raise InputError(f"{where} is {kind}; it has no {path_name((segment,))[1:]}")
            at = (
                self.element(at, segment, where)
                if isinstance(segment, int)
                else self.member(at, segment, where)
            )
        return at, self.skip(at)

    def member(self, at: int, key: str, where: str) -> int:
        at, seen = self.ws(at + 1), []
        while self.char(at) != "}":
            if self.char(at) != '"':
                raise self.bad(at)
            name, at = _scanstring(self.text, at + 1)
            at = self.ws(at)
            if self.char(at) != ":":
                raise self.bad(at)
            at = self.ws(at + 1)
            if name == key:
                return at
            seen.append(name)
            at = self.ws(self.skip(at))
            if self.char(at) == ",":
                at = self.ws(at + 1)
            elif self.char(at) != "}":
                raise self.bad(at)
        keys = ", ".join(seen[:12]) + (", …" if len(seen) > 12 else "")
        raise InputError(f"no key {key!r} in {where} (keys: {keys or 'none'})")

    def element(self, at: int, wanted: int, where: str) -> int:
        at, starts = self.ws(at + 1), list[int]()
        while self.char(at) != "]":
            if wanted >= 0 and len(starts) == wanted:
                return at
            starts.append(at)
            at = self.ws(self.skip(at))
            if self.char(at) == ",":
                at = self.ws(at + 1)
            elif self.char(at) != "]":
                raise self.bad(at)
        if -len(starts) <= wanted < 0:
            return starts[wanted]
        raise InputError(f"{where} has {len(starts)} elements; [{wanted}] is out of range")
