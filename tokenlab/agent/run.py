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
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from tokenlab import markers
from tokenlab.agent import command_line
from tokenlab.agent.capture import KILL_GRACE, SPOOL_FOLDER, Capture, Limits, capture_output
from tokenlab.optimizers import Granularity, OptimizerConfig
from tokenlab.packet import ContextPacket, Measurement, StoredRef, TraceEntry
from tokenlab.store import Store, open_store

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from typing import Any

    from tokenlab.agent.capture import Progress
    from tokenlab.commands import Output
    from tokenlab.ledger import Record
    from tokenlab.spooled_text import SpooledText


@dataclass(frozen=True)
class Command:
    """What to execute, and how it is named in visible text and in the ledger."""

    argv: tuple[str, ...]
    display: str
    shell: bool = False

    @classmethod
    def of_args(cls, args: list[str] | tuple[str, ...]) -> Command:
        return cls(*command_line.of_args(args))

    @classmethod
    def of_shell(cls, line: str) -> Command:
        return cls(*command_line.of_shell(line), shell=True)


@dataclass(frozen=True)
class Caller:
    """Where a run was asked from: its folder, and the agent host it runs under (if any).
    A run's identity in the ledger is its command line in that folder."""

    cwd: str
    host: str | None
    opener: str = "tokens"  # how the caller's shell runs tokenlab (`launcher.opener`)

    @classmethod
    def here(cls) -> Caller:
        from tokenlab.agent.host_env import host_of
        from tokenlab.agent.launcher import opener

        return cls(os.getcwd(), host_of(os.environ), opener())


@dataclass(frozen=True)
class RunOptions:
    split: bool = False
    timeout: float | None = None
    kill_grace: float = KILL_GRACE
    granularity: Granularity = Granularity.COARSE
    redact: bool = True

    @property
    def limits(self) -> Limits:
        return Limits(self.split, self.timeout, self.kill_grace)


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
    from tokenlab.counting import tokens

    # The tokenizer (about 0.3 s to build) is made while the command runs.
    warm = threading.Thread(target=tokens.encoding, name="tokenlab-warm-tokenizer", daemon=True)
    warm.start()
    capture = capture_output(command.argv, str(store.root / SPOOL_FOLDER), options.limits, progress)
    warm.join()
    return finish(command, capture, store, options)


def finish(command: Command, capture: Capture, store: Store, options: RunOptions) -> RunResult:
    """Analyse what a finished command printed (here, or in the warm worker)."""
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


def finish_request(request: dict[str, Any], capture: Capture) -> tuple[int, bytes | SpooledText, bytes]:
    """What `tokens run` prints for a command the short-lived process ran: `request` says
    how it ran and what was asked (see `client.run`); here or in the warm worker. Its
    stdout may be a visible text as the pipeline wrote it: copy it out with `write_to`."""
    line = request["shell"]
    command = Command.of_shell(line) if line is not None else Command.of_args(request["command"])
    capture.timed_out, capture.killed = bool(request["timed_out"]), bool(request["killed"])
    options = RunOptions(
        split=bool(request["split"]),
        timeout=request["timeout"],
        granularity=Granularity(request["granularity"]),
        redact=bool(request["redact"]),
    )
    with open_store(request["store"]) as store:
        result = finish(command, capture, store, options)
    caller = Caller(str(request["cwd"]), request["host"], str(request["opener"]))
    answer = output(result, store.root, caller, as_json=bool(request["as_json"]), trace=bool(request["trace"]))
    return answer.exit_code, answer.stdout_text, answer.stderr


def output(result: RunResult, store_root: Path, caller: Caller, *, as_json: bool, trace: bool) -> Output:
    """What `tokens run` prints for a finished run (here, or sent back by the warm worker),
    its ledger row written: each stream's visible text on its own stream, or the `--json`
    object; the stage trace on stderr when asked. The same command run again in the same
    folder within `ledger.RERUN_WINDOW`, printing the same, prints it unmodified: the agent
    asked again because the visible text was not enough (once more, and it is again)."""
    from tokenlab import ledger
    from tokenlab.commands import Output, json_bytes

    for stream in result.streams:
        _name_opener(stream.packet, caller.opener)
    found = ledger.fingerprint(
        ledger.call_fingerprint(caller.cwd, *result.command.argv), [s.packet.raw for s in result.streams]
    )
    row = ledger_record(result)._replace(host=caller.host, fingerprint=found)
    repeat, problem = ledger.record_call(store_root, row, shown_on_repeat=row.raw_tokens)
    unmodified = repeat.same_output and not as_json
    stdout: bytes | SpooledText = b""
    stderr = b""
    if as_json:
        stdout = json_bytes(result.as_dict())
    else:
        for stream in result.streams:
            if stream.name == "stderr":
                stderr += stream.packet.raw if unmodified else stream.packet.visible_bytes
            else:  # the only stream printed on stdout: its text as the pipeline wrote it
                stdout = bytes(stream.packet.raw) if unmodified else stream.packet.visible_text
    if trace:
        stderr += "".join(
            f"{e.stage:<12} {e.detail}\n" for s in result.streams for e in s.packet.trace
        ).encode()
    if problem:
        stderr += f"tokens: warning: {problem}\n".encode()
    return Output(result.status, stdout, stderr)


def ledger_record(result: RunResult) -> Record:
    """The ledger row of a run: both streams' counts when split."""
    from tokenlab.ledger import Kind, Record

    packets = [stream.packet for stream in result.streams]
    shown = [p for p in packets if p.raw] or packets
    return Record(
        time=time.time(),
        kind=Kind.RUN,
        source=result.command.display,
        content_type="+".join(dict.fromkeys(p.content_type.value for p in shown if p.content_type)),
        raw_bytes=sum(len(p.raw) for p in packets),
        raw_tokens=sum(p.raw_measure.tokens for p in packets if p.raw_measure),
        visible_tokens=sum(p.visible_measure.tokens for p in packets if p.visible_measure),
        refs=sum(len(p.unique_refs) for p in packets),
        exit_status=result.status,
        duration=result.duration,
    )


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
    from tokenlab.counting import tokens

    cut, last = _last_line(packet.visible_text)
    if markers.parse_footer(last):
        body, footer = "", last
    else:
        reason = "original input, byte for byte"
        meta = {
            "source": packet.source,
            "content_type": packet.content_type.value if packet.content_type else "",
        }
        ref_id = store.put(packet.raw, reason=reason, **meta)
        packet.original_ref = StoredRef(ref_id, reason, packet.raw)
        body, footer = last, markers.footer(len(packet.raw), ref_id, folded=False)
        packet.marker_tokens += tokens.count(markers.marker(ref_id))
    if body and not body.endswith("\n"):
        body += "\n"
    _replace_last_line(packet, cut, body + line + "\n" + footer)


def _name_opener(packet: ContextPacket, opener: str) -> None:
    """Make the footer's hint name tokenlab as the caller's shell can run it, and count it."""
    cut, last = _last_line(packet.visible_text)
    named = markers.with_opener(last, opener)  # the footer, if any, is the last line
    if named != last:
        _replace_last_line(packet, cut, named)


def _last_line(visible: SpooledText) -> tuple[int, str]:
    """Where the visible text's last line starts (its trailing newlines are part of it), and
    the line: read from the text's end, never the whole of a large text."""
    size = _LAST_LINE_BYTES
    while True:
        tail = visible.tail(size)
        start = len(visible) - len(tail)
        found = tail.rstrip(b"\n").rfind(b"\n")
        if found >= 0 or start == 0:
            cut = start + found + 1
            return cut, tail[found + 1 :].decode("utf-8", errors="surrogatepass")
        size *= 4


_LAST_LINE_BYTES = 4096


def _replace_last_line(packet: ContextPacket, cut: int, text: str) -> None:
    """Replace the visible text from `cut` (where its last line starts) with `text`, and
    count it: the lines before are not counted again when the counts of the two sides of
    the cut add up (`tokens.is_safe_cut`), as they do before a line that starts with `[`."""
    from tokenlab.counting import tokens

    visible = packet.visible_text
    encoded = text.encode("utf-8", errors="surrogatepass")
    around = visible.tail(len(visible) - cut + _CUT_CONTEXT_BYTES)  # the cut's look-behind
    at = len(around) - (len(visible) - cut)
    before = around[at - 1 : at] if at else b""
    counted = packet.visible_measure
    if counted and tokens.is_safe_cut(around, at) and tokens.is_safe_cut(before + encoded, len(before)):
        last = around[at:].decode("utf-8", errors="surrogatepass")
        total = counted.tokens - tokens.count(last) + tokens.count(text)
    else:
        total = tokens.count((packet.visible_bytes[:cut] + encoded).decode("utf-8", errors="surrogatepass"))
    visible.truncate(cut)
    visible.write(encoded)
    packet.visible_measure = Measurement(len(visible), total)


_CUT_CONTEXT_BYTES = 16


def _analyse(data: bytes, source: str, store: Store, granularity: Granularity, redact: bool) -> ContextPacket:
    from tokenlab.pipeline import analyze

    return analyze(
        data,
        source=source,
        store=store,
        config=OptimizerConfig(granularity=granularity),
        redact_secrets=redact,
    )
