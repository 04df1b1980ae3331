"""The Codex hook's entry (`tokens hook codex`): read the hook JSON, answer, never fail closed.

It is installed for two events and tells them apart by the input's `hook_event_name`:

- PreToolUse, before every shell command: `codex_rewrite.decide` owns the rule, with the
  exec-policy rules that apply in the call's working folder (`codex_rules.load_rules`).
- PostToolUse, after an MCP tool (`mcp__<server>__<tool>`): a large result is replaced by
  tokenlab's visible text with `{"decision": "block", "reason": <text>}`, the one answer
  Codex 0.169.0 honours (it replaces the whole output the model receives; docs/hosts.md).
  `post_tool_use.replacement_for` owns when a replacement pays; the ledger row names
  host "codex" and event "PostToolUse", with what Codex would have shown as `host_tokens`.
  The same call printing the same result just before is left as Codex shows it (`hook_io`).

It only parses and answers. Whatever goes wrong (bad JSON, an unreadable rules file, a bug)
it prints nothing and exits 0, so Codex runs the command as written and shows the tool's
own output; extra arguments are ignored. Nothing in the hook input is run or logged.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

from tokenlab.agent.hook_io import answer_one, record_replacement, store_analysis
from tokenlab.agent.launcher import tokens_argv

if TYPE_CHECKING:
    from tokenlab.agent.post_tool_use import Plan

# Codex cuts a tool output it shows the model to about this many characters, keeping the
# head and the tail (measured for MCP results: 12,020 characters with its header).
CODEX_CAP = 12_000
HOST = "codex"


def run(
    args: list[str],
    stdin: BinaryIO | None = None,
    stdout: TextIO | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Answer one PreToolUse or PostToolUse call; always 0. `args` are ignored."""
    environment = os.environ if env is None else env

    def answer(hook_input: dict[str, Any]) -> Mapping[str, Any] | None:
        event = hook_input.get("hook_event_name")
        if event == "PreToolUse":
            return answer_pre_tool_use(hook_input, environment)
        if event == "PostToolUse":
            return answer_post_tool_use(hook_input)
        return None

    return answer_one(answer, stdin, stdout)


def answer_pre_tool_use(hook_input: Mapping[str, Any], env: Mapping[str, str]) -> dict[str, Any] | None:
    from tokenlab.agent.codex_rewrite import decide, wrapper
    from tokenlab.agent.codex_rules import Unreadable, load_rules

    cwd = Path(str(hook_input.get("cwd") or os.getcwd()))
    try:
        rules = load_rules(cwd, env)
    except Unreadable:
        return None
    store = store_folder(env)
    if store is not None:
        Path(store).mkdir(parents=True, exist_ok=True)  # the hook runs outside the sandbox
    return decide(hook_input, rules, wrapper(tokens_argv(), store))


def store_folder(env: Mapping[str, str]) -> str | None:
    """The store folder this hook writes to, as an absolute path (a relative one is taken
    from the hook's own folder, like its own store); None for a PostgreSQL store, whose URL
    may hold a password and must not be written into a command."""
    from tokenlab.store.resolve import store_value

    value = store_value(env.get("TOKENLAB_STORE"))
    if "://" in value:
        return None
    return str(Path(value).expanduser().absolute())


def answer_post_tool_use(hook_input: Mapping[str, Any]) -> dict[str, Any] | None:
    """`block` with the visible text of a large MCP result (None: leave it), its ledger row written."""
    from tokenlab.agent.post_tool_use import replacement_for

    plan = mcp_plan(hook_input)
    if plan is None:
        return None
    with store_analysis() as analyse:
        replacement = replacement_for(plan, analyse)
        if replacement is None or not record_replacement(
            analyse,
            hook_input,
            replacement.packet,
            replacement.visible_tokens,
            replacement.host_tokens,
            host=HOST,
            event="PostToolUse",
        ):
            return None
    return {"decision": "block", "reason": replacement.output}


def mcp_plan(hook_input: Mapping[str, Any]) -> Plan | None:
    """What to analyse of an MCP tool's result: its text blocks, joined. Codex shows the
    model the structured content as JSON when there is some, else the blocks."""
    from tokenlab.agent.post_tool_use import Plan

    tool = hook_input.get("tool_name")
    response = hook_input.get("tool_response")
    if not isinstance(tool, str) or not tool.startswith("mcp__") or not isinstance(response, Mapping):
        return None
    blocks = response.get("content")
    if response.get("isError") or not isinstance(blocks, list) or not blocks:
        return None
    if not all(
        isinstance(b, Mapping) and b.get("type") == "text" and isinstance(b.get("text"), str) for b in blocks
    ):
        return None
    text = "\n".join(block["text"] for block in blocks)
    structured = response.get("structuredContent")
    shown = json.dumps(structured, separators=(",", ":"), ensure_ascii=False) if structured else text
    return Plan(text.encode("utf-8"), tool, host_view(shown), lambda visible: visible, cap=CODEX_CAP)


def host_view(text: str) -> str:
    """About what Codex shows the model for a tool output `text`: its head and tail when long."""
    if len(text) <= CODEX_CAP:
        return text
    half = CODEX_CAP // 2
    return f"{text[:half]}…{len(text) - CODEX_CAP} chars truncated…{text[-half:]}"
