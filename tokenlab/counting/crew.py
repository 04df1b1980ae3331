"""The tokenizer threads: thread 0 runs every analysis's counting jobs in turn (`_Crew`), and
a large count gets helper threads with encodings of their own (see the note below).

Names with a leading underscore are the `counting` package's own: `counter.py` uses them.
`concurrent.futures` (which loads `logging`) is imported at the first job: an analysis
with nothing to count (an empty command output) runs none.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from functools import partial

from tokenlab.counting import tokens

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor
    from typing import Any, TypeVar

    T = TypeVar("T")

# tiktoken's pre-tokenizer regex keeps a lock-free match cache for the first thread that
# uses it and makes every other thread take a lock for each match. Threads sharing one
# encoding contend on that lock: measured here, two together tokenize slower than one
# alone, and a later thread alone runs a third slower than the first. So all counting
# runs on one long-lived tokenizer thread, the first user of the process's encoding, and
# a large raw count gets helpers (`TokenCounter.start_raw` says when): further threads
# that each build an encoding of their own (about 0.2 s and 55 MB), take the analysis's
# jobs beside thread 0 and free the encoding when its queue runs empty. (In a process that
# tokenized on another thread first, such as a server that answered a budgeted read,
# thread 0 takes the slower path; counts are the same.)

_thread_state = threading.local()
_lanes: list[ThreadPoolExecutor] = []
_lanes_lock = threading.Lock()


def _thread_encoding() -> Any:
    """This thread's encoding: a helper's own, else the process's shared one."""
    return getattr(_thread_state, "encoding", None) or tokens.encoding()


def _lane(number: int) -> ThreadPoolExecutor:
    """Tokenizer thread `number` (0 runs every analysis's jobs; helpers from 1), started on first use."""
    from concurrent.futures import ThreadPoolExecutor

    with _lanes_lock:
        while len(_lanes) <= number:
            _lanes.append(ThreadPoolExecutor(1, f"tokenlab-tokenizer-{len(_lanes)}"))
        return _lanes[number]


class _Crew:
    """One analysis's tokenizer jobs, run in order on thread 0, with helpers for large ones.

    Thread 0 serves every analysis in the process: it runs one job of a crew, then queues
    the crew behind the others, so a small analysis is not kept waiting for a large one.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: deque[tuple[Future[Any], Callable[[], Any]]] = deque()
        self._queued = False  # a turn on thread 0 is queued or running
        # Jobs not yet done, for `close` to wait for: a done job's result (a raw count
        # block's chunk ends and counts, until the index takes them in) is not kept here.
        self._futures: set[Future[Any]] = set()

    def submit(self, function: Callable[..., T], *args: Any) -> Future[T]:
        """Queue a job."""
        from concurrent.futures import Future

        future: Future[T] = Future()
        self._futures.add(future)
        future.add_done_callback(self._futures.discard)
        with self._lock:
            self._jobs.append((future, partial(function, *args)))
            wake, self._queued = not self._queued, True
        if wake:
            _lane(0).submit(self._take_turn)
        return future

    def add_helpers(self, count: int) -> None:
        """Let `count` helper threads take this crew's jobs too, until its queue runs empty."""
        for number in range(1, count + 1):
            _lane(number).submit(self._help)

    def _next(self, helper: bool) -> tuple[Future[Any], Callable[[], Any]] | None:
        with self._lock:
            if self._jobs:
                return self._jobs.popleft()
            if not helper:
                self._queued = False
            return None

    def _take_turn(self) -> None:
        """Run this crew's next job on thread 0, then queue its next turn."""
        if (job := self._next(helper=False)) is not None:
            _run(*job)
            _lane(0).submit(self._take_turn)

    def _help(self) -> None:
        """Run jobs with an encoding of this thread's own while any are queued (none is
        built when the queue ran empty before this thread's turn came)."""
        if (job := self._next(helper=True)) is None:
            return
        _thread_state.encoding = tokens.new_encoding()
        try:
            while job is not None:
                _run(*job)
                job = self._next(helper=True)
        finally:
            _thread_state.encoding = None

    def close(self) -> None:
        """Cancel the jobs not started and wait for the running ones."""
        with self._lock:
            for future, _ in self._jobs:
                future.cancel()
                future.set_running_or_notify_cancel()  # as an executor would: now it is done
            self._jobs.clear()
        if self._futures:  # else `concurrent.futures` may not even be loaded
            from concurrent.futures import wait

            wait(list(self._futures))


def _run(future: Future[T], job: Callable[[], T]) -> None:
    if future.set_running_or_notify_cancel():
        try:
            future.set_result(job())
        except Exception as error:  # noqa: BLE001 (passed on: raised where the result is read)
            future.set_exception(error)
