"""How the C heap serves the large buffers of an analysis of a mapped input.

glibc's malloc gives a buffer of 128 KB or more a mapping of its own, returned to the
system when it is freed; but each such buffer freed raises that threshold to its size (up
to 32 MB). From then on an analysis's transient buffers (1 MB excerpts, 4 MB pieces of
visible text, the tokenizer threads' blocks and their decoded text) come from the heap,
and once freed between long-lived small objects they stay resident as holes: on a 100 MB
diff the heap held about 100 MB free at its peak. A fixed threshold keeps such buffers
mapped, so what is freed is given back. Elsewhere than glibc this does nothing.
"""

from __future__ import annotations

from functools import cache

_M_MMAP_THRESHOLD = -3  # mallopt's parameter number in glibc's malloc.h
# Buffers this large or larger are mapped. A fixed value also turns off the threshold's
# rise; smaller buffers are too many for a mapping each to be cheap.
MAPPED_BUFFER_BYTES = 256 << 10


@cache
def map_large_buffers() -> bool:
    """Fix glibc's mmap threshold at `MAPPED_BUFFER_BYTES` for the rest of the process
    (once); whether it was set. `ctypes` is imported here: only a large analysis needs it,
    and every call of a small one would pay for it."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own symbols: its C library's
    except (OSError, AttributeError):  # no such symbol: not glibc
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    return bool(mallopt(_M_MMAP_THRESHOLD, MAPPED_BUFFER_BYTES))
