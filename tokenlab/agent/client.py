"""The short-lived side of the warm worker: hand it a `tokens analyze`, `run`, `show-ref`
or Claude Code hook call, or start it.

A `tokens` process pays Python's start-up (about 20 ms) on every call, and on top of it
importing the pipeline and building the tokenizer (about 0.25 s), against about 8 ms for
the analysis of a 20 KB log itself. So a plain `tokens analyze` reads its input here and
sends it to a warm worker (`worker.py`) over a Unix socket in the store folder, which
answers with exactly what an in-process run prints. If no worker answers, the command
runs in-process and starts one, detached, for the next call. Anything unexpected (no
worker yet, a socket path too long, an input too large to be worth sending, a worker
that fails) falls back to running in-process, which also reports every input error.
Each request carries `tokenlab.code_stamp()`, which tokenlab this process runs: a worker started
by another version or install, or one whose files were edited since it started (an
editable install), answers `stale` and exits, and the command runs in-process and starts
a fresh worker, as with none; so does a worker that speaks another version of the
protocol (`wire.py`).
A `show-ref` sends only its options: the worker reads the ref from the store itself.

This module imports only the standard library and `wire`, and of the standard library only
what a call answered by the worker needs, where it is used: it runs before anything else
is loaded, and a hook call that finds no worker loads nothing more than this module.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing on every call

if TYPE_CHECKING:
    import _socket
    from typing import Any

    from tokenlab.agent.capture import Capture
    from tokenlab.spooled_text import SpooledText

SOCKET_NAME = "worker.sock"
LOCK_NAME = "worker.lock"
# Inputs above this size are analysed in-process: start-up is small beside their analysis,
# and they need not be copied through the socket.
LARGE_INPUT = 8 << 20
# A Unix socket's path must fit `sun_path` (108 bytes on Linux, with its NUL).
_MAX_SOCKET_PATH = 107
# As `tokenlab.store.resolve` tells stores apart (a test keeps them equal): the worker
# serves folder stores; a PostgreSQL store's commands run in-process.
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def store_root(explicit: str | None) -> str:
    """The store folder as `open_store` finds it, absolute: the worker's address."""
    chosen = explicit or os.environ.get("TOKENLAB_STORE") or os.path.join("var", "context")
    return os.path.abspath(chosen)


def database_store(explicit: str | None) -> str | None:
    """The store's URL when it names a database, else None. Its local state (the run
    spool) then lives in `$TOKENLAB_STATE`, else ./var/context."""
    chosen = explicit or os.environ.get("TOKENLAB_STORE") or ""
    return chosen if chosen.startswith(POSTGRES_SCHEMES) else None


def socket_path(root: str) -> str | None:
    path = os.path.join(root, SOCKET_NAME)
    return path if len(path.encode()) <= _MAX_SOCKET_PATH else None


def analyze(arguments: dict[str, Any]) -> tuple[int, bytes, bytes] | None:
    """(exit code, stdout, stderr) of a plain `tokens analyze` run by the warm worker, or
    None when it should run in-process (a worker is then started for the next call)."""
    if database_store(arguments["store"]) is not None:
        return None
    root = store_root(arguments["store"])
    request = _request(arguments, root)
    return None if request is None else _ask(root, *request)


def show_ref(arguments: dict[str, Any]) -> tuple[int, bytes, bytes] | None:
    """(exit code, stdout, stderr) of a `tokens show-ref` drill-down run by the warm worker
    (the ref is read there), or None when it should run in-process: a database store, or
    a store folder that does not exist (no worker is started for it)."""
    if database_store(arguments["store"]) is not None:
        return None
    root = store_root(arguments["store"])
    if not os.path.isdir(root):
        return None
    from pathlib import PurePath  # the store's name in messages, as `open_store` spells it

    chosen = arguments["store"] or os.environ.get("TOKENLAB_STORE") or os.path.join("var", "context")
    from tokenlab.agent.host_env import host_of

    header = {
        **arguments,
        "op": "show-ref",
        "store": root,
        "store_name": str(PurePath(chosen)),
        "host": host_of(os.environ),
    }
    return _ask(root, header, b"")


# What a Claude Code PreToolUse answer reads of the hook process's environment
# (`claude_permissions`): sent with the call, since the worker's environment is another's.
CLAUDE_HOOK_ENV = ("HOME", "CLAUDE_CONFIG_DIR", "CLAUDE_PROJECT_DIR")


def claude_hook(args: list[str], data: bytes) -> bytes | None:
    """What `tokens hook claude-code ARGS` prints for the call `data`, answered by the warm
    worker of the store that a `tokens run` here would use; None when the hook must answer
    in-process: no worker there (a hook starts none, it writes nothing), or one that cannot
    answer for this process (`worker.py`)."""
    if b"PostToolUse" in data or database_store(None) is not None:  # the worker leaves it to the hook
        return None
    root = store_root(None)
    address = socket_path(root)
    if address is None or not os.path.exists(address):
        return None
    header = {
        "op": "claude-hook",
        "store": root,
        "args": args,
        "executable": sys.executable,
        "cwd": os.getcwd(),
        "env": {name: os.environ[name] for name in CLAUDE_HOOK_ENV if name in os.environ},
    }
    answer = _ask(root, header, data)
    return answer[1] if answer is not None and answer[0] == 0 else None


def run(arguments: dict[str, Any], *, worker: bool = True) -> tuple[int, bytes | SpooledText, bytes]:
    """A plain `tokens run`: the command runs here (its folder, its terminal, its stdin);
    what it printed is analysed by the warm worker (with `worker`), or here when none
    answers (its stdout then the visible text as the pipeline wrote it). The worker is
    connected to before the command starts: it checks its own files while the command runs."""
    from tokenlab.agent.capture import SHELL, SPOOL_FOLDER, Limits, capture_output

    url = database_store(arguments["store"])
    if url is not None:  # no worker; the spool goes to the local state folder
        worker = False
        root = os.path.abspath(os.environ.get("TOKENLAB_STATE") or os.path.join("var", "context"))
    else:
        root = store_root(arguments["store"])
    address = socket_path(root)
    connection = _connect(address) if worker and address is not None else None
    line = arguments["shell"]
    argv = (SHELL, "-c", line) if line is not None else tuple(arguments["command"])
    try:
        capture = capture_output(
            argv, os.path.join(root, SPOOL_FOLDER), Limits(arguments["split"], arguments["timeout"])
        )
        try:
            header = _run_header(arguments, capture, url or root)
            if worker and capture.size() <= LARGE_INPUT:
                outputs = {name: capture.read(name) for name in capture.spools}
                header["streams"] = [[name, len(data)] for name, data in outputs.items()]
                answer = _ask(root, header, b"".join(outputs.values()), connection)
                if answer is not None:
                    return answer
            from tokenlab.agent.run_here import finish_here

            return finish_here(header, capture, folder_store=url is None)
        finally:
            capture.close()
    finally:
        if connection is not None:
            connection.close()


def finish_here(
    arguments: dict[str, Any], capture: Capture, store: str
) -> tuple[int, bytes | SpooledText, bytes]:
    """The analysis of a captured `tokens run` of a folder store in this process, as `run`
    does it when no worker answers (the native client's hand-over, `tokenlab/native_finish.py`)."""
    from tokenlab.agent.run_here import finish_here as analysed_here

    return analysed_here(_run_header(arguments, capture, store), capture, folder_store=True)


def _run_header(arguments: dict[str, Any], capture: Capture, store: str) -> dict[str, Any]:
    """What the analysis of a finished `tokens run` needs to know (`run.finish_request`)."""
    from tokenlab.agent.host_env import host_of
    from tokenlab.agent.launcher import opener

    return {
        "op": "run",
        "store": store,
        "command": list(arguments["command"]),
        "shell": arguments["shell"],
        "status": capture.status,
        "duration": capture.duration,
        "timed_out": capture.timed_out,
        "killed": capture.killed,
        "cwd": os.getcwd(),
        "host": host_of(os.environ),
        "opener": opener(),
        **{key: arguments[key] for key in ("split", "timeout", "granularity", "redact", "as_json", "trace")},
    }


def _connect(address: str) -> _socket.socket | None:
    """A connection to the worker at `address`, or None if none answers there."""
    if not os.path.exists(address):
        return None
    import _socket  # `socket` wraps it in enums and `selectors`; a client needs none of that

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.connect(address)
    except OSError:
        sock.close()
        return None
    return sock


def _ask(
    root: str, header: dict[str, Any], payload: bytes, connection: _socket.socket | None = None
) -> tuple[int, bytes, bytes] | None:
    """The worker's answer to a request (on `connection` if `_connect` made one earlier; it
    is closed), or None (after starting a worker if none runs, or if the one that ran was
    another version of tokenlab)."""
    import _socket

    from tokenlab import code_stamp
    from tokenlab.agent import wire

    address = socket_path(root)
    if address is None:
        return None
    sock = connection or _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        if connection is None:
            sock.connect(address)
        try:
            wire.send_request(sock, {**header, "stamp": code_stamp()}, payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # a worker of another protocol answers the preamble alone, and closes
        answer = wire.receive_answer(sock)
    except (FileNotFoundError, ConnectionRefusedError):
        start_worker(root)
        return None
    except OSError:
        return None
    finally:
        sock.close()
    if answer is None or answer[0] == wire.STALE:  # another tokenlab's worker, gone now: replace it
        start_worker(root)
        return None
    kind, code, stdout, stderr = answer
    return (code, stdout, stderr) if kind == wire.ANSWERED else None


def _request(arguments: dict[str, Any], root: str) -> tuple[dict[str, Any], bytes] | None:
    """The request for the worker: the input and expected signals read here, where the
    command runs (its folder, its stdin); None if reading them needs the in-process path
    (it reports errors in its own words)."""
    source = arguments["source"]
    try:
        if source == "-":
            if arguments.get("stdin_data") is None:  # too large to have been read whole
                return None
            label, data = "<stdin>", arguments["stdin_data"]
        else:
            from pathlib import PurePath  # the label exactly as `sources.read_input` makes it

            label = str(PurePath(source))
            if os.path.getsize(source) > LARGE_INPUT:
                return None
            with open(source, "rb") as handle:
                data = handle.read()
        signals_file = arguments["signals"]
        if signals_file is None and not label.startswith("<") and os.path.isfile(label + ".signals"):
            signals_file = label + ".signals"
        signals = _read_signals(signals_file) if signals_file is not None else []
    except (OSError, UnicodeDecodeError):
        return None
    if len(data) > LARGE_INPUT:
        return None
    header = {
        "op": "analyze",
        "store": root,
        "label": label,
        "signals": signals,
        "granularity": arguments["granularity"],
        "redact": bool(arguments["redact"]),
        "as_json": bool(arguments["as_json"]),
    }
    return header, data


def _read_signals(path: str) -> list[str]:
    """As `sources.read_signals` reads them: one per non-empty line."""
    with open(path, encoding="utf-8") as handle:
        return [line for line in handle.read().splitlines() if line.strip()]


def start_worker(root: str) -> None:
    """Start a worker for `root`, detached, without waiting for it. Two racing starts are
    fine: the worker that does not get the store's lock exits at once."""
    import subprocess  # only here: a call that finds its worker never needs it

    try:
        subprocess.Popen(
            [sys.executable, "-m", "tokenlab.agent.worker", root],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        pass
