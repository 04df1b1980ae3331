"""Deterministic outlines of files (no model): the public entry of the outline layer.

`outline(path, text)` picks an outliner from the file's name (and shebang), and always
returns an `Outline`, never raises: code goes through tree-sitter tag queries, Markdown
through a heading scanner, JSON/YAML/TOML through a key tree, CSV/TSV through the csv
module, and anything else becomes fixed-size line chunks whose note says why.
`render_outline` is the compact text of the "outline" view; `find_section` resolves a
section name (`Intro/Renewal`, `Class.method`, `a.b.c`) to its symbol.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tokenlab.reads.languages import CODE_LANGUAGES, detect_language
from tokenlab.reads.symbols import Draft, Outline, OutlineConfig, Symbol, freeze, line_count, shorten, walk

__all__ = ["Outline", "OutlineConfig", "Symbol", "find_section", "outline", "render_outline"]

# Symbols whose detail is a signature line: the outline view shows kind and name only.
_CODE_KINDS = frozenset(
    {"class", "function", "method", "interface", "struct", "trait", "impl", "enum", "record",
     "object", "union", "module", "namespace", "type", "macro", "constant"}
)  # fmt: skip
# Data symbols are the bulk of a data outline: their kind word is left out to save tokens.
_UNLABELLED_KINDS = frozenset({"key", "item"})
_SEGMENT_SPLIT = re.compile(r"::|[./]|(?=\[)")


DEFAULT_CONFIG = OutlineConfig()


def outline(path: str, text: str, config: OutlineConfig = DEFAULT_CONFIG) -> Outline:
    """The outline of `text`, read as the file `path` names; never raises on odd input."""
    language = detect_language(path, text)
    if language in CODE_LANGUAGES:
        return _code(language, text, config)
    outliner = _OUTLINERS.get(language)
    if outliner is None:
        return chunk_outline(text, "text", config)
    return outliner(text, config)


def _code(language: str, text: str, config: OutlineConfig) -> Outline:
    from tokenlab.reads.code_outline import code_outline

    grammar, query_name = CODE_LANGUAGES[language]
    try:
        result = code_outline(language, grammar, query_name, text)
    except (ImportError, LookupError, OSError, ValueError) as error:
        return chunk_outline(text, language, config, note=f"no {language} grammar ({error}): line chunks")
    if result.symbols or not text.strip():
        return result
    return chunk_outline(text, language, config, note="no definitions found: line chunks")


def _markdown(text: str, config: OutlineConfig) -> Outline:
    from tokenlab.reads.markdown_outline import markdown_outline

    result = markdown_outline(text)
    if result.symbols or not text.strip():
        return result
    return chunk_outline(text, "markdown", config, note="no headings: line chunks")


def _json(text: str, config: OutlineConfig) -> Outline:
    from tokenlab.reads.data_outline import json_outline

    return _data(json_outline, "json", text, config)


def _yaml(text: str, config: OutlineConfig) -> Outline:
    from tokenlab.reads.yaml_outline import yaml_outline

    return _data(yaml_outline, "yaml", text, config)


def _toml(text: str, config: OutlineConfig) -> Outline:
    from tokenlab.reads.toml_outline import toml_outline

    return _data(toml_outline, "toml", text, config)


def _csv(text: str, config: OutlineConfig) -> Outline:
    from tokenlab.reads.table_outline import table_outline

    return _data(lambda text, config: table_outline(text, "csv", config), "csv", text, config)


def _tsv(text: str, config: OutlineConfig) -> Outline:
    from tokenlab.reads.table_outline import table_outline

    return _data(lambda text, config: table_outline(text, "tsv", config), "tsv", text, config)


def _data(
    outliner: Callable[[str, OutlineConfig], Outline], language: str, text: str, config: OutlineConfig
) -> Outline:
    """A data outline, or line chunks when the parser is missing or found no keys at all."""
    try:
        result = outliner(text, config)
    except (ImportError, LookupError, OSError, ValueError) as error:
        return chunk_outline(text, language, config, note=f"no {language} grammar ({error}): line chunks")
    if result.symbols or not text.strip():
        return result
    return chunk_outline(text, language, config, note="; ".join(filter(None, [result.note, "line chunks"])))


_OUTLINERS: dict[str, Callable[[str, OutlineConfig], Outline]] = {
    "markdown": _markdown,
    "json": _json,
    "yaml": _yaml,
    "toml": _toml,
    "csv": _csv,
    "tsv": _tsv,
}


def chunk_outline(
    text: str, language: str, config: OutlineConfig = DEFAULT_CONFIG, note: str = ""
) -> Outline:
    """Fixed-size line chunks, each named by its number, its detail the first non-blank line."""
    total = line_count(text)
    lines = text.split("\n", total)[:total] if total else []
    size = max(1, config.chunk_lines)
    drafts = []
    for number, start in enumerate(range(0, total, size), start=1):
        first = next((line for line in lines[start : start + size] if line.strip()), "")
        drafts.append(Draft("chunk", str(number), start + 1, min(start + size, total), shorten(first)))
    return Outline(language=language, symbols=freeze(drafts), line_count=total, note=note)


def render_outline(outline: Outline, max_depth: int | None = None) -> str:
    """One symbol per line, indented by depth, with line ranges; `max_depth=1` is top level only.

    A symbol whose children are cut by `max_depth` says how many it hides (`[+5]`), and
    the outline's note, if any, is the last line.
    """
    rendered: list[str] = []
    pending = [(symbol, 0) for symbol in reversed(outline.symbols)]
    while pending:
        symbol, depth = pending.pop()
        line = "  " * depth + _label(symbol)
        if max_depth is not None and depth + 1 >= max_depth:
            hidden = len(walk(symbol.children))
            line += f" [+{hidden}]" if hidden else ""
        else:
            pending.extend((child, depth + 1) for child in reversed(symbol.children))
        rendered.append(line)
    if outline.note:
        rendered.append(f"note: {outline.note}")
    return "\n".join(rendered) + "\n" if rendered else ""


def _label(symbol: Symbol) -> str:
    lines = (
        f"L{symbol.start_line}"
        if symbol.start_line == symbol.end_line
        else f"L{symbol.start_line}-L{symbol.end_line}"
    )
    if symbol.kind == "heading":
        return f"{symbol.detail or '#'} {symbol.name} ({lines})"
    head = symbol.name if symbol.kind in _UNLABELLED_KINDS else f"{symbol.kind} {symbol.name}"
    if symbol.detail and symbol.kind not in _CODE_KINDS:
        return f"{head} ({lines}): {symbol.detail}"
    return f"{head} ({lines})"


def find_section(outline: Outline, name: str) -> Symbol | None:
    """The symbol `name` designates, or None.

    `name` is a bare name or title, or a path of names separated by `/`, `.` or `::`
    (`Intro/Renewal`, `Class.method`, `tool.ruff.lint`, `items[0].id`). Preference, first
    exact then ignoring case: the whole path from the top, then the bare name, then a
    path ending at the symbol; ties go to the first in the file.
    """
    query = name.strip()
    if outline.language == "markdown":
        query = query.lstrip("#").strip() or query
    if not query:
        return None
    paths = _symbol_paths(outline.symbols)
    for fold in (False, True):
        wanted = _segments(query, fold)
        bare = query.casefold() if fold else query
        for rule in ("path", "name", "suffix"):
            for symbol, path in paths:
                if _matches(
                    rule, _fold(path, fold), symbol.name.casefold() if fold else symbol.name, wanted, bare
                ):
                    return symbol
    return None


def _matches(rule: str, path: tuple[str, ...], name: str, wanted: tuple[str, ...], bare: str) -> bool:
    if rule == "path":
        return path == wanted
    if rule == "name":
        return name == bare
    return path[-len(wanted) :] == wanted


def _symbol_paths(symbols: tuple[Symbol, ...]) -> list[tuple[Symbol, tuple[str, ...]]]:
    found: list[tuple[Symbol, tuple[str, ...]]] = []
    pending: list[tuple[Symbol, tuple[str, ...]]] = [(symbol, ()) for symbol in reversed(symbols)]
    while pending:
        symbol, prefix = pending.pop()
        path = prefix + _segments(symbol.name, False)
        found.append((symbol, path))
        pending.extend((child, path) for child in reversed(symbol.children))
    return found


def _segments(name: str, fold: bool) -> tuple[str, ...]:
    """A name split at path separators, `3` written `[3]`, so `a[3].b` equals `a.3.b`."""
    parts = []
    for part in _SEGMENT_SPLIT.split(name):
        part = part.strip()
        if part:
            parts.append(f"[{part}]" if part.isdigit() else part)
    return _fold(tuple(parts), fold)


def _fold(path: tuple[str, ...], fold: bool) -> tuple[str, ...]:
    return tuple(part.casefold() for part in path) if fold else path
