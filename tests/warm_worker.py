"""A warm worker run on a thread of the test process, for the tests that talk to one, and
the modules a call the worker answers must not load."""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Iterator

from tokenlab.agent import worker

# What the standard library's wrappers would bring into a `tokens run` the worker answers:
# together they cost more than the rest of the call (see `capture.py`, `wire.py`).
NOT_FOR_A_WARM_RUN = {
    "site", "json", "re", "enum", "socket", "struct", "subprocess", "selectors", "threading",
    "signal", "shlex", "functools", "collections", "contextlib", "typing", "pathlib", "select", "zlib",
}  # fmt: skip


@contextlib.contextmanager
def serving_on_a_thread(root: str, codes: list[int]) -> Iterator[tuple[worker.Worker, threading.Thread]]:
    """A worker serving `root` on a thread (its exit code goes to `codes`), stopped after."""
    ready: queue.Queue[worker.Worker] = queue.Queue()
    thread = threading.Thread(target=lambda: codes.append(worker.serve(root, 60, ready.put)))
    thread.start()
    server = ready.get(timeout=60)
    try:
        yield server, thread
    finally:
        server.shutdown()  # returns at once if the worker stopped by itself
        thread.join(30)
