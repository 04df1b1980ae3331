"""A finished `tokens run` analysed in the process that ran its command (no warm worker
answered it).

A command that printed nothing and succeeded (`true`, `mkdir`, `cp`, a quiet build step:
an agent runs many) has an answer known without analysing anything. It prints nothing: an
empty text needs no footer, and a success no closing line. Its ledger row counts no
tokens, no bytes and no refs. Importing the pipeline, the ref store and the tokenizer's
module to learn that took some 45 ms of a cold call's CPU time, three to four times
Python's own start-up, so `silent_answer` writes the row itself and imports only the
ledger and what names the command (`command_line.py`), none of which defines a
dataclass (`dataclasses` and the `inspect` under it were a fifth of such a call). A test
keeps its answer and its row equal to the pipeline's.

Any other run goes to `run.finish_request`, the vocabulary read on a thread meanwhile
(about 3 ms from the ranks cache, beside some 25 ms of the pipeline's imports).
"""

from __future__ import annotations

import time

from tokenlab import ledger
from tokenlab.agent import command_line

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from typing import Any

    from tokenlab.agent.capture import Capture
    from tokenlab.spooled_text import SpooledText

# The type the pipeline gives an empty input: of the registry's detectors only the last,
# plain text's, recognises it (`classify`). A test keeps the two equal.
EMPTY_INPUT_TYPE = "text"


def finish_here(
    request: dict[str, Any], capture: Capture, *, folder_store: bool
) -> tuple[int, bytes | SpooledText, bytes]:
    """What `tokens run` prints for `capture`, its ledger row written (see `run.finish_request`).
    A database store is opened by the pipeline's path (opening it checks the connection)."""
    answer = silent_answer(request, capture) if folder_store else None
    if answer is not None:
        return answer
    from tokenlab.counting import tokens

    tokens.prefetch_vocabulary()
    from tokenlab.agent.run import finish_request

    return finish_request(request, capture)


def silent_answer(request: dict[str, Any], capture: Capture) -> tuple[int, bytes, bytes] | None:
    """What `tokens run` prints for a command that printed nothing and succeeded, its ledger
    row written as `run.output` writes it into the folder store `request` names; None for
    any other run, and for `--json` and `--trace` (they print the analysis)."""
    if capture.status != 0 or capture.size() or request["as_json"] or request["trace"]:
        return None
    line = request["shell"]
    named = command_line.of_shell(line) if line is not None else command_line.of_args(request["command"])
    argv, display = named
    call = ledger.call_fingerprint(str(request["cwd"]), *argv)
    row = ledger.Record(
        time=time.time(),
        kind=ledger.Kind.RUN,
        source=display,
        content_type=EMPTY_INPUT_TYPE,
        raw_bytes=0,
        raw_tokens=0,
        visible_tokens=0,
        refs=0,
        exit_status=capture.status,
        duration=capture.duration,
        host=request["host"],
        fingerprint=ledger.fingerprint(call, [b"" for _ in capture.spools]),
    )
    _, problem = ledger.record_call(str(request["store"]), row, shown_on_repeat=0)
    return capture.status, b"", f"tokens: warning: {problem}\n".encode() if problem else b""
