"""`heap.py`: large buffers mapped during a mapped analysis, in tokenlab's own processes."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

# In a fresh process: a 4 MB buffer freed raises glibc's dynamic threshold, after which
# buffers of 1 MB come from the heap, unless the threshold is fixed. glibc's `mallinfo2`
# counts the buffers that have a mapping of their own.
_MAPPED_BUFFERS = """
import ctypes, mmap, sys
from tokenlab.heap import map_large_buffers, own_the_heap
from tokenlab.mapped import paged

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MallInfo2
if sys.argv[1] == "owned":  # as `tokens` and the warm worker start
    own_the_heap()
if sys.argv[1] != "untouched":  # an analysis of a mapped input
    with paged(mmap.mmap(-1, 1 << 20)):
        pass
del bytearray(4 << 20)[:]
buffers = [bytearray(1 << 20) for _ in range(16)]
print(libc.mallinfo2().hblks, map_large_buffers())
"""


def _mapped_buffers(process: str) -> tuple[int, str]:
    printed = subprocess.check_output([sys.executable, "-c", _MAPPED_BUFFERS, process], text=True)
    count, fixed = printed.split()
    return int(count), fixed


glibc_only = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="a glibc setting")


@glibc_only
def test_a_mapped_analysis_in_tokenlabs_own_process_keeps_large_buffers_mapped() -> None:
    count, fixed = _mapped_buffers("owned")
    assert fixed == "True" and count >= 16


@glibc_only
def test_a_host_that_embeds_the_library_keeps_its_own_threshold() -> None:
    untouched, _ = _mapped_buffers("untouched")
    count, fixed = _mapped_buffers("embedded")
    assert untouched < 16  # the dynamic threshold at work: this test can tell
    assert fixed == "False" and count == untouched
