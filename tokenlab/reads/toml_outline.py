"""TOML outlines: top-level keys, then each `[table]` and `[[array of tables]]` with its keys.

Tables stay a flat list in file order, as TOML writes them (`[tool.ruff]` after
`[tool]` is a separate section of the file); their dotted names still make paths such as
`tool.ruff.line-length` work. Items of an array of tables are named `products[0]`,
`products[1]`…, and inline tables and arrays expand like JSON objects and arrays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tokenlab.reads.code_outline import encode_source
from tokenlab.reads.data_outline import (
    Member,
    first_named_children,
    inline_preview,
    key_tree,
    node_text,
    scalar_preview,
)
from tokenlab.reads.symbols import Outline, freeze, line_count, plural
from tokenlab.syntax import treesitter

if TYPE_CHECKING:
    from tree_sitter import Node

    from tokenlab.reads.symbols import OutlineConfig

_TABLES = ("table", "table_array_element", "inline_table")
_KEYS = ("bare_key", "quoted_key", "dotted_key")


class _Toml:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def members(self, container: Node, config: OutlineConfig) -> tuple[list[Member], int]:
        if container.type == "array":
            items = first_named_children(container, config.array_items)
            return [Member("item", f"[{i}]", item, item) for i, item in enumerate(items)], 0
        entries = first_named_children(container, config.data_breadth, ("comment", *_KEYS))
        members = [self.pair_member(entry) for entry in entries if entry.type == "pair"]
        return members, max(0, _pair_count(container) - len(members))

    def pair_member(self, pair: Node) -> Member:
        parts = [child for child in pair.named_children if child.type != "comment"]
        key = self.key_text(parts[0]) if parts else "?"
        return Member("key", key, parts[1] if len(parts) > 1 else None, pair)

    def key_text(self, key: Node) -> str:
        if key.type == "dotted_key":
            return ".".join(self.key_text(part) for part in key.named_children if part.type in _KEYS)
        text = node_text(self.data, key).strip()
        if key.type == "quoted_key" and len(text) >= 2:
            return text[1:-1]
        return text

    def describe(self, value: Node) -> tuple[bool, str]:
        if value.type in _TABLES:
            count = _pair_count(value)
            return count > 0, f"table{{{plural(count, 'key')}}}"
        if value.type == "array":
            first = first_named_children(value, 1)
            expandable = bool(first) and first[0].type in ("inline_table", "array")
            count = sum(1 for child in value.named_children if child.type != "comment")
            preview = "" if expandable else inline_preview(self.data, value)
            return expandable, f"array[{count:,}]{preview}"
        if value.type == "string" and value.end_point[0] > value.start_point[0]:
            return False, f"text, {plural(value.end_point[0] - value.start_point[0] + 1, 'line')}"
        return False, scalar_preview(node_text(self.data, value))


def _pair_count(node: Node) -> int:
    return sum(1 for child in node.named_children if child.type == "pair")


def toml_outline(text: str, config: OutlineConfig) -> Outline:
    data = encode_source(text)
    root = treesitter.parse("toml", data)
    toml_format = _Toml(data)
    top: list[Member] = []
    seen_arrays: dict[str, int] = {}
    for child in root.named_children:
        if child.type == "pair":
            top.append(toml_format.pair_member(child))
        elif child.type in ("table", "table_array_element"):
            header = next((part for part in child.named_children if part.type in _KEYS), None)
            name = toml_format.key_text(header) if header is not None else "?"
            if child.type == "table_array_element":
                index = seen_arrays.get(name, 0)
                seen_arrays[name] = index + 1
                name = f"{name}[{index}]"
            top.append(Member("table", name, child, child))
    drafts, cut = key_tree(toml_format, top, config)
    notes = [cut.note(config)] if cut.note(config) else []
    notes += ["syntax errors in the file: keys near them may be missing"] if root.has_error else []
    return Outline("toml", freeze(drafts), line_count(text), "; ".join(notes))
