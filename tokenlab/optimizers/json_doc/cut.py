"""A JSON document cut short: `head -c`, a size limit, a stream that stopped.

Such a text is no JSON document, yet every byte of it is one, up to where it stops. Read
as text it is one long line whose start is shown and whose end, where the cut happened,
is not; nothing says it is incomplete. So a text that starts with `{` or `[` and fails to
parse only because the input ended (the fast parser says so, at the input's end) is read
as a document cut short:

- a first line says so: how many bytes there are and where the input stops, as a path
  (`$.resource_changes[4].change.after.input`), and how many brackets are left open;
- the top level's members (an object's, or an array's items) follow as printed: a short
  one whole, a long one as its start, then its size (`{12 keys}`, `[30 items]`) and a ref
  to the rest. The first `head_members` and the last complete one are shown, the ones
  between fold into one ref;
- the member the cut falls in shows its start and then its end: from the earliest open
  container, or last complete item of one, that starts within `tail_chars` of the cut
  (the element being written, whole), else from an item boundary there, to the last byte.
  When it is an array of a few records, the fold between says what it hides: each record's
  name and a tally of its outcome fields (`index: a, b; change.actions: [create] ×2`).

Every ref holds the exact bytes it stands for, and shown text and refs tile the input in
order. Reading is linear: the stdlib's C scanner (`scan_once`) measures each complete
value once; a container the input stops in fails that scan only at the end and is then
read item by item. Past `_FAILED_SCANS` passes' worth of such failures (a deep cut), one
pass over the brackets outside strings finds every open container instead.
"""

from __future__ import annotations

import json
from collections import Counter
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import orjson

from tokenlab.optimizers import Omission, Part
from tokenlab.patterns import compile_on_use

_Scanner = Callable[[str, int], tuple[Any, int]]
_SCAN_ONCE = cast(_Scanner, json.JSONDecoder().scan_once)  # type: ignore[attr-defined]
_StringScanner = Callable[[str, int], tuple[str, int]]
_SCAN_STRING = cast(_StringScanner, json.decoder.scanstring)  # type: ignore[attr-defined]
_WS = compile_on_use(r"[ \t\n\r]*")
# What a scalar cut short can look like: a string without its closing quote, part of a
# number, part of `true`, `false` or `null`.
_CUT_SCALAR = compile_on_use(
    r'(?:"[^"\\\x00-\x1f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*)*(?:\\(?:u[0-9a-fA-F]{0,3})?)?'
    r"|-?(?:[0-9]+\.?[0-9]*(?:[eE][+-]?[0-9]*)?)?"
    r"|t(?:r(?:ue?)?)?|f(?:a(?:l(?:se?)?)?)?|n(?:u(?:ll?)?)?)\Z"
)
_FAILED_SCANS = 8  # passes of the C scanner over the input spent on open containers
_IDENTIFIER = compile_on_use(r"[A-Za-z_][A-Za-z0-9_]*")
_BRACKET = compile_on_use(r"[\[\]{}]")


@dataclass(frozen=True)
class CutLimits:
    min_bytes: int = 2048  # a shorter cut document is shown whole: its end is in sight
    head_members: int = 8  # top-level members shown from the start
    member_chars: int = 160  # a longer member shows this much, then its size and a ref
    tail_chars: int = 600  # the end shown where the input stops
    path_steps: int = 12  # a deeper path shows its first and last steps


DEFAULT_LIMITS = CutLimits()


@dataclass
class _Frame:
    """An open container: its bracket, where it starts, its items so far, and the key (in
    an object) or the start of the item being read."""

    bracket: str
    start: int
    items: int = 0
    key: str | None = None
    item_start: int = 0
    last_item_start: int | None = None  # where the last complete item starts
    after_item: bool = False
    values: list[object] = field(default_factory=list)  # a few complete items, to name them


@dataclass(frozen=True)
class Member:
    """A top-level member as printed: [start, end) of its text, and its size when it holds
    a container."""

    start: int
    end: int
    size: str


@dataclass(frozen=True)
class CutDocument:
    members: tuple[Member, ...]  # the complete top-level members
    cut_member: Member | None  # the top-level member the input stops in, if any
    steps: tuple[str, ...]  # the path to where the input stops: `.key`, `[4]`
    brackets: int  # containers left open
    landmarks: tuple[int, ...]  # where open containers and their last complete items start

    def path(self, steps: int) -> str:
        """`$.a.b[4]`; a path of more than `steps` steps shows its first and last ones."""
        if len(self.steps) <= steps:
            return "$" + "".join(self.steps)
        half = steps // 2
        hidden = len(self.steps) - 2 * half
        middle = f"…({hidden:,} more levels)…"
        return "$" + "".join(self.steps[:half]) + middle + "".join(self.steps[-half:])


def ends_early(data: bytes) -> bool:
    """The fast parser gives up only because the input ended."""
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError as error:
        return error.msg.startswith("unexpected end of data")
    return False


def read_cut(text: str) -> CutDocument | None:
    """The document `text` would be had it not stopped; None when it is not one cut short
    (a syntax error before the end, a complete document)."""
    pos = _WS.match(text).end()
    if text[pos : pos + 1] not in ("{", "["):
        return None
    root = pos
    # A container the input stops in fails the C scanner only at the end; past a few such
    # scans, one pass finds every open container so that no more are scanned.
    scan_budget = _FAILED_SCANS * len(text)
    still_open: set[int] | None = None
    stack = [_Frame(text[pos], pos)]
    members: list[Member] = []
    pos += 1
    while True:
        frame = stack[-1]
        pos = _WS.match(text, pos).end()
        if pos == len(text):
            return _cut(text, stack, members, in_value=False)
        char = text[pos]
        closer = "}" if frame.bracket == "{" else "]"
        if char == closer and (frame.after_item or frame.items == 0):
            stack.pop()
            if not stack:
                return None  # complete: not cut short
            _item_done(stack, members, pos + 1, _size_of(frame) if len(stack) == 1 else "")
            pos += 1
            continue
        if frame.after_item:
            if char != ",":
                return None
            frame.after_item = False
            pos += 1
            continue
        frame.item_start = pos
        if frame.bracket == "{":
            if char != '"':
                return None
            try:
                frame.key, pos = _SCAN_STRING(text, pos + 1)
            except ValueError:
                return _cut(text, stack, members, in_value=False) if _cut_scalar_to_end(text, pos) else None
            pos = _WS.match(text, pos).end()
            if pos == len(text):
                return _cut(text, stack, members, in_value=True)
            if text[pos] != ":":
                return None
            pos = _WS.match(text, pos + 1).end()
            if pos == len(text):
                return _cut(text, stack, members, in_value=True)
        if still_open is not None and pos in still_open:  # read item by item
            stack.append(_Frame(text[pos], pos))
            pos += 1
            continue
        try:
            value, end = _SCAN_ONCE(text, pos)
        except (StopIteration, ValueError, RecursionError):
            if text[pos] not in "{[":
                return _cut(text, stack, members, in_value=True) if _cut_scalar_to_end(text, pos) else None
            # Open (the input stops in it), or complete but deeper than the C scanner goes.
            scan_budget -= len(text) - pos
            if still_open is None and scan_budget < 0:
                still_open = set(_open_containers(text, root))
            stack.append(_Frame(text[pos], pos))
            pos += 1
            continue
        if isinstance(value, (int, float)) and not isinstance(value, bool) and _cut_scalar_to_end(text, pos):
            return _cut(text, stack, members, in_value=True)  # `87`, `-2500.`: a number cut short
        if len(stack) == 2 and stack[1].bracket == "[" and len(stack[1].values) < _MOST_NAMED:
            stack[1].values.append(value)  # an item of the array the cut may fall in
        _item_done(stack, members, end, _size(value) if len(stack) == 1 else "")
        pos = end


def _open_containers(text: str, pos: int) -> list[int]:
    """Where each bracket left open at the input's end starts, outermost first; empty when
    the brackets close early (a complete value, or one closed by the wrong bracket)."""
    stack: list[int] = []
    for match in _BRACKET.finditer(_without_strings(text), pos):
        at = match.start()
        char = text[at]
        if char in "{[":
            stack.append(at)
        elif not stack or text[stack.pop()] != ("{" if char == "}" else "["):
            return []
        elif not stack:
            return []  # the first value closed: anything after it is not part of it
    return stack


def _without_strings(text: str) -> str:
    """`text` with every string's content (an open last one's too) blanked, offsets kept:
    escaped backslashes and quotes are blanked first, then what lies between quotes."""
    unescaped = text.replace("\\\\", "  ").replace('\\"', "  ")
    pieces = unescaped.split('"')
    return '"'.join(piece if index % 2 == 0 else " " * len(piece) for index, piece in enumerate(pieces))


def _cut_scalar_to_end(text: str, pos: int) -> bool:
    found = _CUT_SCALAR.match(text, pos)
    return found is not None and found.end() == len(text) > pos


def _size_of(frame: _Frame) -> str:
    return f"{{{frame.items:,} keys}}" if frame.bracket == "{" else f"[{frame.items:,} items]"


def _size(value: object, outline_chars: int = 160) -> str:
    """A container's size, and its outline when that fits in `outline_chars`: the keys of
    the objects in it with the sizes of their containers, three levels down at most."""
    for depth in (3, 2, 1):
        outline = _outline(value, depth)
        if len(outline) <= outline_chars:
            return outline
    return _outline(value, 0)


def _outline(value: object, depth: int) -> str:
    if isinstance(value, list):
        return f"[{len(value):,} items{_kinds(value)}]"
    if not isinstance(value, dict):
        return ""
    if depth == 0 or not value:
        return f"{{{len(value):,} keys}}"
    inner = (
        f"{key}: {_outline(item, depth - 1)}" if isinstance(item, (dict, list)) else key
        for key, item in value.items()
    )
    return "{" + ", ".join(inner) + "}"


# Keys that say what kind of record an object is; an array of such records says its kinds.
_KIND_KEYS = ("type", "kind", "@type", "$type", "resourceType")
_MOST_KINDS = 3  # more kinds than this are a column of values, not a few kinds


def _kinds(items: list[object]) -> str:
    """`, each type terraform_data` or `: kind Deployment ×2, Service ×1` for an array of
    objects that all say their kind under one key, in a few kinds: a count alone does not
    say what is folded. Empty otherwise."""
    if not items or not all(isinstance(item, dict) for item in items):
        return ""
    for key in _KIND_KEYS:
        kinds = [item.get(key) for item in items if isinstance(item, dict)]
        if all(isinstance(kind, str) for kind in kinds):
            tally = Counter(str(kind) for kind in kinds)
            if len(tally) == 1:
                return f", each {key} {kinds[0]}"
            if len(tally) <= _MOST_KINDS:
                return f": {key} " + ", ".join(f"{kind} ×{count:,}" for kind, count in tally.items())
            return ""
    return ""


def _item_done(stack: list[_Frame], members: list[Member], end: int, size: str) -> None:
    frame = stack[-1]
    if len(stack) == 1:
        members.append(Member(frame.item_start, end, size))
    frame.last_item_start = frame.item_start
    frame.items += 1
    frame.after_item = True


def _cut(text: str, stack: list[_Frame], members: list[Member], in_value: bool) -> CutDocument:
    """Where the input stops: the path through the open containers (with the key or index
    being read in the innermost when the cut falls in a value), and the cut member."""
    steps = []
    for depth, frame in enumerate(stack):
        if depth + 1 == len(stack) and not in_value:
            break
        if frame.bracket == "{":
            key = frame.key or ""
            quoted = f"[{json.dumps(key, ensure_ascii=False)}]"
            steps.append(f".{key}" if _IDENTIFIER.fullmatch(key) else quoted)
        else:
            steps.append(f"[{frame.items}]")
    root = stack[0]
    opened = len(stack) > 1 or in_value
    cut_member = Member(root.item_start, len(text), _open_size(stack)) if opened else None
    # Where the shown end may start: an open container, or the last complete item in one.
    landmarks = sorted(
        {frame.start for frame in stack[1:]}
        | {frame.last_item_start for frame in stack[1:] if frame.last_item_start is not None}
    )
    return CutDocument(tuple(members), cut_member, tuple(steps), len(stack), tuple(landmarks))


def _open_size(stack: list[_Frame]) -> str:
    if len(stack) < 2:
        return ""
    frame = stack[1]
    noun = "keys" if frame.bracket == "{" else "items"
    closer = "}" if frame.bracket == "{" else "]"
    said = _records_said(frame.values) if len(frame.values) == frame.items else ""
    return f"{frame.bracket}{frame.items:,} {noun} complete{said}{'; ' if said else ', '}then the cut{closer}"


# Keys that say what happens to a record, or how it ended: a fold of records tallies them.
_OUTCOME_KEYS = ("actions", "action", "status", "state", "result", "outcome", "conclusion")
_MOST_NAMED = 8  # a fold of more records names none of them
_NAMES_CHARS = 240  # nor names longer than this, all told


def _records_said(items: list[object]) -> str:
    """What a fold of a few complete records says of them, as the reader cannot open it:
    their kinds (`_kinds`), each one's name (`_names`), and a tally of each outcome field
    (`change.actions: [create] ×4`). Empty for anything but objects."""
    if not items or not all(isinstance(item, dict) for item in items):
        return ""
    records = cast(list[dict[str, object]], items)
    said = [_names(records), *(_tally(records, path) for path in _outcome_paths(records[0]))]
    return _kinds(items) + "".join(f"; {part}" for part in said if part)


def _names(records: list[dict[str, object]]) -> str:
    """`index: a, b, c`: the shortest text field whose values all differ, in order."""
    named = []
    for key in records[0]:
        values = [record.get(key) for record in records]
        texts = [value for value in values if isinstance(value, str)]
        if len(texts) == len(records) and len(set(texts)) == len(texts):
            named.append((sum(map(len, texts)), key, texts))
    if not named:
        return ""
    size, key, texts = min(named, key=lambda found: found[0])
    return f"{key}: {', '.join(texts)}" if size <= _NAMES_CHARS else ""


def _outcome_paths(record: dict[str, object]) -> list[tuple[str, ...]]:
    """The outcome fields of a record, at its top level or one object down (`change.actions`)."""
    paths = [(key,) for key in record if key in _OUTCOME_KEYS]
    for key, child in record.items():
        if isinstance(child, dict):
            paths += [(key, inner) for inner in child if inner in _OUTCOME_KEYS]
    return paths


def _tally(records: list[dict[str, object]], path: tuple[str, ...]) -> str:
    """`change.actions: [create] ×3, [delete] ×1` when every record holds a short value there
    (text, number, or a list of them), in a few kinds; else empty."""
    tally: Counter[str] = Counter()
    for record in records:
        value: object = record
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, list) and all(isinstance(item, (str, int, float)) for item in value):
            tally["[" + ", ".join(map(str, value)) + "]"] += 1
        elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
            tally[str(value)] += 1
        else:
            return ""
    if len(tally) > _MOST_KINDS:
        return ""
    return ".".join(path) + ": " + ", ".join(f"{value} ×{count:,}" for value, count in tally.items())


def cut_parts(text: str, cut: CutDocument, limits: CutLimits) -> tuple[list[Part], str]:
    """The visible parts of a document cut short, and the line that says so. Shown text and
    refs tile the input in order."""
    brackets = cut.brackets
    note = (
        f"[cut short: this JSON document stops after {len(text.encode('utf-8')):,} bytes,"
        f" inside {cut.path(limits.path_steps)},"
        f" with {brackets} bracket{'s' if brackets != 1 else ''} never closed]"
    )
    complete = list(cut.members)
    shown = complete[: limits.head_members]
    if len(complete) > limits.head_members:
        shown.append(complete[-1])
    parts: list[Part] = [note + "\n"]
    at = 0
    for member in [*shown, cut.cut_member] if cut.cut_member else shown:
        if at and member.start > at:  # members folded between the head and the last one
            folded = len(complete) - len(shown)
            parts += _line_break(parts)
            folded_members = _omit(text, at, member.start, "top-level members")
            parts += [f"… {folded:,} more members ", folded_members, "\n"]
            at = member.start
        if member is cut.cut_member:
            parts += _cut_member_parts(text, at, cut, limits)
            at = len(text)
            break
        end = _separator_end(text, member.end)
        parts += _member_parts(text, at, end, member, limits)
        at = end
    parts.append(text[at:])
    parts += _line_break(parts)
    return [part for part in parts if part != ""], note


def _member_parts(text: str, start: int, end: int, member: Member, limits: CutLimits) -> list[Part]:
    """A member as printed when short; else its start, its size and a ref to the rest."""
    if end - start <= limits.member_chars:
        return [text[start:end]]
    head_end = _head_end(text, start, limits.member_chars)
    label = f"{member.size} " if member.size else ""
    rest = _omit(text, head_end, end, "rest of a top-level member")
    return [text[start:head_end], f" … {label}", rest, "\n"]


def _cut_member_parts(text: str, start: int, cut: CutDocument, limits: CutLimits) -> list[Part]:
    """The member the input stops in: its start, then its end up to the last byte."""
    tail_from = _tail_start(text, cut, start, limits)
    head_end = min(tail_from, _head_end(text, start, limits.member_chars))
    parts: list[Part] = [text[start:head_end]]
    if head_end < tail_from:
        size = cut.cut_member.size if cut.cut_member else ""
        middle = _omit(text, head_end, tail_from, "middle of the cut member")
        parts += [f" … {size} " if size else " … ", middle, "\n"]
    parts.append(text[tail_from:])
    return parts


def _separator_end(text: str, end: int) -> int:
    """After a member's value: past the comma that follows it and the whitespace around it,
    where the next member starts."""
    at = _WS.match(text, end).end()
    return _WS.match(text, at + 1).end() if text[at : at + 1] == "," else end


def _line_break(parts: list[Part]) -> list[Part]:
    last = next((part for part in reversed(parts) if isinstance(part, str) and part), "\n")
    return [] if last.endswith("\n") else ["\n"]


def _head_end(text: str, start: int, chars: int) -> int:
    """Where a shown start ends: `chars` on, moved back off an escape sequence."""
    cut = min(start + chars, len(text))
    slash = text.rfind("\\", max(start, cut - 6), cut)
    return slash if slash != -1 else cut


def _tail_start(text: str, cut: CutDocument, low: int, limits: CutLimits) -> int:
    """The earliest open container, or last complete item in one, that starts after `low`
    and within `tail_chars` of the end; else the item after the first comma there."""
    floor = max(low, len(text) - limits.tail_chars)
    at = bisect_left(cut.landmarks, floor)
    if at < len(cut.landmarks):
        return cut.landmarks[at]
    comma = text.find(",", floor)
    return comma + 1 if comma != -1 else floor


def _omit(text: str, start: int, end: int, reason: str) -> Omission:
    return Omission(text[start:end].encode("utf-8"), reason)
