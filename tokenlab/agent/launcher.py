"""How tokenlab names itself in the commands it writes for an agent host: by absolute path.

A host runs the hook command, and the command a PreToolUse rewrite puts in place of the
agent's, with whatever PATH its shell has: Codex's login shell resets it, and Claude Code's
is the one it was started with. Named `tokens`, a missing executable makes every hook and
every rewritten command fail, silently for the user. So installs and rewrites name this
Python by its absolute path, which needs no PATH and always runs the tokenlab that wrote
the command, and run tokenlab's `__main__.py` by its absolute path with `-S`: these run
before and for every shell command, and skipping `site` (set up later only if the command
needs it, see `tokenlab/__main__.py`) halves Python's start-up. Where the native client
was built for this Python and this tokenlab (`native.py`), they name it instead: it
answers the warm path with no Python process and hands the rest to that launcher form.
A hint the agent reads
names it as `tokens`, or `<python> -m tokenlab` (`opener`): shorter to read and to type,
and a drill-down is not paid on every command. `runs_tokenlab` recognises every form, for
settings written by earlier versions and for commands the agent types itself.
"""

from __future__ import annotations

import os
import posixpath
import sys

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing on every call

if TYPE_CHECKING:
    from collections.abc import Sequence


# The package's entry file, run by path: `<folder>/tokenlab/__main__.py`.
_ENTRY_FILE = posixpath.join(posixpath.dirname(posixpath.dirname(posixpath.abspath(__file__))), "__main__.py")
_ENTRY_SUFFIX = "/tokenlab/__main__.py"
# Executables that are tokenlab by name: the console script, and the native client.
_NAMES = ("tokens", "tokens-native")


def tokens_argv() -> list[str]:
    """tokenlab's command line for hooks and rewrites, by absolute path: the native client
    built for this Python and this tokenlab (`native.py`) when there is one, else this
    Python, `-S`, the package's `__main__.py`."""
    from tokenlab.agent import native

    path = native.installed_path()
    return [path] if native.current(path) else python_argv()


def python_argv() -> list[str]:
    """The launcher form: this Python, `-S`, the package's `__main__.py`."""
    return [sys.executable, "-S", _ENTRY_FILE]


def tokens_command(*args: str) -> str:
    """`<python> -S <folder>/tokenlab/__main__.py ARGS…`, quoted for a POSIX shell."""
    return " ".join(shell_quote(arg) for arg in [*tokens_argv(), *args])


def module_command() -> str:
    """`<python> -m tokenlab`, quoted for a POSIX shell: how a hint names tokenlab where
    `tokens` is not on the PATH."""
    return " ".join(shell_quote(arg) for arg in [sys.executable, "-m", "tokenlab"])


# What `shlex.quote` leaves bare: its `[\w@%+=:,./-]`, ASCII only.
_BARE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-")


def shell_quote(word: str) -> str:
    """`word` as `shlex.quote` quotes it for a POSIX shell. Not `shlex` itself: it imports
    `re`, and with it `enum` and `functools`, about 5 ms of a `tokens run` whose footer
    names tokenlab by this Python's path."""
    if word and all(char in _BARE for char in word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def opener(path: str | None = None) -> str:
    """How a hint tells the agent to run tokenlab: `tokens` where `path` (default: this
    process's PATH, which a hook and `tokens run` share with the host's shell) finds it, else
    `<python> -m tokenlab`. Only then, because every compressed output pays for the hint's tokens."""
    return "tokens" if _on_path("tokens", path) else module_command()


def _on_path(name: str, path: str | None) -> bool:
    """Whether `name` is an executable file in a folder of `path` (default: $PATH), as
    `shutil.which` finds it on POSIX. Not `shutil` itself: it imports its compression
    modules, about 4 ms of every `tokens run`."""
    folders = (os.environ.get("PATH", os.defpath) if path is None else path).split(os.pathsep)
    for folder in folders:
        candidate = os.path.join(folder, name)
        if os.path.exists(candidate) and os.access(candidate, os.X_OK) and not os.path.isdir(candidate):
            return True
    return False


def runs_tokenlab(argv: Sequence[str]) -> bool:
    """Whether `argv` runs tokenlab: `…/tokens …`, `…/tokens-native …`, `<python> -m tokenlab …` or
    `<python> -S …/tokenlab/__main__.py …`."""
    if not argv:
        return False
    if posixpath.basename(argv[0]) in _NAMES or list(argv[1:3]) == ["-m", "tokenlab"]:
        return True
    return len(argv) > 2 and argv[1] == "-S" and argv[2].endswith(_ENTRY_SUFFIX)


def tokenlab_args(argv: Sequence[str]) -> list[str]:
    """The arguments after tokenlab's own name in `argv` (which `runs_tokenlab`)."""
    return list(argv[1:]) if posixpath.basename(argv[0]) in _NAMES else list(argv[3:])
