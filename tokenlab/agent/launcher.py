"""How tokenlab names itself in the commands it writes for an agent host: by absolute path.

A host runs the hook command, and the command a PreToolUse rewrite puts in place of the
agent's, with whatever PATH its shell has: Codex's login shell resets it, and Claude Code's
is the one it was started with. Named `tokens`, a missing executable makes every hook and
every rewritten command fail, silently for the user. So installs and rewrites name this
Python by its absolute path with `-m tokenlab`, which needs no PATH and always runs the
tokenlab that wrote the command. `runs_tokenlab` recognises both forms, for settings written
by earlier versions and for commands the agent types itself.
"""

from __future__ import annotations

import posixpath
import shlex
import sys
from collections.abc import Sequence


def tokens_argv() -> list[str]:
    """tokenlab's command line by absolute paths: this Python, `-m tokenlab`."""
    return [sys.executable, "-m", "tokenlab"]


def tokens_command(*args: str) -> str:
    """`<python> -m tokenlab ARGS…`, quoted for a POSIX shell."""
    return shlex.join([*tokens_argv(), *args])


def runs_tokenlab(argv: Sequence[str]) -> bool:
    """Whether `argv` runs tokenlab: `…/tokens …` or `<python> -m tokenlab …`."""
    if not argv:
        return False
    return posixpath.basename(argv[0]) == "tokens" or list(argv[1:3]) == ["-m", "tokenlab"]


def tokenlab_args(argv: Sequence[str]) -> list[str]:
    """The arguments after tokenlab's own name in `argv` (which `runs_tokenlab`)."""
    return list(argv[1:]) if posixpath.basename(argv[0]) == "tokens" else list(argv[3:])
