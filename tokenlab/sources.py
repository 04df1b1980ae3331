"""Input at the edge: reading a file or stdin, and finding a `.signals` sidecar.

A large input is mapped from a file rather than read into memory: the input file itself,
or for stdin a spool file with no name in the store's folder (`spooled`), so that an
analysis of a gigabyte log does not hold a gigabyte.
`mapped.py` says what a mapping offers and how passes over it give its pages back.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from tokenlab.errors import InputError
from tokenlab.mapped import FAULT_AROUND, RawInput, close, mapped_file
from tokenlab.spool import unnamed_file

SIGNALS_SUFFIX = ".signals"
# A reader's questions about a capture, with the answers read from the raw output: the
# readability check (`bench/reader_packets.py`) asks them of the visible text alone.
QUESTIONS_SUFFIX = ".questions.md"
SIDECAR_SUFFIXES = (SIGNALS_SUFFIX, QUESTIONS_SUFFIX)
SPOOL_FOLDER = "spool"  # in the store folder: large standard input, spooled to be mapped
_COPY_BYTES = 1 << 20


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


@contextmanager
def opened_input(
    name: str, spool_folder: Path | None, stdin_head: bytes = b""
) -> Iterator[tuple[str, RawInput]]:
    """(source label, exact bytes) of a path, or of stdin for `-` (of which the caller may
    have read `stdin_head` already): mapped when large, and unmapped on leaving."""
    try:
        label, raw = _opened(name, spool_folder, stdin_head)
    except IsADirectoryError:
        raise InputError(f"{name} is a directory, not a file") from None
    except OSError as error:
        raise InputError(f"cannot read {name}: {error.strerror or error}") from None
    try:
        yield label, raw
    finally:
        close(raw)


def _opened(name: str, spool_folder: Path | None, stdin_head: bytes) -> tuple[str, RawInput]:
    if name == "-":
        stdin = sys.stdin.buffer
        head = stdin_head or stdin.read(_COPY_BYTES)
        if not stdin_head and len(head) < _COPY_BYTES:  # the whole input: no spool needed
            return "<stdin>", head
        return "<stdin>", spooled(head, stdin, spool_folder)
    with open(name, "rb") as file:
        return str(Path(name)), mapped_file(file)


def spooled(head: bytes, rest: IO[bytes], folder: Path | None) -> RawInput:
    """`head` and then all of `rest`, written to a file with no name: mapped when large,
    else read back (`mapped_file`), so that stdin is never held twice while it is read.

    Written `FAULT_AROUND` bytes at a time: the page cache keeps each write's bytes in one
    block (a folio) as large as the write, and a read of the mapping maps the whole block it
    falls in. Spooled a MB at a time, every line read mapped 1 MB of a 200 MB log instead
    of 64 KB, and the passes reading lines here and there held 70 MB more than from a file."""
    if folder is not None:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    with unnamed_file(folder, buffering=0) as spool:
        _write_in_pieces(spool, head)
        while piece := rest.read(FAULT_AROUND):
            _write_in_pieces(spool, piece)
        return mapped_file(spool)


def _write_in_pieces(file: IO[bytes], data: bytes) -> None:
    """All of `data`, in writes of at most `FAULT_AROUND` bytes."""
    view = memoryview(data)
    for start in range(0, len(view), FAULT_AROUND):
        piece = view[start : start + FAULT_AROUND]
        while piece:
            piece = piece[file.write(piece) :]


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
