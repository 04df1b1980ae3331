"""The searched name, the lines that define it, and which files are tests or docs.

A hit list does not say what was searched for. The name is inferred from the hits: the
identifier found (as part of a line's text) in nearly every hit, the longest of those
when several are (`socket.getaddrinfo` was searched: `getaddrinfo`, not `socket`).
Case is ignored when no spelling covers the hits on its own (`rg -i`). Without such a
name there are no definitions to put first, and the listing is still folded by file.

A definition is a line that introduces the name: `def X`, `class X`, `function X`,
`fn X`, `struct X`, `func (r T) X`, `#define X`, `typedef … X;`, `X = …`, `const X = …`,
`export … X`, a method `X(…) {`, an export list that names it (`module.exports = X`,
Perl's `our @EXPORT = qw(X …)`), and in C-like files a declarator `static int X(`. A line that
declares another name and mentions this one (`class Path(PurePath):`, a subclass or a
signature) is no definition, but ranks above plain uses.

An import brings the name in from another module: a binding to a module
(`const X = require(…)`, `X = import_module(…)`, `const { X } = require(…)`) or an import
statement (`import { X } from`, `from m import X`, `import a.b.X;`, `use a::X;`, a quoted
path alone on its line, as in Go's import blocks). It ranks between mentions and
definitions: it says where the name comes from, not what it is. Every pattern is
anchored at the line's start and has no nested unbounded repetition, so it reads a
100 KB line in one pass.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum

from tokenlab.patterns import compile_on_use

_IDENTIFIER_RE = compile_on_use(r"[A-Za-z_$][\w$]*")
# Words every hit list is full of that are never the searched name.
_NOT_NAMES = frozenset(
    "def class function return import from if else elif for while in is not and or self this "
    "const let var new true false null none True False None public private static void int "
    "str string the a an to of be it as at by on with pub fn func use mut".split()
)
NAME_COVERAGE = 0.8  # the name is found in at least this share of the hits
_SAMPLE_HITS = 400
_SCANNED_CHARS = 10_000  # identifiers are read from the start of a very long hit

_MODIFIERS = (
    r"(?:(?:export|default|pub(?:\([\w: ]*\))?|async|static|inline|public|private|protected|internal"
    r"|abstract|final|extern|declare|override|virtual|unsafe|readonly|sealed|open|local)[ \t]+)*"
)
_KEYWORDS = (
    r"(?:def|class|function\*?|fn|fun|func|struct|enum|interface|type|trait|impl|union|module|mod"
    r"|namespace|macro_rules!|defp|defmacro|defmodule|record|object|sub|proc"
    r"|typedef[ \t]+(?:struct|enum|union))"
)
_VARIABLE = r"(?:let|var|const|val|our|my)"  # a variable's declaration: a binding, as `X = …` is
_RECEIVER = r"(?:\([^)\n]*\)[ \t]*)?"  # Go's `func (r *T) X`
_AFTER_NAME = r"(?![\w$])"
# An export list: `module.exports = X`, `exports.default = X`, `our @EXPORT_OK = qw(X)`.
_EXPORT_LIST = rf"(?:{_VARIABLE}[ \t]+)?@?(?:module\.)?(?:exports?|EXPORT(?:_OK|_TAGS)?)\b"
# Assignment (not `==` or `=>`), Go's `:=`, a method or shell function `X(…) {`, `X: function`.
_ASSIGNED = r"[ \t]*(?:(?::[^=\n]*)?=(?![=>])|\([^)\n]*\)[ \t]*\{|:[ \t]*(?:async[ \t]+)?function\b)"
# A call that loads a module: `require('x')`, `import('x')`, `importlib.import_module('x')`.
_IMPORT_CALL = r"(?:require|import|__import__|(?:importlib\.)?import_module)[ \t]*\("
# A statement that imports names: `import …`, `from m import …`, `use a::…`, `#import`.
_IMPORT_STATEMENT = r"(?:import|from[ \t]+[\w.]+[ \t]+import|(?:pub(?:\([\w: ]*\))?[ \t]+)?use)"
# Words before a name that make `word X(` a call or expression, not a C declarator.
_NOT_DECLARATOR = frozenset(
    "return else case goto throw new delete await yield typeof sizeof not and or in do if while "
    "defer go assert".split()
)
_C_LIKE = frozenset("c h cc cpp cxx hpp hh hxx m mm java cs kt scala swift go rs d".split())


class Kind(IntEnum):
    """A file's place in the listing: sources first, then tests, then docs."""

    SOURCE = 0
    TEST = 1
    DOC = 2


_TEST_FOLDERS = frozenset("test tests __tests__ spec specs testing __mocks__ testdata test_data e2e".split())
# Prose, and man pages (`npm-init.1`).
_DOC_EXTENSIONS = frozenset("md markdown rst txt html htm adoc texi rdoc org 1 5 7 8".split())


def kind_of(path: str) -> Kind:
    parts = path.replace("\\", "/").split("/")
    name = parts[-1]
    stem, _, extension = name.rpartition(".")
    stem = stem or name
    if any(part.lower() in _TEST_FOLDERS for part in parts[:-1]):
        return Kind.TEST
    if (
        name.startswith("test_")
        or stem.endswith(("_test", "_tests", "_spec", "Test", "Tests", "Spec"))
        or ".test." in name
        or ".spec." in name
        or name == "conftest.py"
    ):
        return Kind.TEST
    if extension.lower() in _DOC_EXTENSIONS:  # by extension only: `docs/conf.py` is code
        return Kind.DOC
    return Kind.SOURCE


@dataclass(frozen=True)
class SearchedName:
    name: str
    ignore_case: bool

    @property
    def flags(self) -> int:
        return re.IGNORECASE if self.ignore_case else 0


def searched_name(texts: Sequence[str]) -> SearchedName | None:
    """The identifier found in nearly every hit's text, the longest if several are."""
    if len(texts) < 3:
        return None
    step = -(-len(texts) // _SAMPLE_HITS)  # at most _SAMPLE_HITS, spread over the list
    sample = [text[:_SCANNED_CHARS] for text in texts[::step]]
    seen: Counter[str] = Counter()
    for text in sample:
        seen.update(set(_IDENTIFIER_RE.findall(text)))
    candidates = [word for word, _ in seen.most_common(40) if len(word) > 1 and word not in _NOT_NAMES]
    for ignore_case in (False, True):
        texts_read = [text.casefold() for text in sample] if ignore_case else sample
        covering = [
            word
            for word in candidates
            if sum(1 for text in texts_read if (word.casefold() if ignore_case else word) in text)
            >= NAME_COVERAGE * len(sample)
        ]
        if covering:
            return SearchedName(max(covering, key=lambda word: (len(word), seen[word])), ignore_case)
    return None


class Strength(IntEnum):
    """How surely a line defines the name: a declaration keyword says so more surely than
    an assignment (`const SemVer = require(…)` binds a name `class SemVer` defines)."""

    USE = 0
    MENTION = 1  # declares another name and mentions this one: `class Path(PurePath):`
    IMPORT = 2  # brings the name in from another module: `const X = require(…)`, `use a::X;`
    BINDING = 3
    DECLARATION = 4


@dataclass(frozen=True)
class Definitions:
    """Tells the lines that define a name, in any language, from the lines that use it."""

    declaration: re.Pattern[str]
    binding: re.Pattern[str]
    declarator: re.Pattern[str]
    mention: re.Pattern[str]
    imported: re.Pattern[str]

    @classmethod
    def of(cls, searched: SearchedName) -> Definitions:
        name = re.escape(searched.name) + _AFTER_NAME
        declaration = (
            rf"[ \t]*(?:{_MODIFIERS}{_KEYWORDS}[ \t]+(?:self\.)?{_RECEIVER}{name}"
            rf"|#[ \t]*define[ \t]+{name}"
            rf"|typedef\b[^;\n]*(?<![\w$]){name}[ \t]*;"  # C's alias: `typedef struct _t X;`
            rf"|export\b.*(?<![\w$]){name}"
            rf"|{_EXPORT_LIST}.*(?<![\w$]){name})"
        )
        binding = (
            rf"[ \t]*{_MODIFIERS}(?:{_VARIABLE}[ \t]+{name}"
            rf"|(?:(?:module\.)?exports\.)?{name}{_ASSIGNED})"
        )
        declarator = rf"[ \t]*((?:[\w<>\[\].*&:~]+[ \t]+)+)[*&]*{name}[ \t]*\("
        mention = rf"[ \t]*{_MODIFIERS}{_KEYWORDS}[ \t]+[\w$.]++.*(?<![\w$]){name}"
        imported = (
            rf"[ \t]*(?:{_MODIFIERS}(?:{_VARIABLE}[ \t]+)?(?:{name}|\{{[^}}\n]*(?<![\w$]){name}[^}}\n]*\}})"
            rf"[ \t]*=[ \t]*(?:await[ \t]+)?{_IMPORT_CALL}"
            rf"|(?:{_IMPORT_STATEMENT})[ \t][^\n]*(?<![\w$]){name}"
            rf'|(?:[\w.]+[ \t]+)?"(?:[^"\n]*/)?{name}"[ \t]*$)'
        )
        patterns = (declaration, binding, declarator, mention, imported)
        return cls(*(re.compile(pattern, searched.flags) for pattern in patterns))

    def strength(self, text: str, path: str) -> Strength:
        if self.declaration.match(text) or self._declarator(text, path):
            return Strength.DECLARATION
        if self.imported.match(text):
            return Strength.IMPORT
        if self.binding.match(text):
            return Strength.BINDING
        return Strength.MENTION if self.mention.match(text) else Strength.USE

    def defines(self, text: str, path: str) -> bool:
        return self.strength(text, path) >= Strength.BINDING

    def _declarator(self, text: str, path: str) -> bool:
        """A C-like declarator, `static int X(`, not a call after `return` or `new`."""
        if path.rpartition(".")[2].lower() not in _C_LIKE:
            return False
        found = self.declarator.match(text)
        return found is not None and not _NOT_DECLARATOR.intersection(found[1].split())
