"""The Claude Code hook's entry: read the hook JSON, answer, and never fail closed.

`tokens hook claude-code` runs this before every Bash command the agent issues, so it
imports only the standard library and the hook's own modules (no typer, no pipeline):
the command line can call `run` straight from `tokenlab.entry` without building the app.
It only parses and answers (`hooks.decide` owns every rule). Whatever goes wrong (bad
JSON, an unreadable file, a bug) it prints nothing, so Claude Code runs the original
command under its own permission checks; and since Claude Code reads exit code 2 as
"block this tool call", options are parsed by hand here and unknown ones ignored.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import BinaryIO, TextIO


def run(
    args: list[str],
    stdin: BinaryIO | None = None,
    stdout: TextIO | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Answer one PreToolUse call; always 0. Options: --allow-read-only, --exclude PATTERN."""
    try:
        from tokenlab.agent.claude_settings import permission_settings
        from tokenlab.agent.hooks import decide

        read_only, excludes = hook_options(args)
        hook_input = json.loads((stdin or sys.stdin.buffer).read())
        if not isinstance(hook_input, dict):
            return 0
        environment = os.environ if env is None else env
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
