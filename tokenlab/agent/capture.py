"""Running a command and spooling what it prints: the part of `tokens run` that happens
where the command runs (see `run.py` for the rest, and why it is shaped this way).

A `tokens run` answered by the warm worker pays for every module this one loads, so it
loads no more than the `posix` and `_signal` modules underneath the standard library's
process and signal wrappers: the child is started with `os.posix_spawnp` as
`subprocess.Popen` would start it (its own session, every other descriptor closed, the
signals Python ignores set back to their defaults), its one pipe is read until it closes
(`select.poll` only for two pipes, a timeout or progress reports, which need it) and it is
reaped with `os.waitpid`. `subprocess`, `selectors`, `threading`, `signal` and
`contextlib` together (and `enum`, `re` and `collections` under them) cost more than the
rest of such a call.
"""

from __future__ import annotations

import _signal  # `signal` wraps it in enums; the numbers are all a forwarder needs
import io
import os
import time

from tokenlab.errors import TokenlabError
from tokenlab.spool import unnamed_file

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing on every call

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import IO

    from tokenlab.mapped import RawInput

    Progress = Callable[[int, float], None]  # (bytes captured so far, seconds since start)

SHELL = "/bin/sh"  # what runs a `--shell` line, as `SHELL -c LINE`
SPOOL_FOLDER = "spool"  # in the store folder: output spooled while a command runs
# Output up to this size is read whole without importing `mapped` (its threading and
# contextlib would cost a warm run more than the rest of it); at most `mapped.MAPPED_BYTES`.
READ_WHOLE_BYTES = 8 << 20
TIMEOUT_STATUS = 124  # what `timeout(1)` exits with when it ended the command
KILL_GRACE = 2.0  # seconds between SIGTERM and SIGKILL to the process group
_AFTER_KILL = 1.0  # seconds to wait for EOF after SIGKILL (a process outside the group may hold the pipe)
# What a pipe holds by default, and at most what one write puts in the spool: the page cache
# keeps a write's bytes in one block as large as the write, and a read of the mapped spool
# maps the whole block it falls in (`sources.spooled`). `mapped.FAULT_AROUND`, written out:
# importing `mapped` would bring `threading` and `contextlib` into the lean warm client.
_CHUNK = 1 << 16
_PROGRESS_EVERY = 0.2
_FORWARDED = (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP)
# Python ignores these; `subprocess` gives a child their defaults back (`restore_signals`).
_DEFAULT_IN_CHILD = (_signal.SIGPIPE, _signal.SIGXFSZ)
_WAIT_STEP = 0.05  # the longest sleep between two looks at a child waited for with a deadline


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
        spool.flush()
        if spool.seek(0, os.SEEK_END) <= READ_WHOLE_BYTES:  # what the warm worker is sent
            spool.seek(0)
            return spool.read()
        from tokenlab.mapped import mapped_file

        return mapped_file(spool)

    def close(self) -> None:
        _close_all(self.spools)


def capture_output(
    argv: tuple[str, ...],
    spool_folder: str,
    limits: Limits,
    progress: Progress | None = None,
) -> Capture:
    """Run `argv` to its end (or its timeout), spooling its output as it arrives."""
    names = ("stdout", "stderr") if limits.split else ("output",)
    os.makedirs(spool_folder, mode=0o700, exist_ok=True)
    spools = {name: unnamed_file(spool_folder, buffering=0) for name in names}
    pipes = [os.pipe() for _ in names]  # (read end, write end); neither is inherited as such
    started = time.monotonic()
    try:
        child = _Child(_spawn(argv, [written for _, written in pipes]))
    except BaseException:
        _close_all(spools)
        for descriptors in pipes:
            for descriptor in descriptors:
                os.close(descriptor)
        raise
    for _, written in pipes:
        os.close(written)
    capture = Capture(spools)
    sinks = {read: spool for (read, _), spool in zip(pipes, spools.values())}
    forwarded = _forward_signals(child.pid)
    try:
        _pump(child, sinks, capture, limits, started, progress)
    finally:
        _restore_signals(forwarded)
    code = os.waitstatus_to_exitcode(child.status)
    capture.status = TIMEOUT_STATUS if capture.timed_out else (128 - code if code < 0 else code)
    capture.duration = time.monotonic() - started
    return capture


def _spawn(argv: tuple[str, ...], outputs: list[int]) -> int:
    """Start `argv` as `subprocess.Popen(argv, stdout=…, stderr=…, start_new_session=True)`
    would: `outputs` are its stdout and stderr (one pipe: both), found on the PATH, stdin
    inherited. Returns its pid; not found or not executable is a `CommandNotRunError`."""
    written = outputs * 2 if len(outputs) == 1 else outputs
    actions = [(os.POSIX_SPAWN_DUP2, written[0], 1), (os.POSIX_SPAWN_DUP2, written[1], 2)]
    actions += [(os.POSIX_SPAWN_CLOSE, descriptor) for descriptor in _inherited_descriptors()]
    try:
        return os.posix_spawnp(
            argv[0], argv, os.environ, file_actions=actions, setsid=True, setsigdef=_DEFAULT_IN_CHILD
        )
    except FileNotFoundError:
        raise CommandNotRunError(f"command not found: {argv[0]}", 127) from None
    except PermissionError:
        raise CommandNotRunError(f"permission denied: {argv[0]}", 126) from None


def _inherited_descriptors() -> list[int]:
    """This process's inheritable descriptors above stderr, which the child must not get
    (as `close_fds=True`): the others close themselves when it starts."""
    try:
        listed = os.listdir("/proc/self/fd")
    except OSError:
        return []
    found = []
    for name in listed:
        descriptor = int(name)
        try:
            if descriptor > 2 and os.get_inheritable(descriptor):
                found.append(descriptor)
        except OSError:  # the listing's own descriptor, closed since
            pass
    return found


def _close_all(spools: dict[str, IO[bytes]]) -> None:
    for spool in spools.values():
        spool.close()


class _Child:
    """A started command, reaped once: its pid, then its wait status."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.status: int | None = None

    def running(self) -> bool:
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
        return self.status is None

    def wait(self, seconds: float | None) -> bool:
        """Whether it ended within `seconds` (None: wait for it)."""
        if seconds is None:
            if self.status is None:
                self.status = os.waitpid(self.pid, 0)[1]
            return True
        until, step = time.monotonic() + seconds, 0.0005
        while self.running():
            left = until - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(step, left))
            step = min(step * 2, _WAIT_STEP)
        return True


class _Deadline:
    """The timeout's steps: running → SIGTERM sent → SIGKILL sent → give up on the pipes."""

    def __init__(self, child: _Child, capture: Capture, limits: Limits, started: float):
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
            _signal_group(self.child.pid, _signal.SIGTERM)
            self.at = time.monotonic() + self.limits.kill_grace
        elif self.step == 2:
            if self.child.running() or _group_alive(self.child.pid):
                self.capture.killed = True
                _signal_group(self.child.pid, _signal.SIGKILL)
            self.at = time.monotonic() + _AFTER_KILL
        return self.step < 3


def _pump(
    child: _Child,
    sinks: dict[int, IO[bytes]],
    capture: Capture,
    limits: Limits,
    started: float,
    progress: Progress | None,
) -> None:
    """Copy the pipes into the spools until they close and the child exits (or the timeout);
    the pipes' read ends are closed on return."""
    deadline = _Deadline(child, capture, limits, started)
    try:
        if len(sinks) == 1 and deadline.at is None and progress is None:
            [(pipe, sink)] = sinks.items()
            while chunk := os.read(pipe, _CHUNK):  # nothing else to wait for
                sink.write(chunk)
        else:
            _poll(sinks, deadline, started, progress)
    finally:
        for pipe in sinks:
            os.close(pipe)
    # The pipes are closed; the child may still run (it closed them itself).
    while not child.wait(deadline.remaining()):
        if not deadline.check():
            child.wait(None)  # SIGKILL always ends it
            return


def _poll(sinks: dict[int, IO[bytes]], deadline: _Deadline, started: float, progress: Progress | None) -> None:
    """Copy each pipe into its spool as bytes arrive, until all close or the deadline's last
    step; progress reported every `_PROGRESS_EVERY` seconds."""
    import select

    captured, reported = 0, 0.0
    poller = select.poll()
    for pipe in sinks:
        poller.register(pipe, select.POLLIN)
    reading = set(sinks)
    while reading:
        if not deadline.check():
            break
        wait = _shortest(deadline.remaining(), _PROGRESS_EVERY if progress else None)
        for pipe, _ in poller.poll(None if wait is None else wait * 1000):
            chunk = os.read(pipe, _CHUNK)
            if not chunk:
                poller.unregister(pipe)
                reading.discard(pipe)
                continue
            sinks[pipe].write(chunk)
            captured += len(chunk)
        now = time.monotonic()
        if progress and now - reported >= _PROGRESS_EVERY:
            progress(captured, now - started)
            reported = now


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


def _forward_signals(pgid: int) -> dict[int, object]:
    """Pass SIGINT/SIGTERM/SIGHUP on to the child's group while it runs; the handlers they
    replaced, for `_restore_signals`. Only the main thread may set handlers: elsewhere
    (the MCP server's tool calls) nothing is forwarded."""
    previous: dict[int, object] = {}
    try:
        for signum in _FORWARDED:
            previous[signum] = _signal.signal(signum, lambda received, _frame: _signal_group(pgid, received))
    except ValueError:  # not the main thread
        pass
    return previous


def _restore_signals(previous: dict[int, object]) -> None:
    for signum, handler in previous.items():
        _signal.signal(signum, handler)
