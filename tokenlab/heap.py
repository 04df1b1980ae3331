"""How the C heap serves the large buffers of an analysis of a mapped input.

glibc's malloc gives a buffer of 128 KB or more a mapping of its own, returned to the
system when it is freed; but each such buffer freed raises that threshold to its size (up
to 32 MB). From then on an analysis's transient buffers (1 MB excerpts, 4 MB pieces of
visible text, the tokenizer threads' blocks and their decoded text) come from the heap,
and once freed between long-lived small objects they stay resident as holes: on a 100 MB
diff the heap held about 100 MB free at its peak. A fixed threshold keeps such buffers
mapped, so what is freed is given back. Elsewhere than glibc this does nothing.

The threshold is the whole process's: a library must leave the C heap of a host that
embeds it as it found it. So only tokenlab's own processes (the `tokens` command, the warm
worker) let analyses set it, by calling `own_the_heap` as they start.
"""

from __future__ import annotations

_M_MMAP_THRESHOLD = -3  # mallopt's parameter number in glibc's malloc.h
# Buffers this large or larger are mapped. A fixed value also turns off the threshold's
# rise; smaller buffers are too many for a mapping each to be cheap.
MAPPED_BUFFER_BYTES = 256 << 10

# Whether this process is tokenlab's own, and whether the threshold is set (None: not tried).
_heap: dict[str, bool | None] = {"owned": False, "fixed": None}


def own_the_heap() -> None:
    """This process is tokenlab's own: its analyses may set the heap's threshold."""
    _heap["owned"] = True


def map_large_buffers() -> bool:
    """Fix glibc's mmap threshold at `MAPPED_BUFFER_BYTES` for the rest of the process,
    once, if the process is tokenlab's own (`own_the_heap`); whether it is set."""
    if not _heap["owned"]:
        return False
    if _heap["fixed"] is None:  # two threads may both set it: the same value, harmlessly
        _heap["fixed"] = _fix_threshold()
    return bool(_heap["fixed"])


def _fix_threshold() -> bool:
    """`ctypes` is imported here: only a large analysis needs it, and every call of a small
    one would pay for it."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own symbols: its C library's
    except (OSError, AttributeError):  # no such symbol: not glibc
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(_M_MMAP_THRESHOLD, MAPPED_BUFFER_BYTES))
