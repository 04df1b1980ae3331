"""Codex's exec-policy rules (`*.rules` files): which command prefixes are allowed, asked about or forbidden.

Codex loads every `rules/*.rules` file of each config layer (`/etc/codex`, `$CODEX_HOME`,
the project's `.codex/` folders) and matches each simple command of a shell line against
their `prefix_rule(pattern=[…], decision="…")` entries. A pattern is a list of argv words,
each a string or a list of alternative strings; the first word is compared with the
program as typed. When several rules match, the most restrictive decision wins.

The files are Starlark. Only the subset Codex documents is read here: calls of
`prefix_rule`, `network_rule` and `host_executable` at the top level, with literal
arguments. Anything else (a variable, a loop, a `def`, an unknown function, an unknown
decision) makes the file unreadable, and the hook then rewrites nothing: guessing what a
program computes could miss a `forbidden` rule.

The reading is asymmetric, as for Claude Code's settings: `forbidden` and `prompt` rules
are taken from every file Codex might load, and also match the program's base name, since
matching too much only costs a rewrite; `allow` rules only from the layers Codex always
loads (system and user), matched exactly as Codex does.
"""

from __future__ import annotations

import ast
import os
import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

SYSTEM_DIR = Path("/etc/codex")
# `prefix_rule`'s parameters in order, for positional arguments.
PREFIX_RULE_PARAMETERS = ("pattern", "decision", "match", "not_match", "justification")
KNOWN_CALLS = frozenset({"prefix_rule", "network_rule", "host_executable"})


class Decision(str, Enum):
    ALLOW = "allow"
    PROMPT = "prompt"
    FORBIDDEN = "forbidden"


class Unreadable(Exception):
    """A rules file this module cannot read with certainty."""


@dataclass(frozen=True)
class PrefixRule:
    pattern: tuple[tuple[str, ...], ...]  # each word's alternatives
    decision: Decision

    def matches(self, argv: Sequence[str], *, loose: bool = False) -> bool:
        """Whether `argv` starts with the pattern; `loose` compares programs by base name
        (Codex may resolve one to the other through `host_executable` and PATH)."""
        if len(argv) < len(self.pattern):
            return False
        if loose:
            if posixpath.basename(argv[0]) not in {posixpath.basename(p) for p in self.pattern[0]}:
                return False
        elif argv[0] not in self.pattern[0]:
            return False
        return all(word in options for word, options in zip(argv[1:], self.pattern[1:], strict=False))


@dataclass(frozen=True)
class CodexRules:
    restrictive: tuple[PrefixRule, ...]  # forbidden and prompt, from every file
    allow: tuple[PrefixRule, ...]  # from the layers Codex always loads

    def restricts(self, argv: Sequence[str]) -> bool:
        return any(rule.matches(argv, loose=True) for rule in self.restrictive)

    def allows(self, argv: Sequence[str]) -> bool:
        return any(rule.matches(argv) for rule in self.allow)


def parse_rules(text: str) -> list[PrefixRule]:
    """The prefix rules of one rules file. Raises `Unreadable` for anything outside the subset."""
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError) as error:
        raise Unreadable(str(error)) from None
    rules = []
    for statement in module.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
            raise Unreadable("only calls of the rule functions are read")
        if call.func.id not in KNOWN_CALLS:
            raise Unreadable(f"unknown function {call.func.id}")
        arguments = _literal_arguments(call)
        if call.func.id == "prefix_rule":
            rules.append(_prefix_rule(call, arguments))
    return rules


def _literal_arguments(call: ast.Call) -> list[object]:
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(kw.arg is None for kw in call.keywords):
        raise Unreadable("unpacked arguments")
    try:
        return [ast.literal_eval(node) for node in (*call.args, *(kw.value for kw in call.keywords))]
    except ValueError:
        raise Unreadable("an argument that is not a literal") from None


def _prefix_rule(call: ast.Call, values: list[object]) -> PrefixRule:
    if len(call.args) > len(PREFIX_RULE_PARAMETERS):
        raise Unreadable("too many arguments")
    named = dict(zip(PREFIX_RULE_PARAMETERS, values[: len(call.args)], strict=False))
    for keyword, value in zip(call.keywords, values[len(call.args) :], strict=True):
        if keyword.arg in named:
            raise Unreadable(f"{keyword.arg} given twice")
        named[str(keyword.arg)] = value
    decision = named.get("decision", Decision.ALLOW.value)
    if decision not in {d.value for d in Decision}:
        raise Unreadable(f"unknown decision {decision!r}")
    pattern = named.get("pattern")
    if not isinstance(pattern, list) or not pattern:
        raise Unreadable("pattern must be a non-empty list")
    words = []
    for word in pattern:
        options = word if isinstance(word, list) else [word]
        if not options or not all(isinstance(option, str) for option in options):
            raise Unreadable("a pattern word must be a string or a non-empty list of strings")
        words.append(tuple(options))
    return PrefixRule(tuple(words), Decision(str(decision)))


def codex_home(env: Mapping[str, str]) -> Path:
    """Codex's user folder: `$CODEX_HOME`, else `~/.codex`."""
    configured = env.get("CODEX_HOME")
    return Path(configured).expanduser() if configured else Path.home() / ".codex"


def rule_files(folder: Path) -> list[Path]:
    """The `*.rules` files of one config layer, in name order."""
    rules = folder / "rules"
    try:
        return sorted(path for path in rules.iterdir() if path.name.endswith(".rules"))
    except FileNotFoundError:
        return []
    except OSError as error:
        raise Unreadable(f"{rules}: {error.strerror}") from None


def load_rules(cwd: Path, env: Mapping[str, str]) -> CodexRules:
    """The rules that apply to a command run in `cwd` (see the module doc). Raises
    `Unreadable` when any of those files cannot be read."""
    sure = [SYSTEM_DIR, codex_home(env)]
    maybe = [Path.home() / ".codex", *(folder / ".codex" for folder in (cwd, *cwd.parents))]
    restrictive: list[PrefixRule] = []
    allow: list[PrefixRule] = []
    seen: set[str] = set()
    for folder, trusted in [(f, True) for f in sure] + [(f, False) for f in maybe]:
        for path in rule_files(folder):
            key = os.path.realpath(path)
            if key in seen:
                continue
            seen.add(key)
            for rule in _read(path):
                if rule.decision is Decision.ALLOW:
                    allow.extend([rule] if trusted else [])
                else:
                    restrictive.append(rule)
    return CodexRules(tuple(restrictive), tuple(allow))


def _read(path: Path) -> Iterable[PrefixRule]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise Unreadable(f"{path}: {error}") from None
    return parse_rules(text)
