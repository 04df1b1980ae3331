"""Key-tree outlines of structured data: the walker JSON, YAML and TOML share, and JSON.

A data outline lists keys (and the first items of arrays) with their line ranges and a
short description of their value: a size for containers (`object{4 keys}`, `array[12]`)
and a preview for scalars. Trees come from tree-sitter, which gives positions and still
returns a tree for broken input. The walk is iterative and stops at `data_depth`
levels; containers below that are counted in the note, as are keys beyond
`data_breadth` per container, so nothing is left out silently.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from tokenlab.reads.code_outline import encode_source
from tokenlab.reads.symbols import Draft, Outline, freeze, line_count, plural, shorten
from tokenlab.syntax import treesitter

if TYPE_CHECKING:
    from tree_sitter import Node

    from tokenlab.reads.symbols import OutlineConfig

_PREVIEW_LIMIT = 40


@dataclass(frozen=True)
class Member:
    """One entry of a container: a key and its value, or an array item."""

    kind: str  # "key", "item", "table", "document"
    name: str
    value: Node | None  # None: nothing to describe (an empty value)
    span: Node  # the node whose lines the symbol covers


class DataFormat(Protocol):
    data: bytes  # the parsed source

    def members(self, container: Node, config: OutlineConfig) -> tuple[list[Member], int]:
        """The listed members of an expandable container, and how many keys were not listed."""
        ...

    def describe(self, value: Node) -> tuple[bool, str]:
        """Whether the value can be expanded, and its detail (`object{4 keys}`, `"text"`)."""
        ...


@dataclass
class Cut:
    """What a key tree left out: containers below the depth limit, keys beyond the breadth."""

    too_deep: int = 0
    unlisted: int = 0

    def add(self, other: Cut) -> None:
        self.too_deep += other.too_deep
        self.unlisted += other.unlisted

    def note(self, config: OutlineConfig) -> str:
        notes = []
        if self.too_deep:
            notes.append(
                f"depth limited to {config.data_depth}: {self.too_deep:,} deeper containers not expanded"
            )
        if self.unlisted:
            notes.append(
                f"{self.unlisted:,} keys beyond the first {config.data_breadth:,} per container not listed"
            )
        return "; ".join(notes)


def key_tree(
    data_format: DataFormat, top: list[Member], config: OutlineConfig, depth: int = 1
) -> tuple[list[Draft], Cut]:
    """Draft symbols for `top` (at `depth`) and the members below them, and what was cut."""
    roots: list[Draft] = []
    cut = Cut()
    pending: list[tuple[list[Member], list[Draft], int]] = [(top, roots, depth)]
    while pending:
        members, siblings, level = pending.pop()
        for member in members:
            expandable, detail = (
                data_format.describe(member.value) if member.value is not None else (False, "")
            )
            draft = Draft(
                kind=member.kind,
                name=display_name(member.name),
                start_line=member.span.start_point[0] + 1,
                end_line=treesitter.last_content_line(member.span, data_format.data),
                detail=detail,
            )
            siblings.append(draft)
            if not expandable or member.value is None:
                continue
            if level >= config.data_depth:
                cut.too_deep += 1
                continue
            children, left_out = data_format.members(member.value, config)
            cut.unlisted += left_out
            pending.append((children, draft.children, level + 1))
    return roots, cut


def display_name(name: str) -> str:
    """A key on one line: control characters are written as JSON escapes."""
    if name.isprintable():
        return name
    return json.dumps(name, ensure_ascii=False)[1:-1]


def scalar_preview(text: str) -> str:
    """A scalar's source text, shortened; long strings say their length instead."""
    preview = shorten(text, _PREVIEW_LIMIT)
    return preview if not preview.endswith("…") else f"{preview} ({len(text):,} chars)"


def inline_preview(data: bytes, node: Node) -> str:
    """` [1, 2, 3]`: a short container written on one line, as written; else ""."""
    if node.end_byte - node.start_byte > _PREVIEW_LIMIT or node.end_point[0] != node.start_point[0]:
        return ""
    return " " + shorten(node_text(data, node), _PREVIEW_LIMIT)


def first_named_children(node: Node, limit: int, skip: tuple[str, ...] = ("comment",)) -> list[Node]:
    """Up to `limit` named children of `node`, comments skipped, without listing them all."""
    found: list[Node] = []
    for index in range(node.named_child_count):
        if len(found) >= limit:
            break
        child = node.named_child(index)
        if child is not None and child.type not in skip:
            found.append(child)
    return found


def node_text(data: bytes, node: Node) -> str:
    return data[node.start_byte : node.end_byte].decode("utf-8", "replace")


class _Json:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def members(self, container: Node, config: OutlineConfig) -> tuple[list[Member], int]:
        if container.type == "array":
            items = first_named_children(container, config.array_items)
            return [Member("item", f"[{i}]", item, item) for i, item in enumerate(items)], 0
        pairs = [p for p in first_named_children(container, config.data_breadth) if p.type == "pair"]
        members = [Member("key", self._key(pair), pair.child_by_field_name("value"), pair) for pair in pairs]
        return members, max(0, _entry_count(container) - len(pairs))

    def describe(self, value: Node) -> tuple[bool, str]:
        if value.type == "object":
            count = _entry_count(value)
            return count > 0, f"object{{{plural(count, 'key')}}}"
        if value.type == "array":
            count = _entry_count(value)
            first = first_named_children(value, 1)
            expandable = bool(first) and first[0].type in ("object", "array")
            preview = "" if expandable else inline_preview(self.data, value)
            return expandable, f"array[{count:,}]{preview}"
        return False, scalar_preview(node_text(self.data, value))

    def _key(self, pair: Node) -> str:
        key = pair.child_by_field_name("key")
        if key is None:
            return "?"
        text = node_text(self.data, key)
        if "\\" in text:
            try:
                decoded = json.loads(text)
                return decoded if isinstance(decoded, str) else text
            except ValueError:
                return text[1:-1]
        return text[1:-1] if text.startswith('"') and text.endswith('"') and len(text) >= 2 else text


def _entry_count(container: Node) -> int:
    """Named children that are not comments (JSON with comments is common in configs)."""
    count = container.named_child_count
    if count <= 64:
        return sum(1 for child in container.named_children if child.type != "comment")
    return count  # large containers: comments among thousands of entries are not worth a pass


def json_outline(text: str, config: OutlineConfig) -> Outline:
    data = encode_source(text)
    root = treesitter.parse("json", data)
    values = first_named_children(root, 1)
    json_format = _Json(data)
    notes = []
    top: list[Member] = []
    if values:
        value = values[0]
        expandable, detail = json_format.describe(value)
        if value.type != "object" or not expandable:
            notes.append(f"top level: {detail}")
        if expandable:
            top, left_out = json_format.members(value, config)
            if left_out:
                notes.append(f"{left_out:,} top-level keys not listed")
    drafts, cut = key_tree(json_format, top, config)
    notes += [cut.note(config)] if cut.note(config) else []
    notes += ["syntax errors in the file: keys near them may be missing"] if root.has_error else []
    return Outline("json", freeze(drafts), line_count(text), "; ".join(notes))
