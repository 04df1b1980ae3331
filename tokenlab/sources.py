"""Input at the edge: reading a file or stdin, and finding a `.signals` sidecar."""

from __future__ import annotations

import sys
from pathlib import Path

from tokenlab.errors import InputError

SIGNALS_SUFFIX = ".signals"
# A reader's questions about a capture, with the answers read from the raw output: the
# readability check (`bench/reader_packets.py`) asks them of the visible text alone.
QUESTIONS_SUFFIX = ".questions.md"
SIDECAR_SUFFIXES = (SIGNALS_SUFFIX, QUESTIONS_SUFFIX)


def read_input(name: str) -> tuple[str, bytes]:
    """(source label, exact bytes) of a path, or of stdin for `-`."""
    if name == "-":
        return "<stdin>", sys.stdin.buffer.read()
    path = Path(name)
    try:
        return str(path), path.read_bytes()
    except IsADirectoryError:
        raise InputError(f"{name} is a directory, not a file") from None
    except OSError as error:
        raise InputError(f"cannot read {name}: {error.strerror or error}") from None


def is_sidecar(path: Path) -> bool:
    """A file that describes a capture beside it, not a capture itself."""
    return path.name.endswith(SIDECAR_SUFFIXES)


def read_signals(path: Path) -> tuple[str, ...]:
    """One expected substring per non-empty line; surrounding spaces are part of it."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read signals file {path}: {error}") from None
    return tuple(line for line in text.splitlines() if line.strip())


def signals_for(source: str, explicit: Path | None) -> tuple[str, ...]:
    """`--signals FILE` if given, else `SOURCE.signals` beside the input if it exists."""
    if explicit is not None:
        return read_signals(explicit)
    if source.startswith("<"):
        return ()
    sidecar = Path(source + SIGNALS_SUFFIX)
    return read_signals(sidecar) if sidecar.is_file() else ()
