"""Running a command and spooling what it prints: the part of `tokens run` that happens
where the command runs (see `run.py` for the rest, and why it is shaped this way).

This module imports only the standard library and `tokenlab.errors`, so that the short
`tokens run` process that hands its analysis to the warm worker loads nothing else.
"""

from __future__ import annotations

import io
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tokenlab.errors import TokenlabError

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing on every call

if TYPE_CHECKING:
    from typing import IO

    from tokenlab.mapped import RawInput

SHELL = "/bin/sh"  # what runs a `--shell` line, as `SHELL -c LINE`
SPOOL_FOLDER = "spool"  # in the store folder: output spooled while a command runs
TIMEOUT_STATUS = 124  # what `timeout(1)` exits with when it ended the command
KILL_GRACE = 2.0  # seconds between SIGTERM and SIGKILL to the process group
_AFTER_KILL = 1.0  # seconds to wait for EOF after SIGKILL (a process outside the group may hold the pipe)
_CHUNK = 1 << 20
_PROGRESS_EVERY = 0.2
_FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

Progress = Callable[[int, float], None]  # (bytes captured so far, seconds since start)


class CommandNotRunError(TokenlabError):
    """The command could not be started: 127 when not found, 126 when not executable."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class Limits:
    """How to capture: the streams apart or together, and when to end the command."""

    __slots__ = ("kill_grace", "split", "timeout")

    def __init__(
        self, split: bool = False, timeout: float | None = None, kill_grace: float = KILL_GRACE
    ) -> None:
        self.split, self.timeout, self.kill_grace = split, timeout, kill_grace


class Capture:
    """A finished command: its status, and its output spooled (stream name -> file)."""

    def __init__(self, spools: dict[str, IO[bytes]], status: int = 0, duration: float = 0.0) -> None:
        self.spools = spools
        self.status, self.duration = status, duration
        self.timed_out = False
        self.killed = False  # SIGKILL was needed after the timeout's SIGTERM

    @classmethod
    def of_bytes(cls, outputs: dict[str, bytes], status: int, duration: float) -> Capture:
        """A capture whose output arrived here as bytes (the warm worker's side)."""
        return cls({name: io.BytesIO(data) for name, data in outputs.items()}, status, duration)

    def size(self) -> int:
        """Bytes captured, over every stream."""
        return sum(spool.seek(0, os.SEEK_END) for spool in self.spools.values())

    def read(self, stream: str) -> RawInput:
        """What the stream printed: mapped from its spool when large (`tokenlab/mapped.py`;
        the mapping outlives the spool's closing), else read."""
        spool = self.spools[stream]
        if isinstance(spool, io.BytesIO):
            return spool.getvalue()
        from tokenlab.mapped import mapped_file

        return mapped_file(spool)

    def close(self) -> None:
        _close_all(self.spools)


def _unnamed_file(folder: str) -> IO[bytes]:
    """A file with no name (O_TMPFILE): nothing is left behind, however this process ends."""
    try:
        descriptor = os.open(folder, os.O_TMPFILE | os.O_RDWR, 0o600)
    except (AttributeError, OSError):
        import tempfile

        return tempfile.TemporaryFile(dir=folder, buffering=0)
    return os.fdopen(descriptor, "w+b", buffering=0)


def capture_output(
    argv: tuple[str, ...],
    spool_folder: str,
    limits: Limits,
    progress: Progress | None = None,
) -> Capture:
    """Run `argv` to its end (or its timeout), spooling its output as it arrives."""
    names = ("stdout", "stderr") if limits.split else ("output",)
    os.makedirs(spool_folder, mode=0o700, exist_ok=True)
    spools = {name: _unnamed_file(spool_folder) for name in names}
    started = time.monotonic()
    try:
        child = subprocess.Popen(
            argv,
            stdin=None,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if limits.split else subprocess.STDOUT,
            start_new_session=True,
        )
    except FileNotFoundError:
        _close_all(spools)
        raise CommandNotRunError(f"command not found: {argv[0]}", 127) from None
    except PermissionError:
        _close_all(spools)
        raise CommandNotRunError(f"permission denied: {argv[0]}", 126) from None
    except BaseException:
        _close_all(spools)
        raise
    capture = Capture(spools)
    pipes = [p for p in (child.stdout, child.stderr) if p is not None]
    with _forwarding_signals(child.pid):
        _pump(child, dict(zip(pipes, spools.values())), capture, limits, started, progress)
    code = child.returncode
    capture.status = TIMEOUT_STATUS if capture.timed_out else (128 - code if code < 0 else code)
    capture.duration = time.monotonic() - started
    return capture


def _close_all(spools: dict[str, IO[bytes]]) -> None:
    for spool in spools.values():
        spool.close()


class _Deadline:
    """The timeout's steps: running → SIGTERM sent → SIGKILL sent → give up on the pipes."""

    def __init__(self, child: subprocess.Popen[bytes], capture: Capture, limits: Limits, started: float):
        self.child, self.capture, self.limits = child, capture, limits
        self.at = started + limits.timeout if limits.timeout is not None else None
        self.step = 0

    def remaining(self) -> float | None:
        return None if self.at is None else max(0.0, self.at - time.monotonic())

    def check(self) -> bool:
        """Take the next step if its time has come; False once the pipes should be abandoned."""
        if self.at is None or time.monotonic() < self.at:
            return True
        self.step += 1
        if self.step == 1:
            self.capture.timed_out = True
            _signal_group(self.child.pid, signal.SIGTERM)
            self.at = time.monotonic() + self.limits.kill_grace
        elif self.step == 2:
            if self.child.poll() is None or _group_alive(self.child.pid):
                self.capture.killed = True
                _signal_group(self.child.pid, signal.SIGKILL)
            self.at = time.monotonic() + _AFTER_KILL
        return self.step < 3


def _pump(
    child: subprocess.Popen[bytes],
    sinks: dict[IO[bytes], IO[bytes]],
    capture: Capture,
    limits: Limits,
    started: float,
    progress: Progress | None,
) -> None:
    """Copy the pipes into the spools until they close and the child exits (or the timeout)."""
    deadline = _Deadline(child, capture, limits, started)
    captured, reported = 0, 0.0
    with selectors.DefaultSelector() as selector:
        for pipe in sinks:
            selector.register(pipe, selectors.EVENT_READ)
        while selector.get_map():
            if not deadline.check():
                break
            wait = _shortest(deadline.remaining(), _PROGRESS_EVERY if progress else None)
            for key, _ in selector.select(wait):
                chunk = os.read(key.fd, _CHUNK)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                sinks[key.fileobj].write(chunk)  # type: ignore[index]
                captured += len(chunk)
            now = time.monotonic()
            if progress and now - reported >= _PROGRESS_EVERY:
                progress(captured, now - started)
                reported = now
    for pipe in sinks:
        pipe.close()
    while True:  # the pipes are closed; the child may still run (it closed them itself)
        try:
            child.wait(_shortest(deadline.remaining(), 3600.0))
            return
        except subprocess.TimeoutExpired:
            if not deadline.check():
                child.wait()  # SIGKILL always ends it
                return


def _shortest(*waits: float | None) -> float | None:
    given = [wait for wait in waits if wait is not None]
    return min(given) if given else None


def _signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


@contextmanager
def _forwarding_signals(pgid: int) -> Iterator[None]:
    """Pass SIGINT/SIGTERM/SIGHUP on to the child's group while it runs (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.getsignal(signum) for signum in _FORWARDED}
    for signum in _FORWARDED:
        signal.signal(signum, lambda received, _frame: _signal_group(pgid, received))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
