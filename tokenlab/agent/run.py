"""`tokens run`: run a command, capture what it prints, and show the pipeline's visible text.

Capture. By default stdout and stderr share one pipe (the child's stderr is its stdout),
so the bytes arrive in exactly the order the child wrote them, as a terminal would show
them; `split` gives each stream a pipe of its own. Whatever arrives is appended to an
unnamed temp file in the store folder at once, so memory stays flat however much the
command prints; the pipeline then reads the file back, and its optimizers' own bounds
apply. The command is executed as given: arguments go straight to `exec`, never joined
into a shell string, and a `--shell` line is one argument to `/bin/sh -c`. Standard input
is inherited.

The child runs in a session (and process group) of its own, so a timeout can end
everything it started: SIGTERM to the group, then SIGKILL after a grace period. Being in
its own session, it does not see the terminal's Ctrl-C, so SIGINT, SIGTERM and SIGHUP sent
to `tokens` are passed on to the group.

Results. A command that fails (exit status not 0) is analysed at fine granularity: the
visible lines are the ones a successful run would show, failures always among them, and
each folded group gets its own ref, so the agent can open just the group it needs. After
the visible text comes one closing line naming the command and its status
(`[exit 2: make test]`), placed before the `[original … bytes: #ref:…]` footer, which
stays the last line: `tokens restore` of the printed text still rebuilds exactly the bytes
the command printed. Output shown unchanged gets a footer in that case too, since the
closing line makes the text differ from it.
"""

from __future__ import annotations

import os
import selectors
import shlex
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from tokenlab import markers
from tokenlab.errors import InputError, TokenlabError
from tokenlab.optimizers import Granularity, OptimizerConfig
from tokenlab.packet import ContextPacket, Measurement, StoredRef, TraceEntry
from tokenlab.store import Store

SHELL = "/bin/sh"
TIMEOUT_STATUS = 124  # what `timeout(1)` exits with when it ended the command
KILL_GRACE = 2.0  # seconds between SIGTERM and SIGKILL to the process group
_AFTER_KILL = 1.0  # seconds to wait for EOF after SIGKILL (a process outside the group may hold the pipe)
_CHUNK = 1 << 20
_PROGRESS_EVERY = 0.2
_DISPLAY_LIMIT = 200
_FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

Progress = Callable[[int, float], None]  # (bytes captured so far, seconds since start)


class CommandNotRunError(TokenlabError):
    """The command could not be started: 127 when not found, 126 when not executable."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True)
class Command:
    """What to execute, and how it is named in visible text and in the ledger."""

    argv: tuple[str, ...]
    display: str
    shell: bool = False

    @classmethod
    def of_args(cls, args: list[str] | tuple[str, ...]) -> Command:
        if not args:
            raise InputError("no command given: tokens run [OPTIONS] -- CMD [ARGS...]")
        return cls(tuple(args), display_line(shlex.join(args)))

    @classmethod
    def of_shell(cls, line: str) -> Command:
        if not line.strip():
            raise InputError("--shell needs a command line")
        return cls((SHELL, "-c", line), display_line(line), shell=True)


@dataclass(frozen=True)
class RunOptions:
    split: bool = False
    timeout: float | None = None
    kill_grace: float = KILL_GRACE
    granularity: Granularity = Granularity.COARSE
    redact: bool = True


@dataclass
class Capture:
    """A finished command: its status, and its output spooled to unnamed temp files."""

    status: int
    duration: float
    timed_out: bool = False
    killed: bool = False  # SIGKILL was needed after the timeout's SIGTERM
    spools: dict[str, IO[bytes]] = field(default_factory=dict)  # stream name -> file

    def read(self, stream: str) -> bytes:
        spool = self.spools[stream]
        spool.seek(0)
        return spool.read()

    def close(self) -> None:
        for spool in self.spools.values():
            spool.close()


@dataclass(frozen=True)
class Stream:
    """One analysed stream (`output`, or `stdout` and `stderr` when split) and its text."""

    name: str
    packet: ContextPacket

    @property
    def visible(self) -> str:
        return self.packet.visible


@dataclass(frozen=True)
class RunResult:
    command: Command
    status: int
    duration: float
    timed_out: bool
    streams: tuple[Stream, ...]

    def as_dict(self) -> dict[str, object]:
        head: dict[str, object] = {
            "command": self.command.display,
            "shell": self.command.shell,
            "exit_status": self.status,
            "timed_out": self.timed_out,
            "duration_s": round(self.duration, 3),
        }
        if len(self.streams) == 1:
            return head | self.streams[0].packet.as_dict()
        return head | {stream.name: stream.packet.as_dict() for stream in self.streams}


def run(
    command: Command, store: Store, options: RunOptions = RunOptions(), progress: Progress | None = None
) -> RunResult:
    """Run `command`, analyse what it printed, and return the visible text per stream."""
    from tokenlab import tokens

    # The tokenizer (about 0.3 s to build) is made while the command runs.
    warm = threading.Thread(target=tokens.encoding, name="tokenlab-warm-tokenizer", daemon=True)
    warm.start()
    capture = capture_output(command, _spool_folder(store), options, progress)
    warm.join()
    try:
        failed = capture.status != 0
        granularity = Granularity.FINE if failed else options.granularity
        streams = []
        for name in capture.spools:
            source = command.display if name == "output" else f"{command.display} ({name})"
            packet = _analyse(capture.read(name), source, store, granularity, options.redact)
            streams.append(Stream(name, packet))
    finally:
        capture.close()
    closing = closing_line(command, capture, options.timeout)
    if closing:
        _add_closing_line(streams[0].packet, closing, store)
    for stream in streams:
        detail = f"command={command.display} exit={capture.status} seconds={capture.duration:.3f}"
        stream.packet.trace.insert(0, TraceEntry("RUN", detail + f" stream={stream.name}"))
    return RunResult(command, capture.status, capture.duration, capture.timed_out, tuple(streams))


def display_line(command: str) -> str:
    """A command line as one line of visible text: newlines shown as `\\n`, credentials
    masked, marker look-alikes escaped, at most 200 characters."""
    from tokenlab.agent.ledger import masked

    line = masked(command.replace("\r", "\\r").replace("\n", "\\n"))
    if len(line) > _DISPLAY_LIMIT:
        line = line[: _DISPLAY_LIMIT - 1] + "…"
    return markers.escape_literal_markers(line)


def closing_line(command: Command, capture: Capture, timeout: float | None) -> str | None:
    """`[exit 2: make test]` when the command did not succeed, else None."""
    if capture.timed_out:
        sent = "SIGTERM, then SIGKILL" if capture.killed else "SIGTERM"
        return f"[timeout after {timeout:g} s: process group sent {sent}; exit {capture.status}: {command.display}]"
    if capture.status == 0:
        return None
    name = ""
    if capture.status > 128 and capture.status - 128 in signal.valid_signals():
        name = f" ({signal.Signals(capture.status - 128).name})"
    return f"[exit {capture.status}{name}: {command.display}]"


def _add_closing_line(packet: ContextPacket, line: str, store: Store) -> None:
    """Put `line` just before the footer (adding one for output shown unchanged) and count it."""
    from tokenlab import tokens

    visible = packet.visible
    if markers.parse_footer(visible):
        cut = visible.rstrip("\n").rfind("\n") + 1
        body, footer = visible[:cut], visible[cut:]
    else:
        reason = "original input, byte for byte"
        meta = {
            "source": packet.source,
            "content_type": packet.content_type.value if packet.content_type else "",
        }
        ref_id = store.put(packet.raw, reason=reason, **meta)
        packet.original_ref = StoredRef(ref_id, reason, packet.raw)
        body, footer = visible, markers.footer(len(packet.raw), ref_id)
        packet.marker_tokens += tokens.count(markers.marker(ref_id))
    if body and not body.endswith("\n"):
        body += "\n"
    packet.visible = body + line + "\n" + footer
    encoded = packet.visible.encode("utf-8", errors="surrogatepass")
    packet.visible_measure = Measurement(len(encoded), tokens.count(packet.visible))


def _analyse(data: bytes, source: str, store: Store, granularity: Granularity, redact: bool) -> ContextPacket:
    from tokenlab.pipeline import analyze

    return analyze(
        data,
        source=source,
        store=store,
        config=OptimizerConfig(granularity=granularity),
        redact_secrets=redact,
    )


def _spool_folder(store: Store) -> Path:
    folder = store.root / "spool"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    return folder


def capture_output(
    command: Command, spool_folder: Path, options: RunOptions = RunOptions(), progress: Progress | None = None
) -> Capture:
    """Run `command` to its end (or its timeout), spooling its output as it arrives."""
    names = ("stdout", "stderr") if options.split else ("output",)
    # Unnamed files (O_TMPFILE): nothing is left behind, however this process ends.
    spools: dict[str, IO[bytes]] = {
        name: tempfile.TemporaryFile(dir=spool_folder, buffering=0)  # noqa: SIM115 (Capture closes them)
        for name in names
    }
    started = time.monotonic()
    try:
        child = subprocess.Popen(
            command.argv,
            stdin=None,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE if options.split else subprocess.STDOUT,
            start_new_session=True,
        )
    except FileNotFoundError:
        _close_all(spools)
        raise CommandNotRunError(f"command not found: {command.argv[0]}", 127) from None
    except PermissionError:
        _close_all(spools)
        raise CommandNotRunError(f"permission denied: {command.argv[0]}", 126) from None
    except BaseException:
        _close_all(spools)
        raise
    capture = Capture(status=0, duration=0.0, spools=spools)
    pipes = [p for p in (child.stdout, child.stderr) if p is not None]
    with _forwarding_signals(child.pid):
        _pump(child, dict(zip(pipes, spools.values())), capture, options, started, progress)
    code = child.returncode
    capture.status = TIMEOUT_STATUS if capture.timed_out else (128 - code if code < 0 else code)
    capture.duration = time.monotonic() - started
    return capture


def _close_all(spools: dict[str, IO[bytes]]) -> None:
    for spool in spools.values():
        spool.close()


class _Deadline:
    """The timeout's steps: running → SIGTERM sent → SIGKILL sent → give up on the pipes."""

    def __init__(self, child: subprocess.Popen[bytes], capture: Capture, options: RunOptions, started: float):
        self.child, self.capture, self.options = child, capture, options
        self.at = started + options.timeout if options.timeout is not None else None
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
            self.at = time.monotonic() + self.options.kill_grace
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
    options: RunOptions,
    started: float,
    progress: Progress | None,
) -> None:
    """Copy the pipes into the spools until they close and the child exits (or the timeout)."""
    deadline = _Deadline(child, capture, options, started)
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
