"""The native client (`native/tokens_client.c`): building it, and telling whether a built
one stands for this Python and this tokenlab.

Hooks and rewrites run before and for every shell command an agent runs, and even a
Python started with `-S` costs about as much as the goal for the whole call. The native
client answers the warm path (a plain `tokens run`, a Claude Code hook call) with no
Python process, and hands anything else to the launcher form it was built for. So it is
built for one Python (the worker's `sys.executable` check), one package folder and
version (the code stamp), baked in; `launcher.tokens_argv` names it only while those are
still this process's, and it is not older than its source. Without a C compiler nothing
is built, and every hook and rewrite names the Python launcher form.

Run as `python -m tokenlab.agent.native OUTPUT` (the Makefile does, into the venv).
"""

from __future__ import annotations

import os
import sys

from tokenlab import code_stamp

NATIVE_NAME = "tokens-native"
# The folder that holds the package (the repository, in an editable install), from this
# file's place in it: `<root>/tokenlab/agent/native.py`.
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCE = os.path.join(_ROOT, "native", "tokens_client.c")
# The C standard the client keeps to; `-O2`: it runs on every shell command.
_FLAGS = ("-std=c99", "-O2", "-Wall", "-Wextra")


def installed_path() -> str:
    """Where the Makefile puts the native client: beside this Python, in the venv."""
    return os.path.join(os.path.dirname(sys.executable), NATIVE_NAME)


_MARK = b"\ntokenlab-native-build\n"  # then the Python's path and the code stamp, a line each


def built_for(binary: bytes) -> tuple[str, str] | None:
    """The Python and the code stamp a client was built for, from its `BUILD_MARK`."""
    at = binary.find(_MARK)
    if at < 0:
        return None
    python, _, rest = binary[at + len(_MARK) :].partition(b"\n")
    stamp, newline, _ = rest.partition(b"\n")
    return (os.fsdecode(python), os.fsdecode(stamp)) if newline else None


def stands_for_this_python(python: str) -> bool:
    """Whether `python` is this process's Python: the same file in the same folder (a venv's
    `python` and `python3` are one interpreter; another venv's is not, though its links
    lead to the same one)."""
    here = sys.executable
    try:
        return os.path.dirname(python) == os.path.dirname(here) and os.path.samefile(python, here)
    except OSError:
        return False


def compile_command(output: str, compiler: str = "cc") -> list[str]:
    """The compiler's command line that builds the client for this Python into `output`."""
    from tokenlab import __version__
    defines = {
        "TOKENS_PYTHON": sys.executable,
        "TOKENS_ROOT": _ROOT,
        "TOKENS_VERSION": __version__,
        "TOKENS_STAMP": code_stamp(),
    }
    return [
        compiler,
        *_FLAGS,
        *(f"-D{name}={c_string(value)}" for name, value in defines.items()),
        "-o",
        output,
        SOURCE,
    ]


def c_string(text: str) -> str:
    """`text` as a C string literal: every byte but printable ASCII as an octal escape."""
    escaped = "".join(
        chr(byte) if 0x20 <= byte < 0x7F and byte not in b'"\\?' else f"\\{byte:03o}"
        for byte in text.encode(errors="surrogateescape")
    )
    return f'"{escaped}"'


def build(output: str, compiler: str = "cc") -> bool:
    """Compile the client into `output` (written whole, then renamed into place); whether it
    was built. A missing compiler is no error: the launcher form serves instead."""
    import subprocess

    partial = f"{output}.partial"
    try:
        done = subprocess.run(compile_command(partial, compiler), check=False)
    except OSError:
        return False
    if done.returncode != 0:
        return False
    os.replace(partial, output)
    return True


def current(path: str | None = None) -> bool:
    """Whether the client at `path` (default: `installed_path()`) is built for this Python
    (`stands_for_this_python`) and this tokenlab, runnable, and not older than its source."""
    path = path or installed_path()
    try:
        if not os.access(path, os.X_OK) or os.stat(path).st_mtime_ns < _source_time():
            return False
        with open(path, "rb") as handle:
            found = built_for(handle.read())
    except OSError:
        return False
    return found is not None and found[1] == code_stamp() and stands_for_this_python(found[0])


def _source_time() -> int:
    """The source's modification time; 0 where it is not shipped (no rebuild can be due)."""
    try:
        return os.stat(SOURCE).st_mtime_ns
    except OSError:
        return 0


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        sys.stderr.write("usage: python -m tokenlab.agent.native OUTPUT\n")
        return 2
    if not build(argv[0]):
        sys.stderr.write("tokens: no native client built (no C compiler?): hooks use the Python launcher\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
