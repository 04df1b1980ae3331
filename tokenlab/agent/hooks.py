"""The Claude Code hook's rules: which Bash commands go through `tokens run`, and how.

`decide` owns every rule and is pure: Claude Code's hook input, the parsed settings files
and the user's exclude patterns in, a `HookAnswer` (or None: leave the command alone) out.
`rewrite` owns the one rewrite, `<python> -S <folder>/tokenlab/__main__.py run --shell
'<command>'` (tokenlab by absolute path, so that it runs whatever PATH Claude Code's shell
has, and without `site`; see `launcher`).

The hook must never widen what the agent may do. In Claude Code a PreToolUse hook's
`updatedInput` takes effect together with `permissionDecision: "allow"`, which skips the
prompt, and Claude Code then checks its deny and ask rules against the *rewritten*
command, where `Bash(rm -rf:*)` no longer matches `tokens run --shell 'rm -rf …'`. So the
hook answers only for a command that would have run without a prompt anyway:

- every part of the chain matches one of the user's allow rules (or, opted in, the
  built-in read-only list), none matches a deny or an ask rule, none writes a file
  through a redirection, and the mode is `default`, `acceptEdits` or `dontAsk`; or
- the mode is `bypassPermissions`, no part matches a deny or an ask rule, and no part
  touches what Claude Code still guards in that mode (`rm`/`rmdir`, `.git`, `.claude`,
  `.vscode`, `.idea`).

An `if … fi` line is rewritten whole, on the same terms for each command inside it. Its
`[ … ]` and `test` with literal operands need no rule: Claude Code 2.1.328 runs `if [ -f
x ]; then sh x; fi` with a rule for `sh x` alone (measured).

Everything else (plan and auto mode, an unknown or missing mode, syntax the splitter does
not analyse, a settings file it cannot read) gets no answer, so Claude Code's own prompt
and rules apply to the command as written.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from tokenlab.agent.launcher import runs_tokenlab, tokens_command
from tokenlab.agent.shell_split import ASSIGNMENT, Segment, Unsure, split_command, split_conditional

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing on every call

if TYPE_CHECKING:
    from typing import Any

APPROVING_MODES = frozenset({"default", "acceptEdits", "dontAsk"})
BYPASS = "bypassPermissions"
# Builtins whose effect is the shell's own state: run through `tokens run` they would
# change a child process and be lost.
_STATE_WORDS = (
    "cd pushd popd export unset set source . alias unalias shopt setopt ulimit umask "
    "declare typeset readonly local hash trap enable exec exit return shift eval"
)
STATE_BUILTINS = frozenset(_STATE_WORDS.split())
# Wrappers whose first operand is the command that really runs; stripped before deny and
# ask rules are matched (Claude Code strips `timeout`, `nice`, `nohup` and the like too).
_WRAPPER_WORDS = "env timeout nice nohup time command builtin sudo doas stdbuf ionice xargs chrt taskset"
WRAPPERS = frozenset(_WRAPPER_WORDS.split())
_VALUE_OPTIONS = "-u -C -s -k -n -c -I -P -d -E -L -a -o -e -i -g -p"
WRAPPER_OPTIONS_WITH_VALUE = frozenset(_VALUE_OPTIONS.split())
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
GUARDED_PATH = re.compile(r"(^|/)\.(git|claude|vscode|idea)(/|$)")
GUARDED_PROGRAMS = frozenset({"rm", "rmdir"})

# The opt-in read-only list: a command prefix and the options that would make it write a
# file or run another program. Test runners run the project's own code: `hook install`
# says so before the user accepts the list.
READ_ONLY: dict[tuple[str, ...], tuple[str, ...]] = {
    ("git", "status"): (),
    ("git", "log"): ("--output", "--ext-diff"),
    ("git", "diff"): ("--output", "--ext-diff"),
    ("git", "show"): ("--output", "--ext-diff"),
    ("ls",): (),
    ("pwd",): (),
    ("cat",): (),
    ("head",): (),
    ("tail",): (),
    ("wc",): (),
    ("grep",): (),
    ("rg",): ("--pre",),
    ("find",): ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprintf", "-fls"),
    ("tree",): ("-o",),
    ("du",): (),
    ("pytest",): (),
    ("python", "-m", "pytest"): (),
    ("python3", "-m", "pytest"): (),
    ("npm", "test"): (),
    ("cargo", "test"): (),
    ("go", "test"): (),
}


class HookAnswer:
    """Allow the command, rewritten: Claude Code's `hookSpecificOutput` for PreToolUse.
    (Plain classes here: see `shell_split.Word`.)"""

    __slots__ = ("updated_input", "reason")

    def __init__(self, updated_input: dict[str, Any], reason: str) -> None:
        self.updated_input = updated_input
        self.reason = reason

    def as_dict(self) -> dict[str, Any]:
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "permissionDecisionReason": self.reason,
                "updatedInput": self.updated_input,
            }
        }


class Rule:
    """One `Bash(…)` permission rule; `pattern` None matches every command."""

    __slots__ = ("pattern",)

    def __init__(self, pattern: str | None) -> None:
        self.pattern = pattern

    def matches(self, text: str, *, loose: bool = False) -> bool:
        """Whether `text` matches. `loose` drops word boundaries, for deny and ask rules,
        where matching too much only costs a missed rewrite."""
        if self.pattern is None or self.pattern == "*":
            return True
        text = _squeeze(text)
        pattern = self.pattern
        if pattern.endswith(":*"):
            pattern = pattern[:-2].rstrip() + " *"
        pattern = _squeeze(pattern)
        if "*" not in pattern.replace("\\*", ""):
            exact = pattern.replace("\\*", "*")
            return text == exact or (loose and text.startswith(exact + " "))
        return _wildcard(pattern, loose).fullmatch(text) is not None


def _squeeze(text: str) -> str:
    """Runs of the shell's own blanks as one space (not Unicode spaces: to the shell those
    are part of a word, so `git\u00a0status` must not read as `git status`)."""
    return re.sub(r"[ \t\n]+", " ", text).strip(" ")


def _wildcard(pattern: str, loose: bool) -> re.Pattern[str]:
    parts = re.split(r"(?<!\\)\*", pattern)
    literal = [re.escape(part.replace("\\*", "*")) for part in parts]
    if len(parts) == 2 and parts[1] == "" and parts[0].endswith(" ") and not loose:
        return re.compile(re.escape(parts[0][:-1].replace("\\*", "*")) + "( .*)?", re.DOTALL)
    if loose and len(parts) == 2 and parts[1] == "" and parts[0].endswith(" "):
        literal[0] = re.escape(parts[0][:-1].replace("\\*", "*"))
    return re.compile(".*".join(literal), re.DOTALL)


def parse_rule(entry: object) -> Rule | None:
    """A `Bash`/`Bash(…)` rule string as a `Rule`; None for other tools and malformed entries."""
    if not isinstance(entry, str):
        return None
    entry = entry.strip()
    if entry == "Bash":
        return Rule(None)
    if entry.startswith("Bash(") and entry.endswith(")"):
        inner = entry[5:-1].strip()
        return Rule(inner or None)
    return None


class Rules:
    __slots__ = ("allow", "ask", "deny")

    def __init__(self, allow: tuple[Rule, ...], ask: tuple[Rule, ...], deny: tuple[Rule, ...]) -> None:
        self.allow = allow
        self.ask = ask
        self.deny = deny


def collect_rules(settings: Iterable[Mapping[str, Any]]) -> Rules:
    """The Bash rules of every settings file, merged (Claude Code merges the lists too)."""
    found: dict[str, list[Rule]] = {"allow": [], "ask": [], "deny": []}
    for data in settings:
        permissions = data.get("permissions") if isinstance(data, Mapping) else None
        if not isinstance(permissions, Mapping):
            continue
        for kind, rules in found.items():
            entries = permissions.get(kind)
            if isinstance(entries, list):
                rules.extend(rule for rule in map(parse_rule, entries) if rule is not None)
    return Rules(tuple(found["allow"]), tuple(found["ask"]), tuple(found["deny"]))


def rewrite(command: str) -> str | None:
    """`command` as it runs through `tokens run`, or None when it must run as it is."""
    try:
        return plan(command, split_command(command))
    except Unsure:
        pass
    try:
        return plan_conditional(command, split_conditional(command))
    except Unsure:
        return None


def plan(
    command: str, segments: Sequence[Segment], wrapper: Callable[[str], str] | None = None
) -> str | None:
    """`command` (split into `segments`) with `tokens run --shell '…'` around the part that
    can run in a child process, or None when it must run as it is. `wrapper` turns that
    part into the command that runs it (default: `wrap`)."""
    if not segments or any(segment.connector == "&" for segment in segments):
        return None  # nothing to run, or a background job
    if any(runs_tokenlab([word.value for word in segment.command_words]) for segment in segments):
        return None  # already wrapped, or already piped through tokenlab
    state = [_changes_state(segment) for segment in segments]
    prefix = 0
    while prefix < len(segments) and state[prefix]:
        prefix += 1
    if prefix == len(segments) or any(state[prefix:]):
        return None
    if prefix:
        # `cd dir && make` keeps its `cd` in the agent's shell and wraps the rest, which is
        # exact only when the rest forms one unit after that connector.
        inner = {segment.connector for segment in segments[: prefix - 1]}
        joint = segments[prefix - 1].connector
        rest = {segment.connector for segment in segments[prefix:-1]}
        if not inner <= {"&&", ";", "\n"} or segments[prefix - 1].redirects:
            return None
        if joint == "&&" and not rest <= {"&&", "|", "|&"}:
            return None
        if joint not in ("&&", ";", "\n"):
            return None
    offset = segments[prefix].start if prefix else 0
    return command[:offset] + (wrapper or wrap)(command[offset:])


def plan_conditional(command: str, segments: Sequence[Segment]) -> str | None:
    """`command`, one `if … fi` whose simple commands are `segments`, run whole through
    `tokens run`; None when a part must run in the agent's own shell (`cd`, `exit`, …), in
    the background, or is tokenlab already."""
    if any(segment.connector == "&" or _changes_state(segment) for segment in segments):
        return None
    if any(runs_tokenlab([word.value for word in segment.command_words]) for segment in segments):
        return None
    return wrap(command)


def wrap(command: str) -> str:
    """`<python> -S <entry file> run --shell '<command>'`, tokenlab named by absolute path (see
    `launcher`) and quoted so that `sh` passes `command` on exactly."""
    return f"{tokens_command('run', '--shell')} {shlex.quote(command)}"


def _changes_state(segment: Segment) -> bool:
    words = segment.command_words
    if not words:
        return not segment.redirects  # `NAME=value` alone sets a shell variable
    return words[0].value in STATE_BUILTINS and not segment.redirects


def decide(
    hook_input: Mapping[str, Any],
    settings: Sequence[Mapping[str, Any]],
    excludes: Iterable[str] = (),
    *,
    read_only: bool = False,
) -> HookAnswer | None:
    """The answer to one PreToolUse hook call, or None to leave the command alone."""
    tool_input = hook_input.get("tool_input")
    if hook_input.get("tool_name") != "Bash" or not isinstance(tool_input, Mapping):
        return None
    command = tool_input.get("command")
    if not isinstance(command, str) or not command.strip() or tool_input.get("run_in_background"):
        return None
    mode = hook_input.get("permission_mode")
    if mode not in APPROVING_MODES and mode != BYPASS:
        return None
    conditional = False
    try:
        segments = split_command(command)
    except Unsure:
        try:
            segments, conditional = split_conditional(command), True
        except Unsure:
            return None
    new_command = plan_conditional(command, segments) if conditional else plan(command, segments)
    if new_command is None:
        return None
    exclude_rules = [Rule(pattern.strip()) for pattern in excludes if pattern.strip()]
    rules = collect_rules(settings)
    try:
        texts = [list(_match_texts(segment)) for segment in segments]
    except Unsure:
        return None
    flat = [text for part in texts for text in part]
    if any(rule.matches(text, loose=True) for rule in exclude_rules for text in flat):
        return None
    if any(rule.matches(text, loose=True) for rule in rules.deny + rules.ask for text in flat):
        return None
    if mode == BYPASS:
        if any(_guarded(segment, part) for segment, part in zip(segments, texts, strict=True)):
            return None
        reason = "tokenlab: output compressed by `tokens run` (bypassPermissions mode)"
    else:
        def allowed(segment: Segment) -> bool:
            return _allowed(segment, rules.allow, read_only) or conditional and is_test(segment)

        if not all(map(allowed, segments)):
            return None
        reason = "tokenlab: output compressed by `tokens run`; every part is allowed by your rules"
    return HookAnswer({**tool_input, "command": new_command}, reason)


def _allowed(segment: Segment, allow: Sequence[Rule], read_only: bool) -> bool:
    """Whether this part would run without a prompt: an allow rule or the read-only list
    covers it, its program is literal, and it writes no file through a redirection."""
    words = segment.command_words
    if not words or words[0].expands or any(r.writes_file for r in segment.redirects):
        return False
    if any(rule.matches(segment.text) for rule in allow):
        return True
    return read_only and read_only_program(segment)


def is_test(segment: Segment) -> bool:
    """Whether the part is `[ … ]` or `test …` with literal operands and no redirection:
    it only looks, and Claude Code asks no rule for it inside an `if`."""
    words = segment.words
    if not words or segment.redirects or any(word.expands or word.raw != word.value for word in words):
        return False
    if words[0].raw == "[":
        operands = words[1:-1]
        if len(words) < 2 or words[-1].raw != "]":
            return False
    elif words[0].raw == "test":
        operands = words[1:]
    else:
        return False
    # bash evaluates an array subscript (`test -v 'a[…]'`) as arithmetic, which can run code
    return not any("[" in word.raw or "]" in word.raw for word in operands)


def read_only_program(segment: Segment) -> bool:
    """Whether the part runs a program on the read-only list without an option that writes
    a file or runs another program (redirections are the caller's business)."""
    if segment.assignments:
        return False
    argv = [word.value for word in segment.words]
    for prefix, forbidden in READ_ONLY.items():
        if tuple(argv[: len(prefix)]) == prefix:
            return not any(arg.startswith(option) for arg in argv for option in forbidden if option)
    return False


def _guarded(segment: Segment, texts: Sequence[str]) -> bool:
    """Whether Claude Code checks this part itself even in bypassPermissions mode."""
    targets = [redirect.target.value for redirect in segment.redirects]
    words = [word for text in texts for word in text.split()] + targets
    if any(GUARDED_PATH.search(word) for word in words):
        return True
    return any(text.split()[0] in GUARDED_PROGRAMS for text in texts if text.strip())


def _match_texts(segment: Segment, depth: int = 0) -> Iterator[str]:
    """Every text a deny or ask rule is matched against: the part as typed, without quotes,
    without wrappers and variable assignments, the program's base name, and the parts of
    scripts handed to `sh -c`, `eval` and `find -exec`. Raises `Unsure` for such a script
    that cannot be split."""
    raw = [word.raw for word in segment.words]
    values = [word.value for word in segment.words]
    for argv in (*unwrapped(raw), *unwrapped(values)):
        if argv:
            yield " ".join(argv)
            yield " ".join([posixpath.basename(argv[0]), *argv[1:]])
    reads_script = any(r.op in ("<<", "<<-", "<<<") for r in segment.redirects)
    if reads_script and any(form and posixpath.basename(form[0]) in SHELLS for form in unwrapped(values)):
        raise Unsure("a shell reading its script from a here-document")
    for script in inner_scripts(values):
        if depth >= 3:
            raise Unsure("scripts nested too deeply")
        for part in split_command(script):
            yield from _match_texts(part, depth + 1)


def unwrapped(argv: Sequence[str]) -> list[list[str]]:
    """`argv`, then each shorter form left after removing an assignment or a wrapper."""
    forms = [list(argv)]
    current = list(argv)
    while current:
        if ASSIGNMENT.match(current[0]):
            current = current[1:]
        elif posixpath.basename(current[0]) in WRAPPERS:
            current = _after_wrapper(current)
        else:
            break
        forms.append(current)
    return forms


def _after_wrapper(argv: list[str]) -> list[str]:
    wrapper = posixpath.basename(argv[0])
    rest = argv[1:]
    while rest and rest[0].startswith("-") and rest[0] != "-":
        option = rest.pop(0)
        if option == "--":
            break
        if option in WRAPPER_OPTIONS_WITH_VALUE and rest:
            rest.pop(0)
    if wrapper == "timeout" and rest:
        rest = rest[1:]  # the duration
    if wrapper == "env":
        while rest and ASSIGNMENT.match(rest[0]):
            rest = rest[1:]
    return rest


def inner_scripts(argv: Sequence[str]) -> Iterator[str]:
    for form in unwrapped(argv):
        if not form:
            continue
        program = posixpath.basename(form[0])
        if program in SHELLS and "-c" in form[1:-1]:
            yield form[form.index("-c", 1) + 1]
        elif program == "eval":
            yield " ".join(form[1:])
        elif program == "find":
            yield from _find_actions(form)


def _find_actions(argv: Sequence[str]) -> Iterator[str]:
    for index, word in enumerate(argv):
        if word in ("-exec", "-execdir", "-ok", "-okdir"):
            action: list[str] = []
            for item in argv[index + 1 :]:
                if item in (";", "+"):
                    break
                action.append(shlex.quote(item))
            yield " ".join(action)
