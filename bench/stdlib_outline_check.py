"""Check Python outlines against the standard `ast` module on every file of the stdlib.

For each `.py` file under this interpreter's stdlib folder that `ast` can parse, the
outline's classes, functions and methods must equal ast's: same kind, name, start line
(the first decorator's line for a decorated definition), end line (`end_lineno`) and
nesting (the chain of enclosing definitions). Prints a summary and every mismatch.

    .venv/bin/python bench/stdlib_outline_check.py [--limit N] [--show N] [ROOT]
"""

from __future__ import annotations

import argparse
import ast
import io
import sys
import sysconfig
import time
import tokenize
import warnings
from pathlib import Path

from tokenlab.reads.code_outline import code_outline
from tokenlab.reads.outline import Symbol, outline
from tokenlab.reads.python_ast_outline import FALLBACK_NOTE

# (kind, path of names from the top, start line, end line)
Entry = tuple[str, tuple[str, ...], int, int]
_CODE_KINDS = {"class", "function", "method"}


def ast_entries(tree: ast.AST) -> list[Entry]:
    """Definitions in document order, as ast-based tooling reports them."""
    entries: list[Entry] = []
    # (node, names of the enclosing definitions, whether the nearest one is a class)
    pending: list[tuple[ast.AST, tuple[str, ...], bool]] = [(tree, (), False)]
    while pending:
        node, path, in_class = pending.pop()
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            is_class = isinstance(node, ast.ClassDef)
            kind = "class" if is_class else ("method" if in_class else "function")
            start = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            path = (*path, node.name)
            entries.append((kind, path, start, node.end_lineno or node.lineno))
            in_class = is_class
        pending.extend((child, path, in_class) for child in reversed(list(ast.iter_child_nodes(node))))
    return entries


def outline_entries(symbols: tuple[Symbol, ...]) -> list[Entry]:
    entries: list[Entry] = []
    pending: list[tuple[Symbol, tuple[str, ...]]] = [(s, ()) for s in reversed(symbols)]
    while pending:
        symbol, prefix = pending.pop()
        if symbol.kind not in _CODE_KINDS:
            continue
        path = (*prefix, symbol.name)
        entries.append((symbol.kind, path, symbol.start_line, symbol.end_line))
        pending.extend((child, path) for child in reversed(symbol.children))
    return entries


def compare(source: str, path: str) -> tuple[list[str], str, int] | None:
    """Differences between ast and the outline for one file, and the fallback used: "" when
    tree-sitter's outline was used, "needed" or "unneeded" when the outline fell back to
    ast (tree-sitter reported errors) and tree-sitter's alone would or would not have
    differed, and how many definitions ast reports. None when ast cannot parse the file."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            return None
    expected = ast_entries(tree)
    result = outline(path, source)
    actual = outline_entries(result.symbols)
    missing = [e for e in expected if e not in actual]
    extra = [a for a in actual if a not in expected]
    differences = [f"ast only: {_show(e)}" for e in missing] + [f"outline only: {_show(a)}" for a in extra]
    if not differences and expected != actual:
        differences = ["same definitions in a different order or nesting"]
    if result.note != FALLBACK_NOTE:
        return differences, "", len(expected)
    alone = code_outline("python", "python", "python", source, ast_fallback=False)
    fallback = "unneeded" if outline_entries(alone.symbols) == expected else "needed"
    return differences, fallback, len(expected)


def _show(entry: Entry) -> str:
    kind, path, start, end = entry
    return f"{kind} {'.'.join(path)} L{start}-L{end}"


def read_source(file: Path) -> str | None:
    """The file's text in its declared encoding (PEP 263), line endings untouched."""
    try:
        data = file.read_bytes()
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
        return None


def python_files(root: Path, site_packages: bool) -> list[Path]:
    return sorted(f for f in root.rglob("*.py") if site_packages or "site-packages" not in f.parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("root", nargs="?", default=sysconfig.get_paths()["stdlib"])
    parser.add_argument("--limit", type=int, default=0, help="check only the N largest files")
    parser.add_argument("--show", type=int, default=50, help="mismatching files listed in full")
    parser.add_argument("--site-packages", action="store_true", help="include site-packages")
    args = parser.parse_args()
    files = python_files(Path(args.root), args.site_packages)
    if args.limit:
        files = sorted(files, key=lambda f: f.stat().st_size, reverse=True)[: args.limit]
    checked = matching = skipped = definitions = 0
    fallbacks: list[tuple[Path, str]] = []
    mismatched: list[tuple[Path, list[str]]] = []
    started = time.perf_counter()
    for file in files:
        source = read_source(file)
        compared = compare(source, str(file)) if source is not None else None
        if compared is None:
            skipped += 1
            continue
        differences, fallback, count = compared
        checked += 1
        definitions += count
        if fallback:
            fallbacks.append((file, fallback))
        if differences:
            mismatched.append((file, differences))
        else:
            matching += 1
    elapsed = time.perf_counter() - started
    print(
        f"folder: {args.root}"
        + (" (with site-packages)" if args.site_packages else " (without site-packages)")
    )
    print(f"files checked: {checked} (skipped {skipped}: ast cannot parse them)")
    print(f"files matching ast exactly: {matching}/{checked} ({100 * matching / max(checked, 1):.2f}%)")
    print(f"definitions compared (kind, name, start, end, nesting): {definitions:,}")
    needed = sum(1 for _, fallback in fallbacks if fallback == "needed")
    print(f"outlined from ast (tree-sitter reported errors): {len(fallbacks)}, needed for {needed}")
    print(f"tree-sitter alone would match: {checked - needed}/{checked} files")
    for file, fallback in fallbacks:
        print(f"    ast fallback ({fallback}): {file}")
    print(f"time: {elapsed:.1f}s (ast and outline both)")
    for file, differences in mismatched[: args.show]:
        print(f"MISMATCH {file}")
        for line in differences[:20]:
            print(f"    {line}")
    return 0 if not mismatched else 1


if __name__ == "__main__":
    sys.exit(main())
