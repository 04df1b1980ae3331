"""The Gemini CLI hook's entry: read the AfterTool JSON, answer, and never fail closed.

`tokens hook gemini` is installed for AfterTool only (see gemini_settings.py for why there is
no BeforeTool rewrite). `gemini_after_tool.decide` owns every rule; this entry hands it the
file reader and the pipeline into the user's store, writes the file the tail call reads and
the ledger row of a replacement (unless a policy or setting might refuse the tail
`read_file`: its refusal would then be all the model gets), and deletes that file when the tail call's own AfterTool
comes back (which it never answers: answering it would loop).

Whatever goes wrong (bad JSON, an unwritable folder, a bug) it prints nothing and exits 0,
so Gemini shows the tool's own output; exit 2 would block the tool's result, so options are
not parsed at all and extra arguments are ignored. The hook input is data: nothing in it is
run, and no part of it is logged (the ledger keeps counts and the command line, credentials
masked).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from contextlib import ExitStack
from dataclasses import replace
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

if TYPE_CHECKING:
    from tokenlab.packet import ContextPacket
    from tokenlab.store import Store


def run(
    args: list[str],
    stdin: BinaryIO | None = None,
    stdout: TextIO | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Answer one AfterTool call; always 0. `args` are accepted and ignored."""
    try:
        hook_input = json.loads((stdin or sys.stdin.buffer).read())
        if not isinstance(hook_input, dict):
            return 0
        result = answer_after_tool(hook_input, os.environ if env is None else env)
        if result is not None:
            out = stdout or sys.stdout
            out.write(json.dumps(result) + "\n")
            out.flush()
    except Exception:  # noqa: BLE001 - never fail closed: no answer shows the tool's own output
        return 0
    return 0


def answer_after_tool(hook_input: dict[str, Any], env: Mapping[str, str]) -> dict[str, Any] | None:
    """The AfterTool answer (None: leave the output), its tail file and ledger row written."""
    from pathlib import Path

    from tokenlab.agent import gemini_after_tool as after_tool
    from tokenlab.agent.claude_hook import read_file
    from tokenlab.agent.gemini_settings import read_file_refusable

    done = after_tool.tail_file(hook_input, env)
    if done is not None:
        done.unlink(missing_ok=True)
    if hook_input.get("original_request_name"):
        return None
    folder = after_tool.tail_folder(hook_input, env)
    if folder is None or read_file_refusable(env, Path(str(hook_input.get("cwd") or os.getcwd()))):
        return None  # the tail call's refusal would replace the output
    with ExitStack() as stack:
        opened: list[Store] = []

        def analyse(data: bytes, label: str) -> ContextPacket:
            from tokenlab.optimizers import OptimizerConfig
            from tokenlab.pipeline import analyze
            from tokenlab.store import open_store

            opened.append(stack.enter_context(open_store()))
            return analyze(data, source=label, store=opened[0], config=OptimizerConfig(), redact_secrets=True)

        replacement = after_tool.decide(hook_input, read_file, analyse)
        if replacement is None:
            return None
        path = after_tool.write_tail_file(folder, replacement.text)
        from tokenlab import ledger

        row = ledger.packet_record(replacement.packet, ledger.Kind.HOOK)
        ledger.record(
            opened[0].root,
            replace(
                row,
                visible_tokens=replacement.visible_tokens,
                host_tokens=replacement.host_tokens,
                host="gemini",
                event="AfterTool",
            ),
        )
    return after_tool.answer(path)
