"""`heap.py`: large buffers mapped, and given back once freed, during a mapped analysis."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

from tokenlab import heap

# In a fresh process: a 4 MB buffer freed raises glibc's dynamic threshold, so 64 buffers
# of 1 MB then come from the heap, where one small object kept after each pins its end.
_HOLES = """
import sys
from tokenlab.heap import map_large_buffers
if sys.argv[1] == "fixed":
    assert map_large_buffers()
del bytearray(4 << 20)[:]
buffers, pins = [], []
for _ in range(64):
    buffers.append(bytearray(1 << 20))
    pins.append(str(len(pins)) * 300)
del buffers
for line in open("/proc/self/status"):
    if line.startswith("RssAnon:"):
        print(int(line.split()[1]) // 1024)
"""


def _rss_after_freeing(setting: str) -> int:
    return int(subprocess.check_output([sys.executable, "-c", _HOLES, setting], text=True))


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="a glibc setting")
def test_freed_large_buffers_are_given_back_once_the_threshold_is_fixed() -> None:
    assert heap.map_large_buffers()
    assert _rss_after_freeing("dynamic") >= _rss_after_freeing("fixed") + 32
