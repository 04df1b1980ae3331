"""YAML outlines: the key tree of each document, through the shared data walker.

Mappings list their keys, sequences their first items; anchors and tags are kept in
the detail (`&defaults mapping{2 keys}`) because merges and references depend on them.
A stream of several documents (`---`) lists one `document` symbol per document.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tokenlab.reads import treesitter
from tokenlab.reads.code_outline import encode_source
from tokenlab.reads.data_outline import (
    Member,
    first_named_children,
    inline_preview,
    key_tree,
    node_text,
    plural,
    scalar_preview,
)
from tokenlab.reads.symbols import Outline, freeze, line_count

if TYPE_CHECKING:
    from tree_sitter import Node

    from tokenlab.reads.outline import OutlineConfig

_MAPPINGS = ("block_mapping", "flow_mapping")
_SEQUENCES = ("block_sequence", "flow_sequence")
_PAIRS = ("block_mapping_pair", "flow_pair")
_DECORATIONS = ("anchor", "tag", "comment")
_WRAPPERS = ("block_node", "flow_node", "block_sequence_item")


class _Yaml:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def content(self, node: Node) -> tuple[Node | None, str]:
        """The value inside block/flow nodes and sequence items, and its anchor and tag."""
        decorations: list[str] = []
        found: Node | None = node
        while found is not None and found.type in _WRAPPERS:
            wrapper, found = found, None
            for child in wrapper.named_children:
                if child.type in _DECORATIONS:
                    decorations += [] if child.type == "comment" else [node_text(self.data, child)]
                elif found is None:
                    found = child
        return found, " ".join(decorations)

    def members(self, container: Node, config: OutlineConfig) -> tuple[list[Member], int]:
        value, _ = self.content(container)
        if value is None:
            return [], 0
        if value.type in _SEQUENCES:
            items = first_named_children(value, config.array_items)
            return [Member("item", f"[{i}]", item, item) for i, item in enumerate(items)], 0
        pairs = [p for p in first_named_children(value, config.data_breadth) if p.type in _PAIRS]
        members = [Member("key", self._key(pair), pair.child_by_field_name("value"), pair) for pair in pairs]
        return members, max(0, _count(value, _PAIRS) - len(pairs))

    def describe(self, node: Node) -> tuple[bool, str]:
        value, decorations = self.content(node)
        prefix = f"{decorations} " if decorations else ""
        if value is None:
            return False, decorations
        if value.type in _MAPPINGS:
            count = _count(value, _PAIRS)
            return count > 0, f"{prefix}mapping{{{plural(count, 'key')}}}"
        if value.type in _SEQUENCES:
            items = first_named_children(value, 1)
            first = self.content(items[0])[0] if items else None
            expandable = first is not None and first.type in _MAPPINGS + _SEQUENCES
            count = _count(value, ("block_sequence_item", "flow_node", "flow_pair"))
            preview = "" if expandable else inline_preview(self.data, value)
            return expandable, f"{prefix}sequence[{count:,}]{preview}"
        if value.type == "block_scalar":
            lines = value.end_point[0] - value.start_point[0]
            return False, f"{prefix}text, {plural(lines, 'line')}"
        return False, prefix + scalar_preview(node_text(self.data, value))

    def _key(self, pair: Node) -> str:
        key = pair.child_by_field_name("key")
        if key is None:
            return "?"
        value, _ = self.content(key)
        text = node_text(self.data, value if value is not None else key)
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
            return text[1:-1]
        return text


def _count(node: Node, types: tuple[str, ...]) -> int:
    return sum(1 for child in node.named_children if child.type in types)


def yaml_outline(text: str, config: OutlineConfig) -> Outline:
    data = encode_source(text)
    root = treesitter.parse("yaml", data)
    yaml_format = _Yaml(data)
    documents = [d for d in root.named_children if d.type == "document"]
    notes = []
    top: list[Member] = []
    if len(documents) > 1:
        for number, document in enumerate(documents, start=1):
            content = next((c for c in document.named_children if c.type != "comment"), None)
            top.append(Member("document", str(number), content, document))
    elif documents:
        content = next((c for c in documents[0].named_children if c.type != "comment"), None)
        if content is not None:
            expandable, detail = yaml_format.describe(content)
            if expandable:
                top, left_out = yaml_format.members(content, config)
                if left_out:
                    notes.append(f"{left_out:,} top-level keys not listed")
            else:
                notes.append(f"top level: {detail}")
    drafts, cut = key_tree(yaml_format, top, config)
    notes += [cut] if cut else []
    notes += ["syntax errors in the file: keys near them may be missing"] if root.has_error else []
    return Outline("yaml", freeze(drafts), line_count(text), "; ".join(notes))
