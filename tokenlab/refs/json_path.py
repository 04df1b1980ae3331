"""JSON paths into a ref: `items[737].error`, `a["b.c"][0]`, `$.a`, `[2]`, `items[-1]`.

A path is walked over the ref's bytes and the answer is the subtree's span: its original
bytes. Nothing is parsed whole: `orjson.loads` of 100 MB takes a second and gigabytes,
and the standard library's scanner, which builds every value it skips, took 1.0-1.5 s to
reach the end of a 100 MB array. Here a small value is skipped with one regular
expression over the bytes (`_SMALL`), and a large one, or a run of array elements, over
`Structure.r`: the text's brackets and commas outside strings (5-20% of its size in
the shapes benchmarked), made chunk by chunk with `bytes.translate`/`bytes.replace`
and matched by patterns that nest 64 deep (deeper nesting takes a slow Python path).
Objects' keys are read one by one, so a path through an object with a million keys is
slow.

The subtree found is checked to be JSON when it is under 1 MiB; what the walk skipped is
checked only as far as its strings and brackets.
"""

from __future__ import annotations

import bisect
import json
import re
from functools import cache
from typing import NamedTuple

import orjson

from tokenlab.errors import InputError

_PATH_KEY = re.compile(r"[^.\[\]]+")
_BRACKET = re.compile(r"\[\s*(-?\d+|\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')\s*\]")


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
        # A key with a line break or another control character is quoted: a path, and an
        # error naming it, stays on one line.
        elif _PATH_KEY.fullmatch(segment) and segment.strip() == segment and segment.isprintable():
            out += f".{segment}"
        else:
            out += f"[{json.dumps(segment)}]"
    return out


_CHUNK = 1 << 15  # bytes of text per chunk of `Structure.r`
_SMALL_WINDOW = 1 << 14  # a value skipped by `_SMALL` lies within this many bytes
_STEP_LIMIT = 64  # array indexes below this are reached element by element
_CHECK_LIMIT = 1 << 20  # a subtree up to this size is checked to be JSON
_R_DEPTH = 64  # nesting the patterns over `r` match; deeper values take a slow path
_BATCH = 1024  # array elements skipped by one match over `r`, then `_FEW`, then one
_FEW = 32
_WS = re.compile(rb"[ \t\n\r]*+")
_STRING = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.DOTALL)
_SCALAR = re.compile(
    rb"-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?(?:[eE][+-]?[0-9]++)?|true|false|null|NaN|-?Infinity"
)
_DELETE = bytes(sorted(set(range(256)) - set(b'"[]{},')))
_UNIFY = bytes.maketrans(b"{}", b"[]")
_SWAP = bytes.maketrans(b"[]", b"][")


def _small(depth: int) -> bytes:
    """Content of a container nested at most `depth` deep, its strings matched whole."""
    inner = rb'(?:[^"\[\]{}]++|' + _STRING.pattern
    if depth:
        nested = _small(depth - 1)
        inner += rb"|\[" + nested + rb"\]|\{" + nested + rb"\}"
    return inner + rb")*+"


def _nested(depth: int) -> bytes:
    """Content of a bracket of `Structure.r` nested at most `depth` deep."""
    inner = rb",*+"  # `r` holds nothing else; the unrolled form runs three times faster
    for _ in range(depth):
        inner = rb",*+(?:\[" + inner + rb"\],*+)*+"
    return inner


_SMALL = re.compile(rb"\[" + _small(3) + rb"\]|\{" + _small(3) + rb"\}")


class _Patterns(NamedTuple):
    """Over `r`: a bracket with its content, one array element with its comma, `_BATCH` of
    them, and `_FEW` of them. Compiled on first use
    (some milliseconds): small documents never need them."""

    nested: re.Pattern[bytes]
    element: re.Pattern[bytes]
    elements: re.Pattern[bytes]
    few: re.Pattern[bytes]


@cache
def _r_patterns() -> _Patterns:
    value = rb"\[" + _nested(_R_DEPTH - 1) + rb"\]"
    return _Patterns(
        nested=re.compile(value),
        element=re.compile(rb"(?:" + value + rb")?+,"),
        elements=re.compile(rb"(?:(?:" + value + rb")?+,){%d}" % _BATCH),
        few=re.compile(rb"(?:(?:" + value + rb")?+,){%d}" % _FEW),
    )


class Walker:
    """Walk a JSON text (bytes) to a path; what lies before the target is skipped, not parsed."""

    def __init__(self, data: bytes, ref_id: str) -> None:
        self.data, self.ref_id = data, ref_id
        self._structure: Structure | None = None

    @property
    def structure(self) -> Structure:
        if self._structure is None:
            self._structure = Structure(self.data)
        return self._structure

    def bad(self, at: int) -> InputError:
        return InputError(f"ref {self.ref_id} is not JSON (at byte {at:,}); --json-path needs JSON")

    def ws(self, at: int) -> int:
        return _WS.match(self.data, at).end()  # type: ignore[union-attr]

    def char(self, at: int) -> bytes:
        return self.data[at : at + 1]

    def skip(self, at: int) -> int:
        """The end of the JSON value starting at `at`."""
        first = self.char(at)
        if first in (b"[", b"{"):
            small = _SMALL.match(self.data, at, at + _SMALL_WINDOW)
            if small:
                return small.end()
            structure = self.structure
            end = structure.close(structure.index(at))
            if end is None:
                raise self.bad(at)
            return structure.offset(end) + 1
        match = (_STRING if first == b'"' else _SCALAR).match(self.data, at)
        if not match:
            raise self.bad(at)
        return match.end()

    def locate(self, segments: tuple[str | int, ...]) -> tuple[int, int]:
        at = self.ws(0)
        for depth, segment in enumerate(segments):
            where = path_name(segments[:depth])
            kind = {b"{": "an object", b"[": "an array"}.get(self.char(at), "a scalar")
            if kind == "a scalar":
                self.skip(at)  # not JSON at all, or a scalar
            if isinstance(segment, int) != (kind == "an array") or kind == "a scalar":
                raise InputError(f"{where} is {kind}; it has no {path_name((segment,))[1:]}")
            at = (
                self.element(at, segment, where)
                if isinstance(segment, int)
                else self.member(at, segment, where)
            )
        end = self.skip(at)
        if end - at <= _CHECK_LIMIT and not _is_json(self.data[at:end]):
            raise self.bad(at)
        return at, end

    def key(self, at: int) -> tuple[str, int]:
        match = _STRING.match(self.data, at)
        if not match:
            raise self.bad(at)
        raw = match.group()
        try:
            name = raw[1:-1].decode() if b"\\" not in raw else str(json.loads(raw))
        except ValueError:
            raise self.bad(at) from None
        return name, match.end()

    def member(self, at: int, key: str, where: str) -> int:
        at, seen = self.ws(at + 1), []
        while self.char(at) != b"}":
            if self.char(at) != b'"':
                raise self.bad(at)
            name, at = self.key(at)
            at = self.ws(at)
            if self.char(at) != b":":
                raise self.bad(at)
            at = self.ws(at + 1)
            if name == key:
                return at
            seen.append(name)
            at = self.after(self.skip(at), b"}")
        shown = (name if name.isprintable() else json.dumps(name) for name in seen[:12])
        keys = ", ".join(shown) + (", …" if len(seen) > 12 else "")
        raise InputError(f"no key {key!r} in {where} (keys: {keys or 'none'})")

    def after(self, at: int, close: bytes) -> int:
        """Past the separator that follows a value: its comma, or at the closing bracket."""
        at = self.ws(at)
        if self.char(at) == b",":
            return self.ws(at + 1)
        if self.char(at) != close:
            raise self.bad(at)
        return at

    def element(self, at: int, wanted: int, where: str) -> int:
        if 0 <= wanted < _STEP_LIMIT:
            start, count = self.ws(at + 1), 0
            while self.char(start) != b"]":
                if count == wanted:
                    return start
                start, count = self.after(self.skip(start), b"]"), count + 1
            raise InputError(f"{where} has {count} elements; [{wanted}] is out of range")
        structure = self.structure
        found = structure.element(structure.index(at), wanted)
        if found is None:
            raise self.bad(at)
        comma, count = found
        if comma is None:
            raise InputError(f"{where} has {count} elements; [{wanted}] is out of range")
        start = self.ws(at + 1 if comma < 0 else structure.offset(comma) + 1)
        if self.char(start) in (b"]", b",", b""):
            raise self.bad(start)
        return start


class Structure:
    """The brackets and commas of a JSON text outside its strings, found at C speed.

    The text is cut into chunks of `_CHUNK` bytes (never inside a run of backslashes);
    each chunk becomes a few bytes of `r`: its `[]{},` outside strings, with `{}` written
    as `[]`, so nesting is matched by regular expressions over a buffer far smaller than
    the text (`_r_patterns`). A chunk's position in `r` and whether it
    starts inside a string are kept, so an index into `r` maps back to a byte offset by
    a binary search inside one chunk. Chunks are added as the walk needs them.
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.starts = [0]  # byte offset of each chunk, then of the next one to build
        self.rstarts = [0]  # offset in `r` of each chunk, then the length of `r`
        self.quoted = [False]  # whether each chunk starts inside a string
        self.parts: list[bytes] = []
        self.r = b""

    @property
    def complete(self) -> bool:
        return self.starts[-1] >= len(self.data)

    def build(self, until: int) -> None:
        """Add chunks until those built reach byte `until` (or the end), then join `r`."""
        data, added = self.data, False
        while self.starts[-1] < min(until, len(data)):
            begin = self.starts[-1]
            end = min(len(data), begin + _CHUNK)
            while end < len(data) and data[end - 1] == 0x5C:  # keep an escape in one chunk
                end += 1
            part, quoted = _reduce(data[begin:end], self.quoted[-1])
            self.parts.append(part)
            self.starts.append(end)
            self.rstarts.append(self.rstarts[-1] + len(part))
            self.quoted.append(quoted)
            added = True
        if added:
            self.r = b"".join(self.parts)

    def grow(self) -> bool:
        """Build twice as far (at least 1 MiB more); False when everything is built."""
        if self.complete:
            return False
        self.build(2 * self.starts[-1] + (1 << 20))
        return True

    def index(self, at: int) -> int:
        """The index in `r` of the bracket at byte `at` (outside any string)."""
        self.build(at + 1)
        chunk = bisect.bisect_right(self.starts, at, 0, len(self.parts)) - 1
        begin = self.starts[chunk]
        return self.rstarts[chunk] + len(_reduce(self.data[begin:at], self.quoted[chunk])[0])

    def offset(self, x: int) -> int:
        """The byte offset of `r[x]`."""
        chunk = bisect.bisect_right(self.rstarts, x, 0, len(self.parts)) - 1
        begin, quoted, wanted = self.starts[chunk], self.quoted[chunk], x - self.rstarts[chunk]
        low, high = begin + 1, self.starts[chunk + 1]
        while low < high:  # the shortest prefix of the chunk holding wanted + 1 of its characters
            middle = (low + high) // 2
            if len(_reduce(self.data[begin:middle], quoted)[0]) > wanted:
                high = middle
            else:
                low = middle + 1
        return low - 1

    def close(self, x: int) -> int | None:
        """The index in `r` of the bracket closing `r[x]`, or None when it is never closed."""
        while True:  # matched again as `r` grows, so at most twice over in all
            match = _r_patterns().nested.match(self.r, x)
            if match:
                return match.end() - 1
            if not self.grow():
                return _deep_close(self.r, x)

    def skip_elements(self, x: int, count: int) -> int | None:
        """The index in `r` of the comma after `count` elements from `r[x]`, or None."""
        at = x
        while True:
            at, count = _advance(self.r, at, count)
            if not count:
                return at - 1
            if not self.grow():
                return None

    def element(self, x: int, wanted: int) -> tuple[int | None, int] | None:
        """For the array at `r[x]`: the index in `r` of the comma before element `wanted`
        (-1 for the first element, None when out of range) and, when out of range, how many
        elements there are; None when the array is never closed.
        """
        if wanted > 0:
            comma = self.skip_elements(x + 1, wanted)
            if comma is not None:
                return comma, 0
        end = self.close(x)
        if end is None:
            return None
        inside = self.r[x + 1 : end]
        if wanted < 0:
            after, left = _advance(inside[::-1].translate(_SWAP), 0, -wanted)
            if not left:
                return end - after, 0
        flat = _r_patterns().nested.sub(b"", inside)
        commas = _top_commas(inside) if b"[" in flat or b"]" in flat else None
        empty = _WS.match(self.data, self.offset(x) + 1).end() == self.offset(end)  # type: ignore[union-attr]
        count = 0 if empty else (flat.count(b",") if commas is None else len(commas)) + 1
        wanted += count if wanted < 0 else 0
        if not 0 <= wanted < count:
            return None, count
        if wanted == 0:
            return -1, count
        if commas is None:  # the walk from the end stopped short: damaged, e.g. `[] []`
            commas = _top_commas(inside)
        return x + 1 + commas[wanted - 1], count


def _reduce(chunk: bytes, quoted: bool) -> tuple[bytes, bool]:
    """The chunk's `[]{},` outside strings (`{}` as `[]`), and whether it ends inside a string.

    An escaped backslash or quote is blanked first (escapes pair from the left within a run
    of backslashes), so every quote left opens or closes a string. Deleting all but quotes,
    brackets and commas leaves `""` for most strings; removing two adjacent quotes never
    changes whether the characters around them are inside a string, so only strings that
    hold brackets or commas are left for a split.
    """
    if b"\\" in chunk:
        chunk = chunk.replace(b"\\\\", b"__").replace(b'\\"', b"__")
    kept = chunk.translate(_UNIFY, _DELETE)
    ends_quoted = quoted ^ (kept.count(b'"') % 2 == 1)
    if quoted:
        kept = b'"' + kept
    kept = kept.replace(b'""', b"")
    if b'"' in kept:
        kept = b"".join(kept.split(b'"')[0::2])
    return kept, ends_quoted


def _advance(r: bytes, at: int, count: int) -> tuple[int, int]:
    """Past up to `count` array elements (each with its comma) from `r[at]`: where it got to
    and how many are left."""
    patterns = _r_patterns()
    while count >= _BATCH:
        match = patterns.elements.match(r, at)
        if not match:
            break
        at, count = match.end(), count - _BATCH
    while count >= _FEW:
        match = patterns.few.match(r, at)
        if not match:
            break
        at, count = match.end(), count - _FEW
    while count:
        match = patterns.element.match(r, at)
        if not match:
            break
        at, count = match.end(), count - 1
    return at, count


def _top_commas(inside: bytes) -> list[int]:
    """Indexes of the commas of `inside` (an array's content in `r`) outside nested brackets;
    for arrays nested deeper than `_R_DEPTH`, which the patterns do not reach."""
    out, depth = [], 0
    for at, byte in enumerate(inside):
        depth += (byte == 0x5B) - (byte == 0x5D)
        if byte == 0x2C and depth == 0:
            out.append(at)
    return out


def _deep_close(r: bytes, x: int) -> int | None:
    depth = 0
    for at in range(x, len(r)):
        byte = r[at]
        depth += (byte == 0x5B) - (byte == 0x5D)
        if depth == 0:
            return at
    return None


def _is_json(text: bytes) -> bool:
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        try:
            json.loads(text)  # NaN and Infinity, as Python writes them
        except RecursionError:
            return True  # nested too deep to check this way; its brackets were matched
        except ValueError:
            return False
    return True
