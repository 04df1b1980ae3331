"""YAML outlines: the key tree of each document, through the shared data walker.

Mappings list their keys, sequences their first items; anchors and tags are kept in
the detail (`&defaults mapping{2 keys}`) because merges and references depend on them.
A stream of several documents (`---`) lists one `document` symbol per document.
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

from tokenlab.reads.code_outline import encode_source
from tokenlab.reads.data_outline import (
    Cut,
    Member,
    first_named_children,
    inline_preview,
    key_tree,
    node_text,
    scalar_preview,
)
from tokenlab.reads.symbols import Draft, Outline, freeze, line_count, plural, walk_drafts
from tokenlab.syntax import treesitter

if TYPE_CHECKING:
    from tree_sitter import Node

    from tokenlab.reads.symbols import OutlineConfig

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
    total = line_count(text)
    if total > _ROW_LIMIT:
        drafts, notes = _large_yaml(data.split(b"\n")[:total], config)
        return Outline("yaml", freeze(drafts), total, "; ".join(notes))
    root = treesitter.parse("yaml", data)
    yaml_format = _Yaml(data)
    documents = [d for d in root.named_children if d.type == "document"]
    notes = []
    top: list[Member] = []
    if len(documents) > 1:
        for number, document in enumerate(documents, start=1):
            top.append(Member("document", str(number), _document_content(document), document))
    elif documents:
        content = _document_content(documents[0])
        if content is not None:
            expandable, detail = yaml_format.describe(content)
            if expandable:
                top, left_out = yaml_format.members(content, config)
                if left_out:
                    notes.append(f"{left_out:,} top-level keys not listed")
            else:
                notes.append(f"top level: {detail}")
    drafts, cut = key_tree(yaml_format, top, config)
    notes += [cut.note(config)] if cut.note(config) else []
    notes += ["syntax errors in the file: keys near them may be missing"] if root.has_error else []
    return Outline("yaml", freeze(drafts), total, "; ".join(notes))


def _document_content(document: Node) -> Node | None:
    return next((child for child in document.named_children if child.type != "comment"), None)


# --- files longer than the grammar can follow ----------------------------------------------
#
# tree-sitter-yaml 0.7 loses its place after row 32,767 and returns one ERROR node. Longer
# files are cut at entries of their outermost level (and recursively inside an entry that
# is itself too long), each part parsed on its own and its lines shifted back into place.

_ROW_LIMIT = 30_000
# A plain key grows by a byte, or by a whole run of blanks, at a time: it never ends inside
# a run of blanks, and from each blank of a long run the rest of the run was read again.
_KEY_LINE = re.compile(
    rb"[ \t]*(?:- +)?(\"[^\"]*\"|'[^']*'|[^\s#'\"](?:[^#\s]|[ \t]++|[^\S \t])*?)[ \t]*:(?:[ \t]|$)"
)


def _large_yaml(lines: list[bytes], config: OutlineConfig) -> tuple[list[Draft], list[str]]:
    cut = Cut()
    documents = _document_regions(lines)
    if len(documents) == 1:
        drafts, _kind, _count = _region(lines, *documents[0], 1, config, cut)
    else:
        drafts = []
        for number, (start, end) in enumerate(documents, start=1):
            children, kind, count = _region(lines, start, end, 2, config, cut)
            detail = _container_detail(kind, count)
            last = _last_content_line(lines, start, end)
            drafts.append(Draft("document", str(number), start + 1, last, detail, children))
    notes = [f"over {_ROW_LIMIT:,} lines: parsed in parts at top-level entries"]
    notes += [cut.note(config)] if cut.note(config) else []
    return drafts, notes


def _document_regions(lines: list[bytes]) -> list[tuple[int, int]]:
    """0-based [start, end) line ranges of the documents, split at `---` lines."""
    starts = [0] + [i for i, line in enumerate(lines) if line.rstrip() == b"---" and i > 0]
    regions = list(zip(starts, [*starts[1:], len(lines)], strict=True))
    return [region for region in regions if _content_lines(lines, *region)] or [(0, len(lines))]


def _region(
    lines: list[bytes], start: int, end: int, depth: int, config: OutlineConfig, cut: Cut
) -> tuple[list[Draft], str, int]:
    """Drafts for the entries of one indentation level, the level's kind and entry count."""
    content = _content_lines(lines, start, end)
    if not content:
        return [], "", 0
    indent = _indent(lines[content[0]])
    entries = [i for i in content if _indent(lines[i]) == indent and not lines[i].lstrip().startswith(b"---")]
    kind = "sequence" if lines[entries[0]].lstrip().startswith(b"-") else "mapping" if entries else ""
    drafts: list[Draft] = []
    for piece_start, piece_end in _pieces(entries, start, end):
        if piece_end - piece_start <= _ROW_LIMIT:
            drafts += _parsed_piece(lines, piece_start, piece_end, depth, config, cut)
        else:
            drafts.append(_oversized_entry(lines, piece_start, piece_end, depth, config, cut))
    limit = config.array_items if kind == "sequence" else config.data_breadth
    if kind == "mapping" and len(drafts) > limit:
        cut.unlisted += len(drafts) - limit
    return drafts[:limit], kind, len(entries)


def _pieces(entries: list[int], start: int, end: int) -> list[tuple[int, int]]:
    """Consecutive entries grouped into parts of at most _ROW_LIMIT lines where possible."""
    bounds = [start, *entries[1:], end]
    pieces: list[tuple[int, int]] = []
    piece_start = start
    for previous, boundary in itertools.pairwise(bounds):
        if boundary - piece_start > _ROW_LIMIT and previous > piece_start:
            pieces.append((piece_start, previous))
            piece_start = previous
    pieces.append((piece_start, end))
    return pieces


def _parsed_piece(
    lines: list[bytes], start: int, end: int, depth: int, config: OutlineConfig, cut: Cut
) -> list[Draft]:
    data = b"\n".join(lines[start:end]) + b"\n"
    yaml_format = _Yaml(data)
    documents = [d for d in treesitter.parse("yaml", data).named_children if d.type == "document"]
    content = _document_content(documents[0]) if documents else None
    if content is None or not yaml_format.describe(content)[0]:
        return []
    members, left_out = yaml_format.members(content, config)
    cut.unlisted += left_out
    drafts, piece_cut = key_tree(yaml_format, members, config, depth)
    cut.add(piece_cut)
    for draft in walk_drafts(drafts):
        draft.start_line += start
        draft.end_line += start
    return drafts


def _oversized_entry(
    lines: list[bytes], start: int, end: int, depth: int, config: OutlineConfig, cut: Cut
) -> Draft:
    """One entry longer than a part: its key from the first line, its body as a region."""
    key = _KEY_LINE.match(lines[start])
    name = key.group(1).decode("utf-8", "replace").strip("'\"") if key else "?"
    children: list[Draft] = []
    kind, count = "", 0
    if depth < config.data_depth:
        children, kind, count = _region(lines, start + 1, end, depth + 1, config, cut)
    else:
        cut.too_deep += 1
    last = _last_content_line(lines, start, end)
    return Draft("key", name, start + 1, last, _container_detail(kind, count), children)


def _container_detail(kind: str, count: int) -> str:
    if kind == "mapping":
        return f"mapping{{{plural(count, 'key')}}}"
    return f"sequence[{count:,}]" if kind == "sequence" else ""


def _content_lines(lines: list[bytes], start: int, end: int) -> list[int]:
    return [i for i in range(start, end) if lines[i].strip() and not lines[i].lstrip().startswith(b"#")]


def _last_content_line(lines: list[bytes], start: int, end: int) -> int:
    content = _content_lines(lines, max(start, end - 1), end)
    index = end - 1
    while index > start and not content:
        index -= 1
        content = _content_lines(lines, index, index + 1)
    return index + 1


def _indent(line: bytes) -> int:
    return len(line) - len(line.lstrip(b" "))
