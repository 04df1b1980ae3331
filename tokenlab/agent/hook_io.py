"""What every agent host's hook entry shares (`claude_hook`, `codex_hook`, `gemini_hook`):
reading one call's JSON and printing the answer without ever failing closed, the pipeline
into the user's store opened only for an output worth analysing, and the ledger row of a
replacement, which also decides the re-fetch escape hatch.

The hook input is data: nothing in it is run, and no part of it is logged (the ledger keeps
counts, the command line with credentials masked, and a fingerprint).
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing on every call

if TYPE_CHECKING:
    from typing import Any, BinaryIO, TextIO

    from tokenlab.packet import ContextPacket
    from tokenlab.store import Store


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


def answer_one(
    answer: Callable[[dict[str, Any]], Mapping[str, Any] | None],
    stdin: BinaryIO | None = None,
    stdout: TextIO | None = None,
) -> int:
    """Read one hook call from `stdin`, print `answer`'s reply (nothing for None); always 0.
    Whatever goes wrong prints nothing, so the host goes on as if there were no hook: the
    command runs as written, the tool's own output stands."""
    try:
        hook_input = json.loads((stdin or sys.stdin.buffer).read())
        if not isinstance(hook_input, dict):
            return 0
        reply = answer(hook_input)
        if reply is not None:
            out = stdout or sys.stdout
            out.write(json.dumps(reply) + "\n")
            out.flush()
    except Exception:  # noqa: BLE001 - never fail closed
        return 0
    return 0


class StoreAnalysis:
    """`analyse(data, label)`: the pipeline into the user's store, opened on first use (most
    covered tool calls are small and never get that far)."""

    def __init__(self, stack: ExitStack) -> None:
        self._stack = stack
        self.store: Store | None = None

    def __call__(self, data: bytes, label: str) -> ContextPacket:
        from tokenlab.optimizers import OptimizerConfig
        from tokenlab.pipeline import analyze
        from tokenlab.store import open_store

        if self.store is None:
            self.store = self._stack.enter_context(open_store())
        return analyze(data, source=label, store=self.store, config=OptimizerConfig(), redact_secrets=True)


@contextmanager
def store_analysis() -> Iterator[StoreAnalysis]:
    with ExitStack() as stack:
        yield StoreAnalysis(stack)


def record_replacement(
    analysis: StoreAnalysis,
    hook_input: Mapping[str, Any],
    packet: ContextPacket,
    visible_tokens: int,
    host_tokens: int,
    *,
    host: str,
    event: str,
) -> bool:
    """Write the ledger row of a replacement; whether to replace. Not when the same call (tool
    and input, in the same folder) printed the same output just before: the agent wants more
    than the visible text showed, so the host's own output goes through this time (and is
    what the row counts)."""
    from tokenlab import ledger

    assert analysis.store is not None  # a replacement was analysed into it
    call = ledger.call_fingerprint(
        str(hook_input.get("cwd", "")),
        str(hook_input.get("tool_name", "")),
        json.dumps(hook_input.get("tool_input"), sort_keys=True),
    )
    row = ledger.packet_record(packet, ledger.Kind.HOOK)._replace(
        visible_tokens=visible_tokens,
        host_tokens=host_tokens,
        host=host,
        event=event,
        fingerprint=ledger.fingerprint(call, [packet.raw]),
    )
    repeat, _ = ledger.record_call(analysis.store.root, row, shown_on_repeat=host_tokens)
    return not repeat.same_output
