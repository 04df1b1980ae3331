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

import json
import os
import stat
import sys
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import replace
from typing import TYPE_CHECKING, BinaryIO, TextIO

if TYPE_CHECKING:
    from tokenlab.packet import ContextPacket
    from tokenlab.store import Store


def run(
    args: list[str],
    stdin: BinaryIO | None = None,
    stdout: TextIO | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Answer one PreToolUse or PostToolUse call; always 0. Options: --allow-read-only,
    --exclude PATTERN (a PostToolUse call for a command it matches is not answered either)."""
    try:
        from tokenlab.agent.claude_settings import permission_settings
        from tokenlab.agent.hooks import decide

        read_only, excludes = hook_options(args)
        hook_input = json.loads((stdin or sys.stdin.buffer).read())
        if not isinstance(hook_input, dict):
            return 0
        environment = os.environ if env is None else env
        if hook_input.get("hook_event_name") == "PostToolUse":
            post = answer_post_tool_use(hook_input, excludes)
            if post is not None:
                out = stdout or sys.stdout
                out.write(json.dumps(post) + "\n")
                out.flush()
            return 0
        answer = decide(
            hook_input, permission_settings(hook_input, environment), excludes, read_only=read_only
        )
        if answer is not None:
            out = stdout or sys.stdout
            out.write(json.dumps(answer.as_dict()) + "\n")
            out.flush()
    except Exception:  # noqa: BLE001 - never fail closed: no answer runs the command as written
        return 0
    return 0


def answer_post_tool_use(hook_input: dict[str, object], excludes: list[str]) -> dict[str, object] | None:
    """The PostToolUse answer (None: leave the output), its ledger row written. The pipeline
    and the store are loaded only for an output worth analysing: this runs after every
    covered tool call, mostly small ones."""
    from tokenlab.agent.hooks import Rule
    from tokenlab.agent.post_tool_use import decide as decide_post

    tool_input = hook_input.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    rules = [Rule(pattern.strip()) for pattern in excludes if pattern.strip()]
    if isinstance(command, str) and any(rule.matches(command, loose=True) for rule in rules):
        return None
    with ExitStack() as stack:
        opened: list[Store] = []

        def analyse(data: bytes, label: str) -> ContextPacket:
            from tokenlab.optimizers import OptimizerConfig
            from tokenlab.pipeline import analyze
            from tokenlab.store import open_store

            opened.append(stack.enter_context(open_store()))
            return analyze(data, source=label, store=opened[0], config=OptimizerConfig(), redact_secrets=True)

        replacement = decide_post(hook_input, read_file, analyse)
        if replacement is None:
            return None
        from tokenlab import ledger

        call = ledger.call_fingerprint(
            str(hook_input.get("cwd", "")), str(hook_input.get("tool_name", "")), json.dumps(tool_input, sort_keys=True)
        )
        found = ledger.fingerprint(call, [replacement.packet.raw])
        repeat = ledger.repeat_of(opened[0].root, found)
        row = ledger.packet_record(replacement.packet, ledger.Kind.HOOK)
        # The same call with the same output just before: the agent wants more than the
        # visible text showed, so the host's own output goes through this time.
        visible = replacement.host_tokens if repeat.same_output else replacement.visible_tokens
        ledger.record(
            opened[0].root,
            replace(
                row,
                visible_tokens=visible,
                host_tokens=replacement.host_tokens,
                host="claude-code",
                event="PostToolUse",
                fingerprint=found,
                rerun=repeat.rerun,
            ),
        )
        if repeat.same_output:
            return None
    return replacement.as_dict()


def read_file(path: str, limit: int) -> bytes | None:
    """A regular file's bytes, or None when it is missing, unreadable or over `limit` bytes."""
    try:
        with open(path, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            data = handle.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None


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
