"""Split a shell command line into the simple commands it runs, for the hook's permission checks.

The Claude Code hook may auto-approve a command only when it knows every program the line
starts, so this is a small tokenizer for the POSIX/bash subset agents write: words with
quotes and escapes, the list and pipe operators (`&&`, `||`, `;`, `|`, `|&`, `&`, newline),
redirections, comments and here-documents (whose bodies are data, not commands).

Anything it does not fully understand raises `Unsure`: command or process substitution
(`$(…)`, backticks, `<(…)`), subshells and groups, compound commands (`for`, `case`…),
an unterminated quote or here-document, an operator with nothing on one side. The caller
then never auto-approves the line. One compound command is understood, by
`split_conditional`: a line that is a single `if … then … [elif …] [else …] fi` whose
parts are simple commands (Claude Code runs those when its rules allow every part).
Erring towards `Unsure` costs a missed rewrite; erring the other way could let a command run
without the prompt the user expected.
"""

from __future__ import annotations

import re

# Words that open or close a compound command when they stand where a command starts.
_COMPOUND = "if then else elif fi for while until do done case esac select function coproc time { } [[ ]] !"
COMPOUND_WORDS = frozenset(_COMPOUND.split())
LIST_OPERATORS = ("&&", "||", ";;", "|&", ";", "|", "&")
# An optional fd, then the operator; longest operators first.
REDIRECT = re.compile(r"(\d*)(<<<|<<-|<<|<>|<&|>&|>>|>\||&>>|&>|<|>)")
WORD_END = frozenset(" \t\n;&|<>()")
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")


class Unsure(Exception):
    """The line uses shell syntax this splitter does not analyse."""


# Plain classes rather than dataclasses here, in `hooks` and in `json_settings`: importing
# `dataclasses` (and with it `inspect`) is a fifth of a PreToolUse hook's start-up.


class Word:
    __slots__ = ("raw", "value", "expands")

    def __init__(self, raw: str, value: str, expands: bool) -> None:
        self.raw = raw  # as typed, quotes and escapes included
        self.value = value  # after quote removal (expansions left as typed)
        self.expands = expands  # holds a `$` expansion outside single quotes


class Redirect:
    __slots__ = ("fd", "op", "target")

    def __init__(self, fd: str, op: str, target: Word) -> None:
        self.fd = fd
        self.op = op
        self.target = target

    @property
    def writes_file(self) -> bool:
        """Whether it may create or change a file (fd duplication and /dev/null do not)."""
        if self.op in (">&", "<&"):
            return not re.fullmatch(r"\d+|-", self.target.value)
        if self.op in (">", ">>", ">|", "&>", "&>>", "<>"):
            return self.target.value != "/dev/null"
        return False


class Segment:
    """One simple command: its words, redirections, and the operator that follows it."""

    __slots__ = ("start", "words", "redirects", "connector")

    def __init__(
        self,
        start: int = -1,
        words: list[Word] | None = None,
        redirects: list[Redirect] | None = None,
        connector: str = "",
    ) -> None:
        self.start = start
        self.words = [] if words is None else words
        self.redirects = [] if redirects is None else redirects
        self.connector = connector

    @property
    def empty(self) -> bool:
        return not self.words and not self.redirects

    @property
    def assignments(self) -> int:
        """How many leading `NAME=value` words there are."""
        count = 0
        for word in self.words:
            if not ASSIGNMENT.match(word.raw):
                break
            count += 1
        return count

    @property
    def command_words(self) -> list[Word]:
        return self.words[self.assignments :]

    @property
    def text(self) -> str:
        """The words as typed, one space apart: what permission rules are matched against."""
        return " ".join(word.raw for word in self.words)


def split_command(line: str) -> list[Segment]:
    """The simple commands of `line`, in order; raises `Unsure` for syntax it does not analyse."""
    segments = _scan(line)
    for segment in segments:
        _simple(segment)
    return segments


def split_conditional(line: str) -> list[Segment]:
    """The simple commands inside `line` when it is one `if` command and nothing else, its
    keywords taken off, in order; raises `Unsure` for any other line, and for an `if` holding
    anything but simple commands (a nested `if`, a loop, `!`, a group) or text after `fi`.
    Keywords count only unquoted at the start of a command, as the shell reads them, so a
    quoted `"fi"` or an argument `fi` closes nothing."""
    segments = _scan(line)
    if not segments or _keyword(segments[0]) != "if":
        raise Unsure("not an if command")
    inner: list[Segment] = []
    expected, in_part, after = ("then",), 0, ";"
    for index, segment in enumerate(segments):
        keyword = _keyword(segment)
        if keyword is None:
            inner.append(_simple(segment))
            in_part += 1
            after = segment.connector
            continue
        if index and (keyword not in expected or not in_part or after not in (";", "\n")):
            raise Unsure(f"{keyword!r} where the shell expects {expected}")
        if keyword == "fi":
            last = index == len(segments) - 1 and segment.connector in ("", ";", "\n")
            if segment.words[1:] or segment.redirects or not last:
                raise Unsure("text after fi")
            return inner
        expected = ("then",) if keyword in ("if", "elif") else ("elif", "else", "fi")
        if keyword == "else":
            expected = ("fi",)
        rest = Segment(segment.start, segment.words[1:], segment.redirects, segment.connector)
        if rest.empty and segment.connector != "\n":
            raise Unsure(f"{keyword!r} followed by {segment.connector!r}")
        in_part, after = (0, ";") if rest.empty else (1, rest.connector)
        if not rest.empty:
            inner.append(_simple(rest))
    raise Unsure("if without fi")


def _keyword(segment: Segment) -> str | None:
    """The `if` keyword that starts `segment`, unquoted, or None."""
    first = segment.words[0].raw if segment.words else None
    return first if first in ("if", "then", "elif", "else", "fi") else None


def _simple(segment: Segment) -> Segment:
    words = segment.command_words
    if words and words[0].raw in COMPOUND_WORDS:
        raise Unsure(f"compound command {words[0].raw!r}")
    return segment


def _scan(line: str) -> list[Segment]:
    scanner = _Scanner(line)
    scanner.run()
    segments = scanner.segments
    if segments and segments[-1].connector in ("&&", "||", "|", "|&"):
        raise Unsure("an operator with no command after it")
    return segments


class _Scanner:
    def __init__(self, line: str) -> None:
        self.line = line
        self.i = 0
        self.segments: list[Segment] = []
        self.current = Segment()
        self.heredocs: list[tuple[str, bool, bool]] = []  # delimiter, strip tabs, quoted

    def run(self) -> None:
        line = self.line
        while self.i < len(line):
            char = line[self.i]
            if char in " \t":
                self.i += 1
            elif line.startswith("\\\n", self.i):
                self.i += 2
            elif char == "#":
                end = line.find("\n", self.i)
                self.i = len(line) if end < 0 else end
            elif char == "\n":
                self.i += 1
                self.close("\n")
                self.read_heredocs()
            elif char in "()":
                raise Unsure("subshell or grouping")
            elif (match := REDIRECT.match(line, self.i)) and not (
                match.group(2) in ("&>", "&>>") and line.startswith("&&", self.i)
            ):
                self.redirect(match)
            elif operator := next((op for op in LIST_OPERATORS if line.startswith(op, self.i)), None):
                if operator == ";;":
                    raise Unsure("case clause")
                self.i += len(operator)
                self.close(operator)
            else:
                self.mark_start()
                self.current.words.append(self.word())
        if self.heredocs:
            raise Unsure("here-document without its body")
        if not self.current.empty:
            self.segments.append(self.current)

    def mark_start(self) -> None:
        if self.current.start < 0:
            self.current.start = self.i

    def close(self, operator: str) -> None:
        if self.current.empty:
            if operator == "\n":
                return
            raise Unsure(f"{operator!r} with no command before it")
        self.current.connector = operator
        self.segments.append(self.current)
        self.current = Segment()

    def redirect(self, match: re.Match[str]) -> None:
        self.mark_start()
        fd, op = match.group(1), match.group(2)
        self.i = match.end()
        while self.i < len(self.line) and self.line[self.i] in " \t":
            self.i += 1
        if self.i >= len(self.line) or self.line[self.i] in WORD_END:
            raise Unsure(f"redirection {op!r} without a target")
        target = self.word()
        if op in ("<<", "<<-"):
            quoted = target.raw != target.value
            self.heredocs.append((target.value, op == "<<-", quoted))
        self.current.redirects.append(Redirect(fd, op, target))

    def read_heredocs(self) -> None:
        """Skip the bodies of the here-documents opened on the line just ended."""
        for delimiter, strip_tabs, quoted in self.heredocs:
            while True:
                if self.i >= len(self.line):
                    raise Unsure(f"here-document {delimiter!r} never ends")
                end = self.line.find("\n", self.i)
                end = len(self.line) if end < 0 else end
                body_line = self.line[self.i : end]
                self.i = min(end + 1, len(self.line))
                if (body_line.lstrip("\t") if strip_tabs else body_line) == delimiter:
                    break
                if not quoted and ("$(" in body_line or "`" in body_line):
                    raise Unsure("command substitution in a here-document")
        self.heredocs = []

    def word(self) -> Word:
        line, start = self.line, self.i
        value: list[str] = []
        expands = False
        while self.i < len(line) and line[self.i] not in WORD_END:
            char = line[self.i]
            if char == "\\":
                if self.i + 1 < len(line) and line[self.i + 1] != "\n":
                    value.append(line[self.i + 1])
                self.i += 2
            elif char == "'":
                end = line.find("'", self.i + 1)
                if end < 0:
                    raise Unsure("unterminated single quote")
                value.append(line[self.i + 1 : end])
                self.i = end + 1
            elif char == '"':
                expands |= self.double_quoted(value)
            elif char == "`" or line.startswith("$(", self.i):
                raise Unsure("command substitution")
            elif line.startswith("$'", self.i):
                self.ansi_c_quoted(value)
            else:
                expands |= char == "$"
                value.append(char)
                self.i += 1
        return Word(line[start : self.i], "".join(value), expands)

    def double_quoted(self, value: list[str]) -> bool:
        line, expands = self.line, False
        self.i += 1
        while True:
            if self.i >= len(line):
                raise Unsure("unterminated double quote")
            char = line[self.i]
            if char == '"':
                self.i += 1
                return expands
            if char == "`" or line.startswith("$(", self.i):
                raise Unsure("command substitution")
            if char == "\\" and self.i + 1 < len(line) and line[self.i + 1] in '$`"\\\n':
                if line[self.i + 1] != "\n":
                    value.append(line[self.i + 1])
                self.i += 2
                continue
            expands |= char == "$"
            value.append(char)
            self.i += 1

    def ansi_c_quoted(self, value: list[str]) -> None:
        line = self.line
        self.i += 2
        while True:
            if self.i >= len(line):
                raise Unsure("unterminated $'…' quote")
            char = line[self.i]
            if char == "'":
                self.i += 1
                return
            if char == "\\" and self.i + 1 < len(line):
                value.append(line[self.i : self.i + 2])
                self.i += 2
                continue
            value.append(char)
            self.i += 1
