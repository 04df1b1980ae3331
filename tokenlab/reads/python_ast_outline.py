"""A Python outline from the standard `ast` module, used only when tree-sitter stumbles.

tree-sitter-python's indentation scanner misreads some code that Python accepts (a
continuation line inside brackets indented less than its block, as in CPython's own
`test_compile.py`); the tree then loses every definition after that point. When the
tree reports errors and `ast` parses the file, `ast` gives the outline instead, with the
same conventions: a decorated definition starts at its first decorator.
"""

from __future__ import annotations

import ast
import warnings

from tokenlab.reads.symbols import Draft, shorten

_DEFINITIONS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
FALLBACK_NOTE = "tree-sitter misread code that Python accepts: outline from Python's ast"


def ast_drafts(text: str) -> list[Draft] | None:
    """Top-level drafts of `text`, or None when this interpreter cannot parse it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes is not our concern
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
    lines = text.split("\n")
    top: list[Draft] = []
    pending: list[tuple[ast.AST, list[Draft], bool]] = [(tree, top, False)]
    while pending:
        node, siblings, in_class = pending.pop()
        if isinstance(node, _DEFINITIONS):
            is_class = isinstance(node, ast.ClassDef)
            draft = Draft(
                kind="class" if is_class else ("method" if in_class else "function"),
                name=node.name,
                start_line=node.decorator_list[0].lineno if node.decorator_list else node.lineno,
                end_line=node.end_lineno or node.lineno,
                detail=shorten(lines[node.lineno - 1], 120) if node.lineno <= len(lines) else "",
            )
            siblings.append(draft)
            siblings, in_class = draft.children, is_class
        pending.extend((child, siblings, in_class) for child in reversed(list(ast.iter_child_nodes(node))))
    return top
