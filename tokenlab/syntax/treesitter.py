"""The only module that talks to py-tree-sitter and the bundled grammars.

Imported lazily (only when a code or data outline is requested), because loading
tree-sitter and a grammar costs start-up time that plain reads should not pay.
py-tree-sitter has changed its query API across releases (0.22 ran queries on the
`Query`; 0.23+ needs a `QueryCursor`); `run_query` hides that.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

import tree_sitter
from tree_sitter_language_pack import get_language

if TYPE_CHECKING:
    from tree_sitter import Language, Node, Query

Captures = dict[str, list["Node"]]


@cache
def language(name: str) -> Language:
    return get_language(name)  # type: ignore[arg-type]


def parse(language_name: str, data: bytes) -> Node:
    """Parse `data` and return the root node; tree-sitter always returns a tree, errors included.

    A new parser per call: parsers are not safe to share between threads (the server
    may run reads concurrently), and creating one is cheap next to parsing.
    """
    parser = tree_sitter.Parser(language(language_name))
    return parser.parse(data).root_node


@cache
def tags_query(language_name: str, query_name: str) -> Query:
    """The `queries/<query_name>-tags.scm` file shipped with the package, compiled once."""
    source = (
        resources.files("tokenlab.syntax")
        .joinpath("queries", f"{query_name}-tags.scm")
        .read_text(encoding="utf-8")
    )
    lang: Any = language(language_name)
    if hasattr(tree_sitter, "QueryCursor"):
        return tree_sitter.Query(lang, source)
    query: Query = lang.query(source)  # py-tree-sitter < 0.23
    return query


def run_query(query: Query, node: Node) -> list[Captures]:
    """The captures of every match of `query` under `node`, one dict per match."""
    cursor_type: Any = getattr(tree_sitter, "QueryCursor", None)
    runner: Any = cursor_type(query) if cursor_type is not None else query
    return [captures for _pattern, captures in runner.matches(node)]


def has_query(query_name: str) -> bool:
    return resources.files("tokenlab.syntax").joinpath("queries", f"{query_name}-tags.scm").is_file()


def last_content_line(node: Node, data: bytes) -> int:
    """The 1-based line of the last token of `node` that is not a comment.

    Grammars attach comments that follow a block (Python, YAML, TOML) to that block;
    a definition or section should end with its last real token, as `ast` ends it.
    Children are reached by index from the end: a node may have a million of them.
    """
    current = node
    while current.child_count:
        index = current.child_count - 1
        child = current.child(index)
        if child is None or data[child.end_byte : current.end_byte].strip():
            break  # the node's own text runs past its children (a YAML block scalar)
        while child is not None and _is_trailing_noise(child) and index > 0:
            index -= 1
            child = current.child(index)
        if child is None or _is_trailing_noise(child):
            break
        current = child
    row, column = current.end_point
    if column == 0 and row > node.start_point[0]:
        row -= 1  # the token ends with its line's "\n": it ends on the line before
    return int(row) + 1


def _is_trailing_noise(node: Node) -> bool:
    return node.end_byte == node.start_byte or "comment" in node.type
