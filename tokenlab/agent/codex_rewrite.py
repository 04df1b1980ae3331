"""The Codex hook's PreToolUse rule: which shell commands go through `tokens run`, and how.

Codex's PostToolUse sees a shell command's output already cut to about 10,000 characters
and without its exit status, so the rewrite is the one path that sees a large output whole.
But a rewrite widens what runs (measured, docs/hosts.md): Codex matches its exec-policy
`.rules` and its built-in refusal of `rm -f` against the *rewritten* command only, where
`tokens run --shell 'rm -f x'` matches neither. So `decide` answers only when every part of
the command line is known harmless, and would have run without the rewrite anyway:

- no part (nor a script it hands to `sh -c`, `eval` or `find -exec`, nor the command
  behind a wrapper such as `env` or `sudo`) matches a `forbidden` or `prompt` rule of any
  rules file, and none is a forced `rm`;
- every part runs a literal program on the read-only list (`hooks.read_only_program`),
  or one that an `allow` rule of the user's own rules names, or is a `cd`; none writes a
  file through a redirection.

A rules file that cannot be read, syntax the splitter does not analyse, a background job,
a line that only changes the shell's state: no answer, and Codex runs the command as
written under its own checks.

The rewrite (`wrapper`) still runs in Codex's sandbox, which by default lets nothing be
written: there `tokens run` could not store the output and would fail (measured). So the
wrapped part runs through `tokens run` only when the sandbox lets it write the store
folder, and as written (`eval`) otherwise. It names tokenlab by its absolute path (Codex
runs commands in a login shell, which resets PATH) and pins the store folder, so the
command stores where the hook and `tokens show-ref` look, whatever environment Codex
passes on to commands.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from tokenlab.agent.codex_rules import CodexRules
from tokenlab.agent.hooks import SHELLS, inner_scripts, plan, read_only_program, unwrapped
from tokenlab.agent.shell_split import Segment, Unsure, split_command

# Builtins that only move the shell; `plan` keeps them outside the wrapped part.
MOVES = frozenset({"cd", "pushd", "popd"})
MAX_DEPTH = 3


def wrapper(tokens_argv: Sequence[str], store: str | None) -> Callable[[str], str]:
    """What a part of a command line becomes: `if [ -w STORE ]; then <tokens> run --store
    STORE --shell '<part>'; else eval '<part>'; fi` (just the `tokens run` without a store
    folder to pin), quoted for the shell."""
    run = shlex.join([*tokens_argv, "run", *(["--store", store] if store else [])])

    def wrap_part(part: str) -> str:
        wrapped = f"{run} --shell {shlex.quote(part)}"
        if store is None:
            return wrapped
        return f"if [ -w {shlex.quote(store)} ]; then {wrapped}; else eval {shlex.quote(part)}; fi"

    return wrap_part


def decide(
    hook_input: Mapping[str, Any], rules: CodexRules, wrap_part: Callable[[str], str]
) -> dict[str, Any] | None:
    """Codex's PreToolUse answer (the command rewritten by `wrap_part`), or None to leave
    the command alone."""
    tool_input = hook_input.get("tool_input")
    if hook_input.get("tool_name") != "Bash" or not isinstance(tool_input, Mapping):
        return None
    command = tool_input.get("command")
    if not isinstance(command, str) or not command.strip():
        return None
    try:
        segments = split_command(command)
        forms = [form for segment in segments for form in argv_forms(segment)]
    except Unsure:
        return None
    new_command = plan(command, segments, wrap_part)
    if new_command is None:
        return None
    if any(rules.restricts(form) or forced_rm(form) for form in forms):
        return None
    if not all(harmless(segment, rules) for segment in segments):
        return None
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {**tool_input, "command": new_command},
        }
    }


def harmless(segment: Segment, rules: CodexRules) -> bool:
    """Whether this part would run without a question from Codex and changes nothing: a
    literal program that is read-only, moves the shell, or is allowed by the user's rule."""
    words = segment.command_words
    if not words or words[0].expands or segment.assignments:
        return False
    if any(redirect.writes_file for redirect in segment.redirects):
        return False
    argv = [word.value for word in segment.words]
    return argv[0] in MOVES or read_only_program(segment) or rules.allows(argv)


def argv_forms(segment: Segment, depth: int = 0) -> Iterator[list[str]]:
    """Every argv a rule is matched against: the part's own, without wrappers and variable
    assignments, and those of the scripts it hands to a shell, `eval` or `find -exec`.
    Raises `Unsure` for a script that cannot be split, or a shell reading a here-document."""
    values = [word.value for word in segment.words]
    forms = unwrapped(values)
    yield from (form for form in forms if form)
    reads_script = any(r.op in ("<<", "<<-", "<<<") for r in segment.redirects)
    if reads_script and any(form and posixpath.basename(form[0]) in SHELLS for form in forms):
        raise Unsure("a shell reading its script from a here-document")
    for script in inner_scripts(values):
        if depth >= MAX_DEPTH:
            raise Unsure("scripts nested too deeply")
        for part in split_command(script):
            yield from argv_forms(part, depth + 1)


def forced_rm(argv: Sequence[str]) -> bool:
    """Codex's own refusal, which a rewrite would hide: `rm` with `-f` or `--force`."""
    if posixpath.basename(argv[0]) != "rm":
        return False
    for arg in argv[1:]:
        if arg == "--":
            return False
        if arg == "--force" or (arg.startswith("-") and not arg.startswith("--") and "f" in arg):
            return True
    return False
