"""The Gemini CLI hook's entry: read the AfterTool JSON, answer, and never fail closed.

`tokens hook gemini` is installed for AfterTool only (see gemini_settings.py for why there is
no BeforeTool rewrite). `gemini_after_tool.decide` owns every rule; this entry hands it the
file reader and the pipeline into the user's store, writes the file the tail call reads and
the ledger row of a replacement (unless a policy or setting might refuse the tail
`read_file`: its refusal would then be all the model gets; policies given on Gemini's command
line are read from the processes above the hook, and when those cannot be read it answers
nothing; or the same call printed the same just before, `hook_io`), and deletes that file
when the tail call's own AfterTool comes back (which it never answers: answering it would
loop).

Whatever goes wrong (bad JSON, an unwritable folder, a bug) it prints nothing and exits 0,
so Gemini shows the tool's own output; exit 2 would block the tool's result, so options are
not parsed at all and extra arguments are ignored. The hook input is data: nothing in it is
run, and no part of it is logged (the ledger keeps counts and the command line, credentials
masked).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, BinaryIO, TextIO

from tokenlab.agent.hook_io import answer_one, read_file, record_replacement, store_analysis


def run(
    args: list[str],
    stdin: BinaryIO | None = None,
    stdout: TextIO | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Answer one AfterTool call; always 0. `args` are accepted and ignored."""
    environment = os.environ if env is None else env
    return answer_one(lambda hook_input: answer_after_tool(hook_input, environment), stdin, stdout)


def answer_after_tool(hook_input: dict[str, Any], env: Mapping[str, str]) -> dict[str, Any] | None:
    """The AfterTool answer (None: leave the output), its tail file and ledger row written."""
    from pathlib import Path

    from tokenlab.agent import gemini_after_tool as after_tool
    from tokenlab.agent.gemini_settings import command_line_policies, read_file_refusable
    from tokenlab.agent.host_env import ancestors

    done = after_tool.tail_file(hook_input, env)
    if done is not None:
        done.unlink(missing_ok=True)
    if hook_input.get("original_request_name"):
        return None
    folder = after_tool.tail_folder(hook_input, env)
    processes = ancestors()
    if folder is None or processes is None:
        return None
    project = Path(str(hook_input.get("cwd") or os.getcwd()))
    if read_file_refusable(env, project, command_line_policies(processes)):
        return None  # the tail call's refusal would replace the output
    with store_analysis() as analyse:
        replacement = after_tool.decide(hook_input, read_file, analyse)
        if replacement is None or not record_replacement(
            analyse,
            hook_input,
            replacement.packet,
            replacement.visible_tokens,
            replacement.host_tokens,
            host="gemini",
            event="AfterTool",
        ):
            return None
        path = after_tool.write_tail_file(folder, replacement.text)
    return after_tool.answer(path)
