"""Code outlines from tree-sitter tag queries shipped as package data (`syntax/queries/*-tags.scm`).

Each query marks definitions with tag-style captures: `@definition.<kind>` on the node
that spans the definition, `@name` on its name, and optionally `@scope` on the name of
the type a definition belongs to when it is written outside that type (a Go method's
receiver), which makes the name `Scope.name`, and optionally `@start` on nodes before
the definition that belong to it (Rust attributes). One mapper serves every language:
- a name captured by several patterns (a decorated or exported definition) keeps the
  widest range, so decorators, `export` and `template<…>` fall inside it;
- a range ends at the last token that is not a comment, because grammars with
  indentation-based blocks attach trailing comments to the block before them;
- nesting comes from byte-range containment, and a function whose nearest enclosing
  definition is a type becomes a method.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tokenlab.reads.symbols import Draft, Outline, freeze, line_count, shorten
from tokenlab.syntax import treesitter

if TYPE_CHECKING:
    from tree_sitter import Node

# Definitions that hold methods: a function directly inside one of these is a method.
_TYPE_KINDS = frozenset(
    {"class", "interface", "struct", "trait", "impl", "enum", "record", "object", "union"}
)
_DEFINITION_PREFIX = "definition."
_HEADER_LIMIT = 120


@dataclass
class _Definition:
    kind: str
    node: Node
    start_byte: int  # where the range starts: the node, or an earlier @start capture
    start_row: int
    name: str
    header: str

    @property
    def width(self) -> int:
        return self.node.end_byte - self.start_byte


def encode_source(text: str) -> bytes:
    """UTF-8 bytes for a parser; text decoded with surrogateescape gets its bytes back."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        # A replaced character never contains "\n", so line numbers stay the same.
        return text.encode("utf-8", "replace")


def code_outline(
    language: str, grammar: str, query_name: str, text: str, ast_fallback: bool = True
) -> Outline:
    """Outline `text` with the grammar `grammar` and the query `<query_name>-tags.scm`.

    With `ast_fallback`, Python that tree-sitter misparses but Python accepts is outlined
    from `ast` (see `python_ast_outline`)."""
    data = encode_source(text)
    root = treesitter.parse(grammar, data)
    if ast_fallback and root.has_error and language == "python":
        from tokenlab.reads.python_ast_outline import FALLBACK_NOTE, ast_drafts

        drafts = ast_drafts(text)
        if drafts is not None:
            return Outline(language, freeze(drafts), line_count(text), FALLBACK_NOTE)
    definitions = _definitions(treesitter.tags_query(grammar, query_name), root, data)
    note = "syntax errors in the file: ranges near them may be off" if root.has_error else ""
    return Outline(language, freeze(_nest(definitions, data)), line_count(text), note)


def _definitions(query: object, root: Node, data: bytes) -> list[_Definition]:
    by_name: dict[tuple[int, int], _Definition] = {}
    for captures in treesitter.run_query(query, root):  # type: ignore[arg-type]
        names = captures.get("name")
        found = _definition_capture(captures)
        if not names or found is None:
            continue
        kind, node = found
        first = min((node, *captures.get("start", ())), key=lambda n: n.start_byte)
        name_node = names[0]
        key = (name_node.start_byte, name_node.end_byte)
        known = by_name.get(key)
        if known is None or node.end_byte - first.start_byte > known.width:
            name = _text(data, name_node)
            scope = captures.get("scope")
            if scope:  # a definition made outside its type, e.g. a Go method: `Type.method`
                name = f"{_text(data, scope[0])}.{name}"
            header = _header(data, name_node)
            by_name[key] = _Definition(kind, node, first.start_byte, first.start_point[0], name, header)
    return list(by_name.values())


def _definition_capture(captures: treesitter.Captures) -> tuple[str, Node] | None:
    for capture, nodes in captures.items():
        if capture.startswith(_DEFINITION_PREFIX) and nodes:
            return capture[len(_DEFINITION_PREFIX) :], nodes[0]
    return None


def _text(data: bytes, node: Node) -> str:
    """A node's source text on one line (names may span lines in odd code)."""
    return " ".join(data[node.start_byte : node.end_byte].decode("utf-8", "replace").split())


def _header(data: bytes, name_node: Node) -> str:
    """The source line holding the definition's name: a short signature for the detail.

    On a long line only the text near the name is read: a minified file is one line of
    megabytes with thousands of definitions on it, each of which should show its own text
    (and reading the whole line for each would be quadratic).
    """
    at = name_node.start_byte
    window = 4 * _HEADER_LIMIT
    start = data.rfind(b"\n", max(0, at - window), at) + 1
    if start == 0 and at > window:  # no line start near: begin a little before the name
        start = at - _HEADER_LIMIT // 3
    end = data.find(b"\n", at, at + window)
    line = data[start : end if end >= 0 else min(len(data), at + window)]
    return shorten(line.decode("utf-8", "replace"), _HEADER_LIMIT)


def _nest(definitions: list[_Definition], data: bytes) -> list[Draft]:
    """Build the tree by containment of byte ranges; returns the top-level drafts."""
    definitions.sort(key=lambda d: (d.start_byte, -d.node.end_byte))
    top: list[Draft] = []
    open_stack: list[tuple[int, Draft]] = []  # (end byte, draft) of definitions still open
    for definition in definitions:
        node = definition.node
        while open_stack and open_stack[-1][0] <= definition.start_byte:
            open_stack.pop()
        parent = open_stack[-1][1] if open_stack else None
        kind = definition.kind
        if kind == "function" and parent is not None and parent.kind in _TYPE_KINDS:
            kind = "method"
        draft = Draft(
            kind=kind,
            name=definition.name,
            start_line=definition.start_row + 1,
            end_line=treesitter.last_content_line(node, data),
            detail=definition.header,
        )
        (parent.children if parent is not None else top).append(draft)
        open_stack.append((node.end_byte, draft))
    return top
