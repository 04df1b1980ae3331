"""The native client (`native/tokens_client.c`, built here with cc): on the warm path it
sends the worker what the Python client sends and prints what it prints, byte for byte; on
anything else it hands over to the Python launcher form, which then behaves as if called
first. Each case runs the native client and the Python launcher form on the same request."""

from __future__ import annotations

import ast
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_worker_hook import HOOK_CASES, _hook_call, hook_project  # noqa: F401 (a fixture)
from tests.warm_worker import serving_on_a_thread
from tokenlab import code_stamp, ledger
from tokenlab.agent import client, launcher, native, wire, worker

Result = tuple[int, bytes, bytes]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The native client built for this Python and this tokenlab, as the Makefile builds it."""
    path = str(tmp_path_factory.mktemp("native") / native.NATIVE_NAME)
    assert native.build(path)
    return path


def _env(store: str, **extra: str) -> dict[str, str]:
    return {**os.environ, "TOKENLAB_STORE": store, "TOKENLAB_WORKER": "1", **extra}


def _call(argv: list[str], env: dict[str, str], data: bytes = b"", cwd: str | None = None) -> Result:
    done = subprocess.run(argv, input=data, capture_output=True, env=env, cwd=cwd, check=False)
    return done.returncode, done.stdout, done.stderr


def _forget_runs(root: str) -> None:
    """Else a second run of a command repeats the first, and is shown unmodified."""
    for path in Path(root).glob(ledger.LEDGER_NAME + "*"):
        path.unlink()


def _without_timing(result: Result) -> Result:
    code, out, err = result
    pattern = rb'(seconds=|"duration_s": )[0-9.e-]+'
    return code, re.sub(pattern, rb"\1", out), re.sub(pattern, rb"\1", err)


def _both_runs(
    built: str, args: list[str], store: str, env: dict[str, str] | None = None
) -> tuple[Result, Result]:
    """The same `tokens run` by the native client, then by the Python launcher form."""
    env = env or _env(store)
    results = []
    for tokens in ([built], launcher.python_argv()):
        results.append(_without_timing(_call([*tokens, "run", *args], env)))
        _forget_runs(store)
    return results[0], results[1]


RUN_CASES = {
    "fails": ["--shell", "printf 'a\\nb\\n'; echo oops >&2; exit 3"],
    "long": ["--shell", "seq 1 3000 | sed 's/^/INFO served request /'"],
    "json": ["--json", "--", "python3", "-c", "print('x' * 50)"],
    "split-trace": ["--split", "--trace", "--shell", "echo out; echo err >&2"],
    "options": ["--granularity=fine", "--no-redact", "--", "sh", "-c", "seq 1 500; exit 1"],
    "no-output": ["--", "true"],
    "killed-by-a-signal": ["--shell", "echo going; kill -TERM $$"],
    "reads-stdin": ["--", "cat"],
}


@pytest.mark.parametrize("args", RUN_CASES.values(), ids=RUN_CASES.keys())
def test_a_run_the_worker_answers_prints_what_the_python_client_prints(
    built: str, serving: worker.Worker, args: list[str]
) -> None:
    native_result, python_result = _both_runs(built, args, serving.root)
    assert native_result == python_result
    assert native_result[1] or args == ["--", "true"] or args == ["--", "cat"]


FALLBACK_RUNS = {
    "timeout-option": ["--timeout", "5", "--shell", "echo slow"],
    "unknown-option": ["--frobnicate", "--", "true"],
    "no-command": ["--split"],
    "not-found": ["--", "no-such-command-here"],
    "large-output": ["--shell", "yes 'INFO served request' | head -n 500000"],
}


@pytest.mark.parametrize("args", FALLBACK_RUNS.values(), ids=FALLBACK_RUNS.keys())
def test_a_run_the_native_client_leaves_to_python_prints_the_same(
    built: str, serving: worker.Worker, args: list[str]
) -> None:
    """Options it does not know (before the command runs), a command that cannot start, and
    output over LARGE_INPUT (after: the captured output is handed on, never run twice)."""
    native_result, python_result = _both_runs(built, args, serving.root)
    assert native_result == python_result


LOCALES = {
    "c-locale": {"LANG": "C"},
    "no-locale": {},
    "all-set": {"LC_ALL": "C"},
    "coercion-off": {"LANG": "C", "PYTHONCOERCECLOCALE": "0"},
    "coercion-warns": {"LANG": "C", "PYTHONCOERCECLOCALE": "warn"},
    "utf-8": {"LANG": "C.UTF-8"},
}


@pytest.mark.parametrize("locale", LOCALES.values(), ids=LOCALES.keys())
def test_the_command_gets_the_locale_python_would_give_it(
    built: str, serving: worker.Worker, locale: dict[str, str]
) -> None:
    """Python coerces a C locale to UTF-8 in its own environment (PEP 538), which the command
    inherits under the Python client: the native client gives it the same."""
    env = {name: value for name, value in _env(serving.root).items() if not name.startswith(("LC_", "LANG"))}
    env.pop("PYTHONCOERCECLOCALE", None)
    args = ["--shell", 'echo "ctype=${LC_CTYPE-unset} all=${LC_ALL-unset}"']
    native_result, python_result = _both_runs(built, args, serving.root, {**env, **locale})
    assert native_result == python_result


def test_without_a_worker_a_run_is_the_python_clients(built: str, short_store: str) -> None:
    env = _env(short_store, TOKENLAB_WORKER_IDLE="1")
    native_result, python_result = _both_runs(built, ["--shell", "echo hi; exit 4"], short_store, env)
    assert native_result == python_result
    assert native_result[0] == 4


def test_a_stale_worker_leaves_and_the_run_is_analysed_in_python(
    built: str, short_store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker of other code answers stale and leaves; the native client starts a fresh one,
    as the Python client does, and the captured output is analysed in Python."""
    monkeypatch.setattr(worker, "code_stamp", lambda: "0.0.0-another")
    codes: list[int] = []
    env = _env(short_store, TOKENLAB_WORKER_IDLE="60")
    args = ["--shell", "echo stale; exit 2"]
    with serving_on_a_thread(short_store, codes) as (_, thread):
        served = _without_timing(_call([built, "run", *args], env))
        thread.join(30)
        assert codes == [0]  # it left by itself
    _stop_started_worker(short_store)
    _forget_runs(short_store)
    in_process = _env(short_store, TOKENLAB_WORKER="0")
    here = _without_timing(_call([*launcher.python_argv(), "run", *args], in_process))
    assert served == here and served[0] == 2


def _stop_started_worker(root: str) -> None:
    """Wait for the worker a client started to listen, then send it a request of other code:
    it leaves at once."""
    address = os.path.join(root, client.SOCKET_NAME)
    deadline = time.monotonic() + 60
    while not os.path.exists(address) and time.monotonic() < deadline:
        time.sleep(0.05)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(address)
        wire.send_request(sock, {"op": "run", "stamp": "0.0.0-stop"}, b"")
        assert wire.receive_answer(sock) == (wire.STALE, 0, b"", b"")


def test_signals_are_passed_on_to_the_command(built: str, serving: worker.Worker, tmp_path: Path) -> None:
    """SIGTERM to the client reaches the command's process group, as in the Python client."""
    results = []
    for tokens in ([built], launcher.python_argv()):
        ready = tmp_path / "ready"
        # The pause: the Python client sets its handlers just after the command starts.
        script = f"trap 'echo term; exit 5' TERM; sleep 1; : > {ready}; while :; do :; done"
        process = subprocess.Popen([*tokens, "run", "--shell", script], env=_env(serving.root),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        deadline = time.monotonic() + 30
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=30)
        results.append(_without_timing((process.returncode, out, err)))
        ready.unlink()
        _forget_runs(serving.root)
    assert results[0] == results[1]
    assert b"term" in results[0][1] and results[0][0] == 5


def _both_hooks(built: str, args: list[str], data: bytes, env: dict[str, str]) -> tuple[Result, Result]:
    native_result = _call([built, "hook", "claude-code", *args], env, data)
    python_result = _call([*launcher.python_argv(), "hook", "claude-code", *args], env, data)
    return native_result, python_result


@pytest.mark.parametrize("case", HOOK_CASES.values(), ids=HOOK_CASES.keys())
def test_a_hook_call_prints_what_the_python_client_prints(
    built: str, serving: worker.Worker, hook_project: Path, case: tuple[list[str], list[str]]  # noqa: F811
) -> None:
    (command,), args = case
    env = _env(serving.root)
    for data in (_hook_call(command, hook_project), b"{not json", b"[]", b""):
        native_result, python_result = _both_hooks(built, args, data, env)
        assert native_result == python_result
        assert native_result[0] == 0


def test_hook_calls_the_worker_leaves_are_answered_by_python(
    built: str, serving: worker.Worker, short_store: str, hook_project: Path  # noqa: F811
) -> None:
    """PostToolUse, help, no worker, the worker switched off: the same answer all the same."""
    post = _hook_call("ls", hook_project, "PostToolUse")
    pre = _hook_call("git status", hook_project)
    calls = [
        ([], post, _env(serving.root)),
        (["--help"], pre, _env(serving.root)),
        ([], pre, _env(short_store + "-none")),
        ([], pre, _env(serving.root, TOKENLAB_WORKER="0")),
    ]
    for args, data, env in calls:
        native_result, python_result = _both_hooks(built, args, data, env)
        assert native_result == python_result
    assert b"updatedInput" in _both_hooks(built, [], pre, _env(short_store + "-none"))[0][1]


class _RecordingWorker:
    """A fake worker at `root` that records each request and answers `fallback`."""

    def __init__(self, root: str) -> None:
        self.requests: list[tuple[dict[str, object] | None, bytes]] = []
        self.encoded_headers: list[bytes] = []
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(os.path.join(root, client.SOCKET_NAME))
        self._listener.listen()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            with connection:
                assert wire.receive_exactly(connection, len(wire.PREAMBLE)) == wire.PREAMBLE
                sizes = [int.from_bytes(wire.receive_exactly(connection, 8), "big") for _ in "hp"]
                encoded, payload = (wire.receive_exactly(connection, size) for size in sizes)
                self.encoded_headers.append(encoded)
                self.requests.append((ast.literal_eval(encoded.decode()), payload))
                connection.sendall(wire.answer_bytes(wire.FALLBACK))

    def close(self) -> None:
        self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        self._thread.join(10)


@pytest.fixture
def recording(short_store: str) -> Iterator[_RecordingWorker]:
    fake = _RecordingWorker(short_store)
    yield fake
    fake.close()


# Every kind of byte a path, an argument or a variable may hold: quotes, backslashes, control
# characters, UTF-8 of one to four bytes, and bytes that are not UTF-8 (a lone continuation
# byte, an encoded surrogate, a truncated sequence).
_AWKWARD_UTF8 = b"we'ird \"q\" \\ \t\n\x7f caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"
_AWKWARD = _AWKWARD_UTF8 + b" \xff \x80 \xed\xa0\x80 \xe2\x82"


def test_a_hook_request_is_the_python_clients_for_any_bytes(
    built: str, recording: _RecordingWorker, short_store: str, tmp_path: Path
) -> None:
    """The fake worker answers `fallback`: the native client hands over to Python, whose
    client sends its own request; both requests are equal, whatever bytes they carry."""
    folder = os.path.join(bytes(tmp_path), _AWKWARD)
    os.mkdir(folder)
    env = {**os.environb, b"TOKENLAB_STORE": os.fsencode(short_store), b"TOKENLAB_WORKER": b"1",
           b"HOME": _AWKWARD, b"CLAUDE_PROJECT_DIR": b"/p/" + _AWKWARD}  # fmt: skip
    env.pop(b"CLAUDE_CONFIG_DIR", None)
    data = b'{"hook_event_name": "PreToolUse"}\xff'
    argv = [built.encode(), b"hook", b"claude-code", _AWKWARD, b"--exclude", b""]
    done = subprocess.run(argv, input=data, capture_output=True, env=env, cwd=folder, check=False)
    assert done.returncode == 0
    (native_header, native_payload), (python_header, python_payload) = recording.requests
    assert native_header == python_header and native_payload == python_payload == data
    assert native_header is not None
    assert native_header["args"] == [os.fsdecode(_AWKWARD), "--exclude", ""]
    assert native_header["cwd"] == os.fsdecode(folder)
    expected_env = {"HOME": os.fsdecode(_AWKWARD), "CLAUDE_PROJECT_DIR": os.fsdecode(b"/p/" + _AWKWARD)}
    assert native_header["env"] == expected_env
    assert native_header["executable"] == sys.executable and native_header["stamp"] == code_stamp()


def test_an_ascii_request_is_byte_for_byte_the_python_clients(
    built: str, recording: _RecordingWorker, short_store: str, tmp_path: Path
) -> None:
    """Where every string is ASCII, the header is written as Python's `repr` writes it (the
    fake worker's `fallback` hands the call to Python, whose client asks it again)."""
    folder = tmp_path / "it's \"here\"\t\\"
    folder.mkdir()
    env = {**_env(short_store), "HOME": "/h/'q'\n\x01\x7f"}
    args = ["--exclude", 'docker "x"', "it's"]
    assert _call([built, "hook", "claude-code", *args], env, b"{}", cwd=str(folder))[0] == 0
    native_header, python_header = recording.encoded_headers
    assert native_header == python_header


def test_a_run_request_is_the_python_clients_for_any_bytes(
    built: str, recording: _RecordingWorker, short_store: str, tmp_path: Path
) -> None:
    """After `fallback` each client analyses the run itself: same request, same output."""
    env = {**os.environb, b"TOKENLAB_STORE": os.fsencode(short_store), b"TOKENLAB_WORKER": b"1",
           b"CLAUDECODE": b"1"}  # fmt: skip
    for awkward in (_AWKWARD_UTF8, _AWKWARD):
        folder = os.path.join(bytes(tmp_path), awkward)
        os.mkdir(folder)
        results = []
        for tokens in ([built], launcher.python_argv()):
            command = [b"printf", b"%s\\n", awkward, b"x"]
            argv = [*map(os.fsencode, tokens), b"run", b"--split", b"--", *command]
            done = subprocess.run(argv, capture_output=True, env=env, cwd=folder, check=False)
            results.append(_without_timing((done.returncode, done.stdout, done.stderr)))
            _forget_runs(short_store)
        if awkward == _AWKWARD_UTF8:  # the store cannot yet record a command that is not UTF-8
            assert results[0] == results[1] and results[0][0] == 0
        (native_header, native_payload), (python_header, python_payload) = recording.requests[-2:]
        assert native_header is not None and python_header is not None
        durations = native_header.pop("duration"), python_header.pop("duration")
        assert all(isinstance(duration, float) for duration in durations)
        assert native_header == python_header and native_payload == python_payload
        assert native_header["command"] == ["printf", "%s\\n", os.fsdecode(awkward), "x"]
        assert native_header["cwd"] == os.fsdecode(folder) and native_header["host"] == "claude-code"


def _build_variant(folder: Path, **defines: str) -> str:
    """A client built as `native.build` builds it, but with `defines` changed."""
    path = str(folder / native.NATIVE_NAME)
    changed = {f"-D{name}=": f"-D{name}={native.c_string(value)}" for name, value in defines.items()}
    command = [next((new for old, new in changed.items() if arg.startswith(old)), arg)
               for arg in native.compile_command(path)]  # fmt: skip
    subprocess.run(command, check=True)
    return path


def test_a_client_left_behind_by_an_upgrade_hands_every_call_to_python(
    recording: _RecordingWorker, short_store: str, tmp_path: Path, hook_project: Path  # noqa: F811
) -> None:
    """Built for another version than the package now has, it would make every worker it
    meets restart: it sends nothing, and Python's client asks instead."""
    older = _build_variant(tmp_path, TOKENS_VERSION="0.0.1")
    data = _hook_call("git status", hook_project)
    done = _call([older, "hook", "claude-code"], _env(short_store), data)
    assert done == _call([*launcher.python_argv(), "hook", "claude-code"], _env(short_store), data)
    assert len(recording.requests) == 2  # one from each Python client, none from the native one
    stamps = [header["stamp"] for header, _ in recording.requests if header is not None]
    assert stamps == [code_stamp()] * 2


def test_a_hook_whose_launcher_is_gone_lets_the_command_through(short_store: str, tmp_path: Path) -> None:
    """Python would exit 2 on a missing entry file, which Claude Code takes for a block."""
    orphan = _build_variant(tmp_path, TOKENS_ROOT=str(tmp_path / "gone"))
    call = b'{"hook_event_name": "PreToolUse"}'
    assert _call([orphan, "hook", "claude-code"], _env(short_store), call) == (0, b"", b"")


def test_hooks_and_rewrites_name_the_native_client_only_while_it_is_current(
    built: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert native.current(built)
    monkeypatch.setattr(native, "installed_path", lambda: built)
    assert launcher.tokens_argv() == [built]
    assert launcher.runs_tokenlab([built, "run", "--shell", "ls"])
    assert launcher.tokenlab_args([built, "hook", "claude-code"]) == ["hook", "claude-code"]
    os.utime(built, ns=(0, 0))  # older than its source
    assert not native.current(built) and launcher.tokens_argv() == launcher.python_argv()
    other = tmp_path / native.NATIVE_NAME
    other.write_bytes(Path("/bin/true").read_bytes())  # runnable, built for nothing of ours
    other.chmod(0o755)
    assert not native.current(str(other))
    monkeypatch.setattr(sys, "executable", "/another/python")
    assert not native.current(native.installed_path())


def test_a_client_stands_for_its_python_by_any_name_in_its_folder(
    built: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A venv's `python` and `python3` are one Python; the interpreter they lead to, in
    another folder, is not this venv's."""
    assert native.built_for(Path(built).read_bytes()) == (sys.executable, code_stamp())
    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python").symlink_to(sys.executable)
    (venv / "python3").symlink_to("python")
    client_path = _build_variant(venv, TOKENS_PYTHON=str(venv / "python"))
    monkeypatch.setattr(sys, "executable", str(venv / "python3"))
    assert native.current(client_path)
    monkeypatch.setattr(sys, "executable", os.path.realpath(venv / "python"))
    assert not native.current(client_path)
