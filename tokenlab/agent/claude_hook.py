"""The Claude Code hook's entry: read the hook JSON, answer, and never fail closed.

`tokens hook claude-code` is installed for two events and tells them apart by the input's
`hook_event_name`:

- PreToolUse, before every Bash command the agent issues: it imports only the standard
  library and the hook's own modules (no typer, no pipeline), so the command line can call
  `run` straight from `tokenlab.entry` without building the app. `hooks.decide` owns every
  rule.
- PostToolUse, after the tools it is installed for: `post_tool_use.decide` owns every rule;
  this entry hands it the file reader and the pipeline into the user's store, and writes
  the ledger row of a replacement.

It only parses and answers. Whatever goes wrong (bad JSON, an unreadable file, a bug) it
prints nothing, so Claude Code runs the original command under its own permission checks
and shows the tool's own output; and since Claude Code reads exit code 2 as "block this
tool call", options are parsed by hand here and unknown ones ignored. The hook input is
data: nothing in it is run, and no part of it is logged (the ledger keeps counts and the
command line, credentials masked).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from tokenlab.agent.hook_io import answer_one, read_file, record_replacement, store_analysis

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing on every call

if TYPE_CHECKING:
    from typing import Any, BinaryIO, TextIO


def run(
    args: list[str],
    stdin: BinaryIO | None = None,
    stdout: TextIO | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Answer one PreToolUse or PostToolUse call; always 0. Options: --allow-read-only,
    --exclude PATTERN (a PostToolUse call for a command it matches is not answered either)."""
    environment = os.environ if env is None else env

    def answer(hook_input: dict[str, Any]) -> Mapping[str, Any] | None:
        from tokenlab.agent.claude_permissions import permission_settings
        from tokenlab.agent.hooks import decide

        read_only, excludes = hook_options(args)
        if hook_input.get("hook_event_name") == "PostToolUse":
            return answer_post_tool_use(hook_input, excludes, environment)
        decided = decide(hook_input, permission_settings(hook_input, environment), excludes, read_only=read_only)
        return None if decided is None else decided.as_dict()

    return answer_one(answer, stdin, stdout)


def pre_tool_use_output(data: bytes, args: list[str], env: Mapping[str, str]) -> bytes | None:
    """What `run` prints for the call `data` (b"" for no answer), or None for a PostToolUse
    call: how the warm worker answers a hook process (`entry.py`), `env` being that
    process's variables. A PostToolUse answer analyses and writes in the hook's own store
    and folder, so it stays with the hook's process."""
    import io
    import json

    try:
        hook_input = json.loads(data)
    except Exception:  # noqa: BLE001 - `run` answers it as it does in-process: with nothing
        hook_input = None
    if isinstance(hook_input, dict) and hook_input.get("hook_event_name") == "PostToolUse":
        return None
    printed = io.StringIO()
    run(args, io.BytesIO(data), printed, env)
    return printed.getvalue().encode()


def answer_post_tool_use(
    hook_input: dict[str, Any], excludes: list[str], env: Mapping[str, str]
) -> dict[str, Any] | None:
    """The PostToolUse answer (None: leave the output), its ledger row written. The pipeline
    and the store are loaded only for an output worth analysing: this runs after every
    covered tool call, mostly small ones."""
    from tokenlab.agent.hooks import Rule
    from tokenlab.agent.launcher import opener
    from tokenlab.agent.post_tool_use import decide as decide_post

    tool_input = hook_input.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    rules = [Rule(pattern.strip()) for pattern in excludes if pattern.strip()]
    if isinstance(command, str) and any(rule.matches(command, loose=True) for rule in rules):
        return None
    with store_analysis() as analyse:
        replacement = decide_post(hook_input, read_file, analyse, opener(env.get("PATH")))
        if replacement is None or not record_replacement(
            analyse,
            hook_input,
            replacement.packet,
            replacement.visible_tokens,
            replacement.host_tokens,
            host="claude-code",
            event="PostToolUse",
        ):
            return None
    return replacement.as_dict()


def hook_options(args: list[str]) -> tuple[bool, list[str]]:
    """`--allow-read-only` and every `--exclude PATTERN`; anything else is ignored."""
    read_only, excludes = False, []
    items = iter(args)
    for arg in items:
        if arg == "--allow-read-only":
            read_only = True
        elif arg == "--exclude":
            excludes.append(next(items, ""))
        elif arg.startswith("--exclude="):
            excludes.append(arg.partition("=")[2])
    return read_only, excludes
