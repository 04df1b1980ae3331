"""The warm worker: a local process that runs `tokens analyze`, the analysis of `tokens
run`, `tokens show-ref` drill-downs and Claude Code's PreToolUse hook for short-lived
commands.

One worker serves one store. It listens on `worker.sock` in the store folder (the folder
is owner-only, the socket too, and each connection's peer must be this user), holds
`worker.lock` for its lifetime so a second worker started in a race exits at once, and
exits after `TOKENLAB_WORKER_IDLE` seconds (default 900) without a request. Each request
carries an input already read by the client (or, for `show-ref`, the options: the ref is
read here) and is answered with exactly what the in-process command prints (the same
functions build both: `commands.analysis_output`, `agent.run.finish_request`,
`commands.ref_view_output`); a request it cannot serve is answered with `fallback`, and the
client runs it in-process.

Each request also carries the client's `code_stamp`, its version and package folder. A
worker must not answer for other code than the client's (after an upgrade, or an edit in
an editable install, it would still run the code it loaded), so on a stamp other than its
own, or once a file of its package changed since it started (`package_files.py`, checked
on every connection, before the request arrives), it answers `stale` without doing the
work, removes its socket and releases its lock at once (the client starts a fresh worker
next, which must get them), and exits.

Run as `python -m tokenlab.agent.worker STORE`; `client.start_worker` does that.
"""

from __future__ import annotations

import fcntl
import os
import signal
import socket
import socketserver
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import tokenlab
from tokenlab import code_stamp, ledger
from tokenlab.agent import wire
from tokenlab.agent.client import LOCK_NAME, socket_path
from tokenlab.agent.package_files import PackageFiles
from tokenlab.errors import TokenlabError, error_line
from tokenlab.heap import own_the_heap
from tokenlab.optimizers import Granularity
from tokenlab.store.folder import FolderStore

DEFAULT_IDLE_SECONDS = 900.0
_PEER_CREDENTIALS = struct.Struct("3i")  # pid, uid, gid


class _Handler(socketserver.BaseRequestHandler):
    server: Worker

    def handle(self) -> None:
        sock: socket.socket = self.request
        with self.server.busy():
            if not _same_user(sock):
                return
            # Checked before the request arrives: a `tokens run` connects before its command
            # starts, so this runs beside the command.
            unchanged = self.server.files.unchanged()
            try:
                request = wire.receive_request(sock)
            except (OSError, ValueError):
                return
            if request is None:  # a client of another protocol
                answer, stale = wire.OTHER_PROTOCOL, True
            else:
                header, payload = request
                stale = header is not None and (header.get("stamp") != self.server.stamp or not unchanged)
                served = (wire.STALE, 0, b"", b"") if stale else self.server.answer(header, payload)
                answer = wire.answer_bytes(*served)
            if stale:  # the worker the client starts next must get the store: free it first
                self.server.leave()
            try:
                sock.sendall(answer)
            except OSError:
                pass  # the client went away; it runs the command itself
        if stale:
            self.server.shutdown()


def _same_user(sock: socket.socket) -> bool:
    credentials = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEER_CREDENTIALS.size)
    _, uid, _ = _PEER_CREDENTIALS.unpack(credentials)
    return bool(uid == os.getuid())


class Worker(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(
        self, root: str, address: str, idle_seconds: float, code: tuple[str, PackageFiles], lock: int
    ) -> None:
        """Serve `root` at `address` for clients whose code stamp is `code`'s, while its package
        files stay unchanged; `lock` is the descriptor holding the store's worker lock."""
        self.root = root
        self.address = address
        self.idle_seconds = idle_seconds
        self.stamp, self.files = code
        self.last_request = time.monotonic()
        self._connections = 0
        self._activity = threading.Lock()
        self._lock = lock
        self._leaving = threading.Lock()
        self._left = False
        # One analysis per core at a time, the rest waiting their turn: threads sharing
        # the tokenizer are slower together than one after another (16 at once: p99 1.6 s).
        self._turns = threading.BoundedSemaphore(os.cpu_count() or 1)
        super().__init__(address, _Handler)

    @contextmanager
    def busy(self) -> Iterator[None]:
        """A connection being served: the worker is not idle until the last one closes (a
        `tokens run` holds one while its command runs)."""
        with self._activity:
            self._connections += 1
        try:
            yield
        finally:
            with self._activity:
                self._connections -= 1
                self.last_request = time.monotonic()

    def idle_for(self) -> float:
        with self._activity:
            return 0.0 if self._connections else time.monotonic() - self.last_request

    def leave(self) -> None:
        """Remove the socket and release the store's lock, once: when the worker stops, or
        earlier, as soon as a stale request shows that a fresh worker must take over."""
        with self._leaving:  # a stale request and the worker's stop may both get here
            if self._left:
                return
            self._left = True
        os.unlink(self.address)
        fcntl.flock(self._lock, fcntl.LOCK_UN)

    def answer(self, header: dict[str, Any] | None, payload: bytes) -> tuple[bytes, int, bytes, bytes]:
        """The in-process output for a request as `wire.answer_bytes`'s arguments, or a
        fallback for one it does not serve (None: a header it could not read)."""
        if header is None or header.get("store") != self.root or header.get("op") not in _OPERATIONS:
            return wire.FALLBACK, 0, b"", b""
        operation = _OPERATIONS[header["op"]]
        try:
            with self._turns:
                code, stdout, stderr = operation(header, payload)
        except _NotServed:
            return wire.FALLBACK, 0, b"", b""
        except TokenlabError as error:
            return wire.ANSWERED, error.exit_code, b"", (error_line(error) + "\n").encode()
        except Exception:  # noqa: BLE001 (any other failure: the client runs it in-process)
            return wire.FALLBACK, 0, b"", b""
        return wire.ANSWERED, code, stdout, stderr


def _analyze(header: dict[str, Any], payload: bytes) -> tuple[int, bytes, bytes]:
    from tokenlab.commands import analysis_output

    output = analysis_output(
        payload,
        label=str(header["label"]),
        signals=tuple(str(signal) for signal in header["signals"]),
        granularity=Granularity(header["granularity"]),
        redact=bool(header["redact"]),
        store=Path(header["store"]),
        as_json=bool(header["as_json"]),
    )
    return output.exit_code, output.read_stdout(), output.stderr


def _run(header: dict[str, Any], payload: bytes) -> tuple[int, bytes, bytes]:
    from tokenlab.agent.capture import Capture
    from tokenlab.agent.run import finish_request

    outputs, at = {}, 0
    for name, size in header["streams"]:
        outputs[str(name)] = payload[at : at + int(size)]
        at += int(size)
    capture = Capture.of_bytes(outputs, int(header["status"]), float(header["duration"]))
    code, stdout, stderr = finish_request(header, capture)
    if isinstance(stdout, bytes):
        return code, stdout, stderr
    with stdout:  # sent back whole, its spool given back at once
        return code, stdout.getvalue(), stderr


class _NamedFolderStore(FolderStore):
    """The client's folder store, by its absolute path, under the name its command gives
    it (`no ref … in store var/context` names it as the in-process command would)."""

    def __init__(self, root: Path, name: str) -> None:
        super().__init__(root)
        self._name = name

    @property
    def name(self) -> str:
        return self._name


def _show_ref(header: dict[str, Any], payload: bytes) -> tuple[int, bytes, bytes]:
    from tokenlab.commands import ref_view_output
    from tokenlab.refs.expand import RefQuery

    store = _NamedFolderStore(Path(header["store"]), str(header["store_name"]))
    query = RefQuery.of(header)
    output = ref_view_output(
        store,
        str(header["ref_id"]),
        query,
        raw=bool(header["raw"]),
        as_json=bool(header["as_json"]),
        host=header.get("host"),
    )
    return output.exit_code, output.stdout, output.stderr


class _NotServed(Exception):
    """A request this worker must leave to the client: it runs it in-process."""


def _claude_hook(header: dict[str, Any], payload: bytes) -> tuple[int, bytes, bytes]:
    """A Claude Code hook call answered as in the hook's process (`client.claude_hook`), whose
    variables the request carries: only for a hook run by this Python (its rewrite names
    it) in this folder (a relative path means the same file), and not for PostToolUse."""
    from tokenlab.agent.claude_hook import pre_tool_use_output

    if header["executable"] != sys.executable or header["cwd"] != os.getcwd():
        raise _NotServed
    env = {str(name): str(value) for name, value in header["env"].items()}
    printed = pre_tool_use_output(payload, [str(arg) for arg in header["args"]], env)
    if printed is None:
        raise _NotServed
    return 0, printed, b""


_OPERATIONS: dict[str, Callable[[dict[str, Any], bytes], tuple[int, bytes, bytes]]] = {
    "analyze": _analyze,
    "run": _run,
    "show-ref": _show_ref,
    "claude-hook": _claude_hook,
}


def serve(
    root: str, idle_seconds: float = DEFAULT_IDLE_SECONDS, ready: Callable[[Worker], None] | None = None
) -> int:
    """Serve `root` until idle or stale; 0 when done, 1 if another worker already serves
    it. `ready` gets the worker once it listens (its `shutdown` stops it early)."""
    address = socket_path(root)
    if address is None:
        return 1
    # Before the warm-up imports the pipeline: a file edited in between then counts as a
    # change (a restart), rather than old code answer for the new files.
    code = code_stamp(), package_files()
    os.makedirs(root, mode=0o700, exist_ok=True)
    with os.fdopen(os.open(os.path.join(root, LOCK_NAME), os.O_RDWR | os.O_CREAT, 0o600), "r+b") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 1
        if os.path.exists(address):
            os.unlink(address)  # left by a worker that died: the lock says none is running
        old_mask = os.umask(0o177)
        try:
            worker = Worker(root, address, idle_seconds, code, lock.fileno())
        finally:
            os.umask(old_mask)
        _warm_up(worker)
        stopper = threading.Thread(target=_stop_when_idle, args=(worker,), daemon=True)
        stopper.start()
        if ready is not None:
            ready(worker)
        try:
            with ledger.kept_open(Path(root)):  # each call's ledger row then costs no fsync
                worker.serve_forever(poll_interval=0.5)
        finally:
            worker.server_close()
            worker.leave()
    return 0


def package_files() -> PackageFiles:
    """The package's files as they are now, to tell later whether they changed."""
    return PackageFiles(os.path.dirname(os.path.abspath(tokenlab.__file__)))


def _warm_up(worker: Worker) -> None:
    """Import the pipeline and build the tokenizer before the first request needs them."""
    worker.answer(
        {"op": "analyze", "store": worker.root, "label": "<warm-up>", "signals": [],
         "granularity": Granularity.COARSE.value, "redact": True, "as_json": False},
        b"",
    )  # fmt: skip
    from tokenlab.counting.tokens import encoding
    from tokenlab.refs.expand import RefQuery, expand_data

    encoding()
    expand_data(b"warm-up\n", RefQuery())  # the drill-down's modules and its token bound


def _stop_when_idle(worker: Worker) -> None:
    while True:
        remaining = worker.idle_seconds - worker.idle_for()
        if remaining <= 0:
            worker.shutdown()
            return
        time.sleep(min(remaining, 5.0))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        sys.stderr.write("usage: python -m tokenlab.agent.worker STORE\n")
        return 2
    idle = float(os.environ.get("TOKENLAB_WORKER_IDLE", DEFAULT_IDLE_SECONDS))
    own_the_heap()
    return serve(os.path.abspath(argv[0]), idle, _stop_on_sigterm)


def _stop_on_sigterm(worker: Worker) -> None:
    """SIGTERM stops the worker as idleness does: its socket removed, its lock released."""
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=worker.shutdown).start())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
