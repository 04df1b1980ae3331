"""How `tokens run` names a command: what it executes, and the one line that shows it in
visible text and in the ledger.

Apart from `run.py`, which loads the pipeline, so that a run answered without the
pipeline (`run_here.py`) names its command exactly as one analysed by it.
"""

from __future__ import annotations

import shlex

from tokenlab import markers
from tokenlab.agent.capture import SHELL
from tokenlab.errors import InputError

_DISPLAY_LIMIT = 200


def of_args(args: list[str] | tuple[str, ...]) -> tuple[tuple[str, ...], str]:
    """A command given as arguments (they go straight to `exec`): its argv and its line."""
    if not args:
        raise InputError("no command given: tokens run [OPTIONS] -- CMD [ARGS...]")
    return tuple(args), display_line(shlex.join(args))


def of_shell(line: str) -> tuple[tuple[str, ...], str]:
    """A `--shell` line (one argument to `/bin/sh -c`): its argv and its line."""
    if not line.strip():
        raise InputError("--shell needs a command line")
    return (SHELL, "-c", line), display_line(line)


def display_line(command: str) -> str:
    """A command line as one line of visible text: newlines shown as `\\n`, bytes that are
    not UTF-8 (an argument the system gave as bytes) as `\\xff`, credentials masked, marker
    look-alikes escaped, at most 200 characters."""
    from tokenlab.ledger import masked

    readable = command.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    line = masked(readable.replace("\r", "\\r").replace("\n", "\\n"))
    if len(line) > _DISPLAY_LIMIT:
        line = line[: _DISPLAY_LIMIT - 1] + "…"
    return markers.escape_literal_markers(line)
