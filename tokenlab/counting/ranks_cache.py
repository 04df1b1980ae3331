"""The tokenizer's ranks (token bytes -> rank), kept on disk between processes.

Building the encoding starts from those ranks. Parsing them from the vocabulary (3.6 MB
of base64 lines, unzipped and hash-checked first) takes about 100 ms of every process
that counts; loading them from this cache (`marshal`) about 35 ms. The cache is only
ever read back by the process that wrote it or one like it, so it trusts nothing:

- its header names the vocabulary it was parsed from (the pinned sha256 and size), this
  format's version and `marshal`'s, and the sha256 of the payload that follows; a file
  whose header differs or whose payload does not hash to it is ignored, and the caller
  rebuilds the ranks from the vocabulary and writes them again, silently;
- it is written to a temp file in its folder and renamed into place, so a reader sees a
  whole file or none, and concurrent writers (each writing the same ranks) leave one;
- nothing here fetches anything: the ranks come from the vocabulary `tokens.py` reads
  offline.

It lives in `$XDG_CACHE_HOME/tokenlab` (else `~/.cache/tokenlab`); a folder that cannot be
written only means the next process parses the vocabulary again.
"""

from __future__ import annotations

import hashlib
import marshal
import os

FORMAT = b"tokenlab-ranks 1"
_FOLDER = "tokenlab"


def path(vocabulary_sha256: str) -> str | None:
    """Where the ranks of the vocabulary with this sha256 are cached; None without a home
    folder (never a folder relative to wherever the command runs)."""
    cache_home = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(cache_home):  # unset, or relative: the XDG spec says to ignore it
        cache_home = os.path.join(os.path.expanduser("~"), ".cache")
    if not os.path.isabs(cache_home):
        return None
    return os.path.join(cache_home, _FOLDER, f"o200k_base-{vocabulary_sha256[:16]}.ranks")


def _header(vocabulary_sha256: str, vocabulary_size: int, payload_sha256: str) -> bytes:
    fields = (vocabulary_sha256, str(vocabulary_size), str(marshal.version), payload_sha256)
    return FORMAT + b" " + " ".join(fields).encode() + b"\n"


def read_payload(cache_path: str | None, vocabulary_sha256: str, vocabulary_size: int) -> bytes | None:
    """The cached ranks, still serialized, if the file is whole and made from this
    vocabulary; else None. Reading and hashing let other threads run (`prefetch`)."""
    if cache_path is None:
        return None
    try:
        with open(cache_path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    header, newline, payload = data.partition(b"\n")
    expected = _header(vocabulary_sha256, vocabulary_size, hashlib.sha256(payload).hexdigest())
    return payload if newline and header + newline == expected else None


def ranks_of(payload: bytes) -> dict[bytes, int] | None:
    """The ranks a checked payload holds (None if it holds something else)."""
    try:
        ranks = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return None
    return ranks if isinstance(ranks, dict) else None


def write(cache_path: str | None, ranks: dict[bytes, int], vocabulary_sha256: str, vocabulary_size: int) -> None:
    """Cache `ranks` for the next process; a failure to write leaves no file and is ignored."""
    if cache_path is None:
        return
    import tempfile

    payload = marshal.dumps(ranks)
    header = _header(vocabulary_sha256, vocabulary_size, hashlib.sha256(payload).hexdigest())
    folder = os.path.dirname(cache_path)
    try:
        os.makedirs(folder, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=folder, prefix=".ranks-")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(header + payload)
        os.replace(temp, cache_path)
    except OSError:
        try:
            os.unlink(temp)
        except OSError:
            pass
