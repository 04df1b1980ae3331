"""The XML scanner: one document read into `Element`s with byte offsets, never re-serialised.

The scanner is our own and deliberately small: it finds tags, comments, CDATA, processing
instructions and a prolog DOCTYPE, and never expands an entity (so no external entity is
ever fetched and "billion laughs" stays a few bytes of text). Anything it cannot follow
(mismatched tags, text outside the root, an unterminated construct) makes the input
"not XML": the optimizer then shows it whole. Time is linear: each byte is scanned once
and each tag matched once.

While it reads, the scanner marks each element that is, or holds, a failure, an error or a
finding (`notable`), and each that is or holds a `<testsuite>`: the layout and checkstyle's
reading both start from these marks. Names with a leading underscore are the XML family's
own, shared with `optimizer.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tokenlab.optimizers.json_doc.records import RecordsConfig
from tokenlab.patterns import compile_on_use

# A name is taken whole: bytes it gave back would be read by what follows just the same,
# so trying that only repeated the work. An attribute's name is looked for once per run of
# name bytes, from where the run starts: tried at each byte, a run was read again from each.
_NAME_BYTE = rb"[-A-Za-z0-9_:.\x80-\xff]"
_NAME = rb"[A-Za-z_:\x80-\xff]" + _NAME_BYTE + rb"*+"
_TAG_RE = compile_on_use(rb"<(/?)(" + _NAME + rb")((?:[^<>\"']|\"[^\"]*\"|'[^']*')*)>")
_ATTR_RE = compile_on_use(
    rb"(?<!" + _NAME_BYTE + rb")[-.0-9]*+(" + _NAME + rb")\s*=\s*(?:\"([^\"]*)\"|'([^']*)')"
)
_SPACE = b" \t\r\n"
_FAILURE_VALUE = compile_on_use(RecordsConfig().failure_value_pattern, re.IGNORECASE)
# Children that make a testcase worth showing; `skipped` is shown too, up to a limit.
_FAILING_TAGS = frozenset({"failure", "error", "flakyFailure", "flakyError", "rerunFailure", "rerunError"})
_STATUS_ATTRS = ("status", "result", "outcome", "state", "severity", "level", "type")


@dataclass(slots=True, eq=False)
class Element:
    tag: str
    attr_bytes: bytes
    start: int  # "<" of the start tag
    inner_start: int  # just after the start tag
    inner_end: int = -1  # "<" of the end tag (inner_start for an empty element)
    end: int = -1  # just after the end tag
    children: list[Element] = field(default_factory=list)
    notable: bool = False  # this element or one below it is a failure, an error or a finding
    holds_suite: bool = False  # this element is a <testsuite> or holds one: never folded whole
    parsed: dict[str, str] | None = None

    def attrs(self) -> dict[str, str]:
        """Attribute values as written (entities are never expanded), parsed once."""
        if self.parsed is None:
            self.parsed = {
                m[1].decode("utf-8", "replace"): (m[2] if m[2] is not None else m[3]).decode(
                    "utf-8", "replace"
                )
                for m in _ATTR_RE.finditer(self.attr_bytes)
            } if b"=" in self.attr_bytes else {}
        return self.parsed


class NotXml(Exception):
    """The scanner could not follow the input as one well-formed XML document."""


def parse(data: bytes) -> Element:
    """The root element of `data`, with byte offsets; raises `NotXml`."""
    stack: list[Element] = []
    root: Element | None = None
    pos = 0
    size = len(data)
    while pos < size:
        lt = data.find(b"<", pos)
        text_end = size if lt < 0 else lt
        if not stack and data[pos:text_end].strip(_SPACE) and not (pos == 0 and _only_bom(data, text_end)):
            raise NotXml("text outside the root element")
        if lt < 0:
            break
        pos = _skip_markup(data, lt, prolog=root is None)
        if pos >= 0:
            continue
        match = _TAG_RE.match(data, lt)
        if match is None:
            raise NotXml(f"unreadable tag at byte {lt}")
        pos = match.end()
        closing, name, rest = match[1], match[2].decode("utf-8", "replace"), match[3]
        if closing:
            if not stack or stack[-1].tag != name or rest.strip(_SPACE):
                raise NotXml(f"unexpected end tag at byte {lt}")
            _close(stack.pop(), lt, pos, stack)
            continue
        if root is not None and not stack:
            raise NotXml("a second root element")
        empty = rest.endswith(b"/")
        element = Element(name, rest[:-1] if empty else rest, lt, pos)
        if stack:
            stack[-1].children.append(element)
        else:
            root = element
        if empty:
            _close(element, pos, pos, stack)
        else:
            stack.append(element)
    if stack or root is None:
        raise NotXml("unclosed element" if stack else "no root element")
    return root


def _only_bom(data: bytes, end: int) -> bool:
    return data[:end].lstrip(b"\xef\xbb\xbf").strip(_SPACE) == b""


def _skip_markup(data: bytes, lt: int, prolog: bool) -> int:
    """The end of a comment, CDATA, processing instruction or DOCTYPE at `lt`, else -1."""
    for opener, closer in ((b"<!--", b"-->"), (b"<![CDATA[", b"]]>"), (b"<?", b"?>")):
        if data.startswith(opener, lt):
            end = data.find(closer, lt + len(opener))
            if end < 0:
                raise NotXml(f"unterminated {opener.decode()} at byte {lt}")
            return end + len(closer)
    if data.startswith(b"<!", lt):
        if not prolog or not data.startswith(b"<!DOCTYPE", lt):
            raise NotXml(f"unexpected declaration at byte {lt}")
        close = data.find(b">", lt)
        bracket = data.find(b"[", lt, close if close >= 0 else len(data))
        if bracket >= 0:  # an internal subset: kept as text, its entities never expanded
            subset_end = data.find(b"]", bracket)
            close = -1 if subset_end < 0 else data.find(b">", subset_end)
        if close < 0:
            raise NotXml("unterminated DOCTYPE")
        return close + 1
    return -1


def _close(element: Element, inner_end: int, end: int, stack: list[Element]) -> None:
    element.inner_end, element.end = inner_end, end
    if not element.notable:
        element.notable = _local(element.tag) in _FAILING_TAGS or _failing_attr(element)
    if element.notable and stack:
        stack[-1].notable = True
    if _local(element.tag) == "testsuite":
        element.holds_suite = True
    if element.holds_suite and stack:
        stack[-1].holds_suite = True


def _local(tag: str) -> str:
    return tag.rpartition(":")[2]


def _failing_attr(element: Element) -> bool:
    if b"=" not in element.attr_bytes:
        return False
    attrs = element.attrs()
    return any(_FAILURE_VALUE.fullmatch(attrs.get(name, "")) for name in _STATUS_ATTRS[:6])
