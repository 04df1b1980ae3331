"""What the packer knows about one file's content, computed once per content and cached.

`FileFacts` holds the outline (tree-sitter tags for code; the reads layer's outliners for
everything else), the terms BM25 ranks by, the identifiers the file mentions (its
references) and the names it defines. They depend only on the bytes and the language,
so they are cached under the store folder keyed by a content hash:

    <store>/pack-cache/v2/<key[:2]>/<key>.json,   key = sha256("v2\\0" + language + "\\0" + bytes)

Changing what a facts file holds means a new version folder (`v3`); old ones are simply
never read again. A cache file that does not parse is recomputed and rewritten. Writes go
to a temporary file renamed into place, so a reader never sees half a file. Cache misses
are parsed in worker processes when there are many of them (tree-sitter parsing is the
cost of a first pack).
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import threading
from collections import Counter, OrderedDict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import orjson

from tokenlab.reads.languages import detect_language
from tokenlab.reads.symbols import Symbol, walk

CACHE_VERSION = "v2"
MAX_COUNTED_BYTES = 32 << 10  # whole-file token counts cached up to this size; larger files
# rarely fit a budget whole, and are counted when a pack offers them in full
MAX_TERMS = 4000  # distinct text terms kept per file: the most frequent ones
_PARALLEL_MIN = 48  # cache misses before worker processes pay off
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")
_WORD_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


@dataclass(frozen=True)
class FileFacts:
    """The outline, terms, references and definitions of one file's content.

    The outline is kept in its JSON form and turned into `Symbol`s only when asked for:
    a pack ranks thousands of files but builds views for a few hundred."""

    language: str
    outline_data: list[Any]
    note: str
    line_count: int
    terms: dict[str, int]  # text terms (identifiers and their parts) and their counts
    name_terms: dict[str, int]  # the same, over the names the file defines
    mentions: frozenset[str]
    defines: tuple[str, ...]
    tokens: int  # o200k_base tokens of the whole text; -1 when over `MAX_COUNTED_BYTES`

    @cached_property
    def symbols(self) -> tuple[Symbol, ...]:
        return tuple(_symbol_from(entry) for entry in self.outline_data)

    @cached_property
    def length(self) -> float:
        """The BM25 length of the file's text and names (the path is added by the ranker)."""
        return float(sum(self.terms.values()) + 2 * sum(self.name_terms.values()))


def split_terms(word: str) -> list[str]:
    """`getUserName` -> get, user, name, getusername; `snake_case` -> snake, case, snake_case."""
    parts = [part.lower() for part in _WORD_PARTS.findall(word)]
    whole = word.lower().strip("_$")
    if whole and whole not in parts:
        parts.append(whole)
    return parts


def text_terms(text: str) -> Counter[str]:
    """Term counts of a text: every identifier-like word and its parts."""
    counts: Counter[str] = Counter()
    for word, count in Counter(_IDENTIFIER.findall(text)).items():
        for term in split_terms(word):
            counts[term] += count
    return counts


def compute_facts(path: str, data: bytes) -> FileFacts:
    """Facts of `data` read as the file `path` names (never raises on odd input)."""
    from tokenlab.reads.outline import outline

    text = data.decode("utf-8", errors="replace")
    found = outline(path, text)
    words = Counter(_IDENTIFIER.findall(text))
    terms = text_terms(text)
    if len(terms) > MAX_TERMS:
        terms = Counter(dict(terms.most_common(MAX_TERMS)))
    defines = tuple(
        dict.fromkeys(_bare(symbol.name) for symbol in walk(found.symbols) if symbol.kind != "chunk")
    )
    name_terms: Counter[str] = Counter()
    for name in defines:
        name_terms.update(split_terms(name))
    return FileFacts(
        language=found.language,
        outline_data=[_symbol_json(symbol) for symbol in found.symbols],
        note=found.note,
        line_count=found.line_count,
        terms=dict(terms),
        name_terms=dict(name_terms),
        mentions=frozenset(word for word in words if len(word) > 2),
        defines=tuple(name for name in defines if name),
        tokens=count_tokens(text) if len(data) <= MAX_COUNTED_BYTES else -1,
    )


def count_tokens(text: str) -> int:
    from tokenlab.counting import tokens

    return tokens.count(text)


def _bare(name: str) -> str:
    words = _IDENTIFIER.findall(name)
    return words[-1] if words else ""


# --- the cache ------------------------------------------------------------------------------


def cache_key(language: str, data: bytes) -> str:
    digest = hashlib.sha256(f"{CACHE_VERSION}\0{language}\0".encode())
    digest.update(data)
    return digest.hexdigest()


class FactsCache:
    """Facts files under `<folder>/pack-cache/<version>`; `folder=None` keeps nothing."""

    def __init__(self, folder: Path | None) -> None:
        self.base = folder / "pack-cache" / CACHE_VERSION if folder is not None else None
        self.hits = 0
        self.misses = 0

    def _file(self, key: str) -> Path | None:
        return self.base / key[:2] / f"{key}.json" if self.base is not None else None

    def load(self, key: str) -> FileFacts | None:
        remembered = _remembered(key)
        if remembered is not None:
            return remembered
        file = self._file(key)
        if file is None:
            return None
        try:
            facts = _from_json(orjson.loads(file.read_bytes()))
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            return None
        _remember(key, facts)
        return facts

    def save(self, key: str, facts: FileFacts) -> None:
        file = self._file(key)
        if file is not None:
            _remember(key, facts)
        if file is None:
            return
        try:
            payload = orjson.dumps(_to_json(facts))
        except orjson.JSONEncodeError:  # definitions nested past orjson's depth limit
            return  # kept in memory only: the next process parses the file again
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=file.parent, prefix=".tmp-")
            with os.fdopen(handle, "wb") as out:
                out.write(payload)
            os.replace(temporary, file)
        except OSError:
            return  # a cache that cannot be written only costs time

    def facts(self, items: Sequence[tuple[str, bytes]]) -> list[FileFacts]:
        """Facts for each (path, data), from the cache or computed (in parallel when many)."""
        keys = [cache_key(detect_language(path, _head_text(data)), data) for path, data in items]
        found: list[FileFacts | None] = [self.load(key) for key in keys]
        missing = [index for index, facts in enumerate(found) if facts is None]
        self.hits += len(items) - len(missing)
        self.misses += len(missing)
        for index, facts in zip(missing, _compute_many([items[i] for i in missing]), strict=True):
            found[index] = facts
            self.save(keys[index], facts)
        return [facts for facts in found if facts is not None]


# Facts read or computed in this process, by key: a server or MCP process packs the same
# tree again and again, and parsing thousands of cache files is most of a warm pack's time.
_MEMORY: OrderedDict[str, FileFacts] = OrderedDict()
_MEMORY_LOCK = threading.Lock()
MEMORY_ENTRIES = 50_000


def _remembered(key: str) -> FileFacts | None:
    with _MEMORY_LOCK:
        facts = _MEMORY.get(key)
        if facts is not None:
            _MEMORY.move_to_end(key)
        return facts


def _remember(key: str, facts: FileFacts) -> None:
    with _MEMORY_LOCK:
        _MEMORY[key] = facts
        while len(_MEMORY) > MEMORY_ENTRIES:
            _MEMORY.popitem(last=False)


def _head_text(data: bytes) -> str:
    """Enough of the text for language detection (name, shebang, a C++ header hint)."""
    return data[:200_000].decode("utf-8", errors="replace")


def _compute_one(item: tuple[str, bytes]) -> FileFacts:
    return compute_facts(*item)


def _compute_many(items: list[tuple[str, bytes]]) -> list[FileFacts]:
    workers = min(os.cpu_count() or 1, 8)
    if len(items) < _PARALLEL_MIN or workers < 2:
        return [_compute_one(item) for item in items]
    try:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(_compute_one, items, chunksize=16))
    except (OSError, RuntimeError):  # no processes allowed here: parse in this one
        return [_compute_one(item) for item in items]


def _symbol_json(symbol: Symbol) -> list[Any]:
    return [symbol.kind, symbol.name, symbol.start_line, symbol.end_line, symbol.detail,
            [_symbol_json(child) for child in symbol.children]]  # fmt: skip


def _symbol_from(entry: list[Any]) -> Symbol:
    kind, name, start, end, detail, children = entry
    return Symbol(
        str(kind), str(name), int(start), int(end), tuple(_symbol_from(c) for c in children), str(detail)
    )


def _to_json(facts: FileFacts) -> dict[str, Any]:
    return {
        "language": facts.language,
        "symbols": facts.outline_data,
        "note": facts.note,
        "line_count": facts.line_count,
        "terms": facts.terms,
        "name_terms": facts.name_terms,
        "mentions": sorted(facts.mentions),
        "defines": list(facts.defines),
        "tokens": facts.tokens,
    }


def _from_json(payload: dict[str, Any]) -> FileFacts:
    return FileFacts(
        language=str(payload["language"]),
        outline_data=list(payload["symbols"]),
        note=str(payload["note"]),
        line_count=int(payload["line_count"]),
        terms=dict(payload["terms"]),
        name_terms=dict(payload["name_terms"]),
        mentions=frozenset(payload["mentions"]),
        defines=tuple(payload["defines"]),
        tokens=int(payload["tokens"]),
    )
