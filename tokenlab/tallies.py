"""The ledger's rows summed, for `tokens gain` and `tokens discover`: per command (its
first words, `command_key`), content type, day, model or tool; against what the host would
have shown; and how often outputs were fetched again.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from tokenlab.ledger import Kind, Record


class GroupBy(str, Enum):
    COMMAND = "command"
    TYPE = "type"
    DAY = "day"
    MODEL = "model"  # proxy rows by the model their request was for
    TOOL = "tool"  # proxy and hook rows by tool name


@dataclass(frozen=True)
class Tally:
    """Runs and tokens of one group: a command, a content type, a day, a tool."""

    key: str
    runs: int
    raw_tokens: int
    visible_tokens: int

    @property
    def saved_tokens(self) -> int:
        return self.raw_tokens - self.visible_tokens

    @property
    def saved_pct(self) -> float:
        return 100.0 * self.saved_tokens / self.raw_tokens if self.raw_tokens else 0.0

    def as_dict(self) -> dict[str, object]:
        return {
            "key": self.key,
            "runs": self.runs,
            "raw_tokens": self.raw_tokens,
            "visible_tokens": self.visible_tokens,
            "saved_tokens": self.saved_tokens,
            "saved_pct": round(self.saved_pct, 2),
        }


def tally(rows: Iterable[tuple[str, int, int]], *, order_by_key: bool = False) -> list[Tally]:
    """(key, raw tokens, visible tokens) rows summed per key; most tokens saved first."""
    sums: dict[str, list[int]] = {}
    for key, raw, shown in rows:
        total = sums.setdefault(key, [0, 0, 0])
        total[0] += 1
        total[1] += raw
        total[2] += shown
    found = [Tally(key, *total) for key, total in sums.items()]
    if order_by_key:
        return sorted(found, key=lambda row: row.key)
    return sorted(found, key=lambda row: (-row.saved_tokens, row.key))


@dataclass(frozen=True)
class HostTally:
    """Outputs a hook replaced: raw tokens, tokens shown, and what the host would have shown."""

    runs: int
    raw_tokens: int
    visible_tokens: int
    host_tokens: int

    @property
    def saved_vs_host(self) -> int:
        return self.host_tokens - self.visible_tokens

    def as_dict(self) -> dict[str, object]:
        return {
            "runs": self.runs,
            "raw_tokens": self.raw_tokens,
            "visible_tokens": self.visible_tokens,
            "host_tokens": self.host_tokens,
            "saved_vs_host_tokens": self.saved_vs_host,
        }


def against_host(found: Iterable[Record]) -> HostTally:
    """The rows that know what the host would have shown (hook replacements), summed."""
    rows = [r for r in found if r.host_tokens is not None]
    return HostTally(
        len(rows),
        sum(r.raw_tokens for r in rows),
        sum(r.visible_tokens for r in rows),
        sum(r.host_tokens or 0 for r in rows),
    )


def total(rows: Iterable[Tally], key: str = "total") -> Tally:
    rows = list(rows)
    return Tally(
        key, sum(r.runs for r in rows), sum(r.raw_tokens for r in rows), sum(r.visible_tokens for r in rows)
    )


def group(found: Iterable[Record], by: GroupBy) -> list[Tally]:
    """Ledger rows summed per command (its first words), content type or local day."""
    return tally(
        ((_group_key(r, by), r.raw_tokens, r.visible_tokens) for r in found), order_by_key=by is GroupBy.DAY
    )


def _group_key(entry: Record, by: GroupBy) -> str:
    if by is GroupBy.TYPE:
        return entry.content_type or "-"
    if by is GroupBy.DAY:
        return time.strftime("%Y-%m-%d", time.localtime(entry.time))
    if by is GroupBy.MODEL:
        return entry.model or "-"
    if by is GroupBy.TOOL and entry.kind in (Kind.PROXY, Kind.HOOK):
        return entry.source.partition(" ")[0] if entry.kind is Kind.HOOK else entry.source
    if by is GroupBy.TOOL:
        return entry.kind.value
    if entry.kind is Kind.PROXY:
        return "proxy " + entry.source
    if entry.kind is Kind.ANALYZE:
        return "analyze " + ("-" if entry.source == "<stdin>" else "FILE")
    tool = entry.source.partition(" ")[0]
    if entry.kind is Kind.HOOK and (tool in HOOK_TOOLS or tool.startswith("mcp__")):
        return "Read FILE" if tool == "Read" else tool  # a Bash row's source is its command line
    return command_key(entry.source)


# Claude Code tools whose hook rows are named `<tool> …` (a Bash row by its command line).
HOOK_TOOLS = frozenset({"Read", "Grep", "Glob", "WebFetch"})
# Tools whose second word names what was done (`git status`, `cargo test`, `npm run`).
SUBCOMMAND_TOOLS = frozenset(
    {
        "git", "cargo", "go", "npm", "pnpm", "yarn", "bun", "uv", "pip", "pip3", "poetry", "docker",
        "podman", "kubectl", "helm", "make", "gh", "terraform", "dotnet", "mvn", "gradle", "gradlew",
        "bazel", "nx", "turbo", "deno", "rustup", "brew", "apt", "apt-get", "conda",
    }
)  # fmt: skip
# Words that run the next word as the command (`sudo make`, `time pytest`).
_WRAPPERS = frozenset({"sudo", "env", "time", "nice", "nohup", "command", "exec", "builtin", "xargs"})
# Words that run a module or package named next (`python -m pytest`, `npx eslint`).
_RUNNERS = frozenset({"-m", "run", "exec", "dlx", "x"})
_PACKAGE_RUNNERS = frozenset({"npx", "bunx", "pipx", "uvx"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash"})
_SEPARATORS = frozenset({"&&", "||", ";", "|", "&", "(", ")"})


def command_key(command: str) -> str:
    """The first word(s) of a command line, for grouping: `make test`, `git status`, `pytest`.

    Environment assignments, wrappers (`sudo`, `time`) and a leading `cd DIR &&` are
    skipped; a program is named by its file name; a tool with subcommands keeps the
    subcommand, `python -m X`, `npx X`, `uv run X` keep X, and `sh -c LINE` is LINE's key.
    """
    words = _first_command(command)
    while words and ("=" in words[0] and not words[0].startswith("=") or words[0] in _WRAPPERS):
        words = words[1:]
    if not words:
        return command.strip().split(" ", 1)[0] or "-"
    program = words[0].rsplit("/", 1)[-1]
    key, rest = [program], words[1:]
    if program in _SHELLS and len(rest) >= 2 and rest[0] == "-c":
        return command_key(rest[1])
    if rest and (program in SUBCOMMAND_TOOLS and not rest[0].startswith("-") or rest[0] == "-m"):
        key.append(rest.pop(0))
    if (key[-1] in _RUNNERS or program in _PACKAGE_RUNNERS) and rest and not rest[0].startswith("-"):
        key.append(rest[0].rsplit("/", 1)[-1])
    return " ".join(key)


def _first_command(command: str) -> list[str]:
    """The words of the first simple command, past any `cd DIR &&` prefixes."""
    import shlex

    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:  # unbalanced quotes: the plain words will do
        words = command.split()
    commands: list[list[str]] = [[]]
    for word in words:
        if word in _SEPARATORS:
            commands.append([])
        else:
            commands[-1].append(word)
    commands = [c for c in commands if c]
    while len(commands) > 1 and commands[0][0] in ("cd", "pushd"):
        commands = commands[1:]
    return commands[0] if commands else []


@dataclass(frozen=True)
class Refetch:
    """How often outputs were fetched again: the same call repeated, or a ref opened."""

    outputs: int  # `run` and hook rows
    reruns: int
    ref_opens: int

    @property
    def rate(self) -> float:
        return (self.reruns + self.ref_opens) / self.outputs if self.outputs else 0.0

    def as_dict(self) -> dict[str, object]:
        return {
            "outputs": self.outputs,
            "reruns": self.reruns,
            "ref_opens": self.ref_opens,
            "refetch_rate": round(self.rate, 4),
        }


def refetch(found: Iterable[Record]) -> Refetch:
    rows = list(found)
    outputs = [r for r in rows if r.kind in (Kind.RUN, Kind.HOOK)]
    return Refetch(len(outputs), sum(r.rerun for r in outputs), sum(r.kind is Kind.REF for r in rows))
