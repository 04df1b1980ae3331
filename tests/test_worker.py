"""The warm worker: answers exactly as in-process (analyze, run, show-ref), falls back when it
cannot, stops idle, and leaves when a client runs another version of tokenlab."""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tokenlab
from tokenlab import ledger
from tokenlab.agent import client, wire, worker
from tokenlab.agent.launcher import python_argv
from tokenlab.agent.package_files import PackageFiles
from tokenlab.cli import app
from tokenlab.commands import analysis_output
from tokenlab.entry import plain_analyze, plain_show_ref
from tokenlab.entry import run as entry_run
from tokenlab.spooled_text import SpooledText
from tests.warm_worker import NOT_FOR_A_WARM_RUN, serving_on_a_thread

FIXTURES = Path(__file__).parent.parent / "fixtures"


def _in_process(arguments: dict[str, object], data: bytes, signals: tuple[str, ...]) -> tuple[int, bytes, bytes]:
    output = analysis_output(
        data,
        label=str(Path(str(arguments["source"]))) if arguments["source"] != "-" else "<stdin>",
        signals=signals,
        granularity=str(arguments["granularity"]),
        redact=bool(arguments["redact"]),
        store=Path(client.store_root(arguments["store"])),  # type: ignore[arg-type]
        as_json=bool(arguments["as_json"]),
    )
    return output.exit_code, output.stdout, output.stderr


@pytest.mark.parametrize("name", ["service.log", "api_response.json", "auth_guard.diff", "real/mypy_strict.log"])
@pytest.mark.parametrize("extra", [[], ["--json"], ["--granularity", "fine", "--no-redact"]])
def test_worker_answers_exactly_as_in_process(serving: worker.Worker, name: str, extra: list[str]) -> None:
    path = FIXTURES / name
    arguments = plain_analyze(["analyze", str(path), "--store", serving.root, *extra])
    assert arguments is not None
    answer = client.analyze(dict(arguments))
    assert answer is not None
    sidecar = Path(str(path) + ".signals")
    signals = tuple(line for line in sidecar.read_text().splitlines() if line.strip()) if sidecar.exists() else ()
    assert answer == _in_process(arguments, path.read_bytes(), signals)


def test_standard_input_goes_through_the_worker(serving: worker.Worker) -> None:
    arguments = plain_analyze(["analyze", "-", "--store", serving.root])
    assert arguments is not None
    data = (FIXTURES / "service.log").read_bytes()[:30000]
    answer = client.analyze({**arguments, "stdin_data": data})
    assert answer is not None and answer == _in_process(arguments, data, ())


def test_a_request_for_another_store_falls_back(serving: worker.Worker) -> None:
    header = {"op": "analyze", "store": "/elsewhere", "label": "x", "signals": [], "granularity": "coarse",
              "redact": True, "as_json": False}  # fmt: skip
    assert serving.answer(header, b"data") == (wire.FALLBACK, 0, b"", b"")


def test_without_a_worker_the_command_runs_in_process_and_starts_one(
    short_store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[str] = []
    monkeypatch.setattr(client, "start_worker", started.append)
    arguments = plain_analyze(["analyze", str(FIXTURES / "service.log"), "--store", short_store])
    assert arguments is not None
    assert client.analyze(dict(arguments)) is None
    assert started == [short_store]


def test_a_second_worker_for_the_same_store_exits_at_once(serving: worker.Worker) -> None:
    assert worker.serve(serving.root, idle_seconds=60) == 1


def test_an_idle_worker_stops_and_removes_its_socket(short_store: str) -> None:
    started = time.monotonic()
    assert worker.serve(short_store, idle_seconds=0.2) == 0
    assert time.monotonic() - started < 30
    assert not os.path.exists(os.path.join(short_store, client.SOCKET_NAME))


def test_a_worker_of_another_version_leaves_and_the_command_runs_in_process(
    short_store: str, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    """A worker started by other code than the client's (its stamp differs) does no work:
    it frees the store before answering, so that the fresh worker the client starts can
    take it over, and exits; the command prints what it prints in-process."""
    monkeypatch.setattr(worker, "code_stamp", lambda: "0.0.0-another")
    started: list[str] = []
    monkeypatch.setattr(client, "start_worker", started.append)
    source = Path("input.log")
    source.write_bytes((FIXTURES / "service.log").read_bytes()[:30000])
    argv = ["analyze", str(source), "--store", short_store]
    arguments = plain_analyze(argv)
    assert arguments is not None
    codes: list[int] = []
    with serving_on_a_thread(short_store, codes) as (_, thread):
        monkeypatch.setenv("TOKENLAB_WORKER", "1")
        capsysbinary.readouterr()
        code = entry_run(argv)
        printed = capsysbinary.readouterr()
        assert started == [short_store]
        assert not os.path.exists(os.path.join(short_store, client.SOCKET_NAME))
        with open(os.path.join(short_store, client.LOCK_NAME), "rb") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # raises if the worker still held it
        thread.join(30)
        assert codes == [0]  # stopped by itself, before the context's shutdown
    assert (code, printed.out, printed.err) == _in_process(arguments, source.read_bytes(), ())


def test_the_code_stamp_names_the_version_and_the_package_folder() -> None:
    assert tokenlab.code_stamp() == f"{tokenlab.__version__}:{Path(tokenlab.__file__).parent}"


def test_a_worker_whose_package_files_changed_leaves(
    short_store: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker checks its own files on every request: once one was written since it
    started, it answers `stale`, frees the store and exits, as for another version."""
    package = tmp_path / "tokenlab"
    shutil.copytree(Path(tokenlab.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(worker, "package_files", lambda: PackageFiles(str(package)))
    started: list[str] = []
    monkeypatch.setattr(client, "start_worker", started.append)
    arguments = plain_analyze(["analyze", str(FIXTURES / "service.log"), "--store", short_store])
    assert arguments is not None
    codes: list[int] = []
    with serving_on_a_thread(short_store, codes) as (_, thread):
        assert client.analyze(dict(arguments)) is not None  # unchanged: served
        edited = package / "agent" / "run.py"
        os.utime(edited, ns=(0, edited.stat().st_mtime_ns + 1_000_000_000))
        assert client.analyze(dict(arguments)) is None
        assert started == [short_store]
        thread.join(30)
        assert codes == [0]
    assert not os.path.exists(os.path.join(short_store, client.SOCKET_NAME))


def test_socket_and_lock_are_owner_only(serving: worker.Worker) -> None:
    for name in (client.SOCKET_NAME, client.LOCK_NAME):
        assert os.stat(os.path.join(serving.root, name)).st_mode & 0o077 == 0


def test_the_command_line_uses_the_worker_it_started(short_store: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """End to end: the first call runs in-process and starts a worker, the second is served
    by it, both print the same; the worker stops once idle."""
    monkeypatch.setenv("TOKENLAB_WORKER", "1")
    monkeypatch.setenv("TOKENLAB_WORKER_IDLE", "3")
    command = [sys.executable, "-m", "tokenlab", "analyze", str(FIXTURES / "service.log"), "--store", short_store]
    first = subprocess.run(command, capture_output=True, check=False)
    address = client.socket_path(short_store)
    assert address is not None
    deadline = time.monotonic() + 60
    while not os.path.exists(address) and time.monotonic() < deadline:
        time.sleep(0.05)
    second = subprocess.run(command, capture_output=True, check=False)
    assert (first.returncode, first.stdout, first.stderr) == (second.returncode, second.stdout, second.stderr)
    while os.path.exists(address) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not os.path.exists(address)


RUN_CASES = [
    {"shell": "printf 'a\\nb\\n'; echo oops >&2; exit 3"},
    {"shell": "seq 1 3000 | sed 's/^/INFO served request /'"},
    {"command": ["python3", "-c", "print('x' * 50)"], "as_json": True},
    {"shell": "echo out; echo err >&2", "split": True, "trace": True},
]


@pytest.mark.parametrize("case", RUN_CASES, ids=["fails", "long", "json", "split"])
def test_a_run_is_analysed_by_the_worker_exactly_as_in_process(serving: worker.Worker, case: dict[str, object]) -> None:
    arguments = {
        "command": [], "shell": None, "split": False, "timeout": None, "granularity": "coarse",
        "redact": True, "trace": False, "store": serving.root, "as_json": False, **case,
    }  # fmt: skip
    served = client.run(dict(arguments), worker=True)
    _forget_runs(Path(serving.root))  # else the second run repeats the first, and is shown unmodified
    here = client.run(dict(arguments), worker=False)
    assert _without_timing(served) == _without_timing(here)


def test_a_run_the_worker_answers_imports_only_what_it_needs(serving: worker.Worker) -> None:
    """As rewritten for an agent (`<python> -S …/__main__.py run`): the command runs, the
    worker analyses its output, and the process loads none of the modules above."""
    argv = [*python_argv()[:2], "-X", "importtime", *python_argv()[2:], "run", "--store", serving.root]
    done = subprocess.run(
        [*argv, "--", "sh", "-c", "echo out; echo err >&2; exit 3"],
        capture_output=True, env={**os.environ, "TOKENLAB_WORKER": "1"}, check=False,
    )  # fmt: skip
    lines = done.stderr.decode().splitlines()
    imported = {line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")}
    assert done.returncode == 3
    assert done.stdout.decode().startswith("out\nerr\n[exit 3: sh -c ")
    assert "tokenlab.agent.client" in imported and "tokenlab.pipeline" not in imported  # the worker's answer
    assert imported & NOT_FOR_A_WARM_RUN == set()


def _forget_runs(root: Path) -> None:
    for path in root.glob(ledger.LEDGER_NAME + "*"):
        path.unlink()


def _without_timing(answer: tuple[int, bytes | SpooledText, bytes]) -> tuple[int, bytes, bytes]:
    """The answer with the command's measured duration, which differs between two runs (its
    stdout read whole when it is the visible text as the pipeline wrote it)."""
    code, text, err = answer
    out = text if isinstance(text, bytes) else text.getvalue()
    pattern = rb'(seconds=|"duration_s": )[0-9.]+'
    return code, re.sub(pattern, rb"\1", out), re.sub(pattern, rb"\1", err)


# --- show-ref drill-downs ------------------------------------------------------------------

_LOG = b"".join(
    b"2024-05-01 ERROR PaymentService failed req=%d\n" % n if n % 37 == 0 else b"2024-05-01 INFO served req=%d\n" % n
    for n in range(1, 600)
) + b"LONG " + b"x" * 5000 + b" needle " + b"y" * 5000 + b"\ncaf\xc3\xa9 \xe2\x82\xac last line without newline"
_JSON = json.dumps(
    {"meta": {"n": 40}, "items": [{"id": n, "error": {"code": "E", "at": n} if n % 3 == 0 else None} for n in range(40)]},
    indent=2,
).encode()

# `show-ref` options after the ref id; LOG, JSON and BROKEN stand for the refs' ids.
SHOW_REF_CASES = {
    "grep-context": ["LOG", "--grep", "ERROR", "-C", "2"],
    "grep-ignore-case-budget": ["LOG", "--grep", "paymentservice", "-i", "--budget", "80"],
    "grep-json": ["LOG", "--grep=ERROR", "-C1", "--json"],
    "grep-lines": ["LOG", "--grep", "ERROR", "--lines", "100-300", "--budget", "120"],
    "grep-long-line": ["LOG", "--grep", "needle"],
    "grep-utf8": ["LOG", "--grep", "café|€"],
    "grep-none": ["#ref:LOG", "--grep", "nothing like this"],
    "lines": ["LOG", "--lines", "10-20"],
    "lines-open-budget": ["LOG", "--lines", "250-", "--budget", "50"],
    "head": ["LOG", "--head", "5"],
    "tail-json": ["LOG", "--tail", "3", "--json"],
    "head-raw": ["LOG", "--head", "3", "--raw"],
    "budget-zero": ["LOG", "--budget", "0"],
    "json-path": ["JSON", "--json-path", "items[3].error"],
    "json-path-cut": ["JSON", "--json-path", "items", "--budget", "40"],
    "json-only": ["JSON", "--json"],
    "bad-lines": ["LOG", "--lines", "abc"],
    "lines-past-end": ["LOG", "--lines", "9999-"],
    "bad-regex": ["LOG", "--grep", "("],
    "missing-json-path": ["JSON", "--json-path", "items[99]"],
    "json-path-of-a-log": ["LOG", "--json-path", "a.b"],
    "unknown-ref": ["ctx_000000", "--head", "1"],
    "not-a-ref-id": ["nonsense", "--head", "1"],
    "two-modes": ["LOG", "--head", "3", "--tail", "3"],
    "raw-json": ["LOG", "--raw", "--json", "--head", "1"],
    "context-without-grep": ["LOG", "-C", "2"],
    "head-zero": ["LOG", "--head", "0"],
    "corrupt-ref": ["BROKEN", "--head", "1"],
}


@pytest.fixture
def show_ref_ids(serving: worker.Worker) -> dict[str, str]:
    """Refs in the served store: a log, a JSON document, and a corrupted one."""
    from tokenlab.store import FolderStore

    store = FolderStore(Path(serving.root))
    ids = {name: store.put(data, source="t", content_type=name, reason="t") for name, data in
           (("LOG", _LOG), ("JSON", _JSON), ("BROKEN", b"soon corrupt\n" * 50))}  # fmt: skip
    path = store.ref_path(ids["BROKEN"])  # type: ignore[attr-defined]
    path.write_bytes(path.read_bytes()[:-3] + b"XY\n")
    return ids


def _show_ref_argv(case: list[str], ids: dict[str, str], store: str) -> list[str]:
    first = case[0]
    for name, ref_id in ids.items():
        first = first.replace(name, ref_id)
    return ["show-ref", first, *case[1:], "--store", store]


def _three_ways(
    argv: list[str], capsysbinary: pytest.CaptureFixture[bytes]
) -> tuple[tuple[int, bytes, bytes] | None, tuple[int, bytes, bytes], tuple[int, bytes, bytes]]:
    """`argv` answered by the worker, by the plain in-process path, and by the typer command."""
    arguments = plain_show_ref(argv)
    assert arguments is not None
    served = client.show_ref(dict(arguments))
    capsysbinary.readouterr()
    code = entry_run(argv)  # TOKENLAB_WORKER=0: in-process
    here = capsysbinary.readouterr()
    typed = CliRunner().invoke(app, argv)
    return served, (code, here.out, here.err), (typed.exit_code, typed.stdout_bytes, typed.stderr_bytes)


@pytest.mark.parametrize("case", SHOW_REF_CASES.values(), ids=SHOW_REF_CASES.keys())
def test_show_ref_through_the_worker_equals_in_process_and_typer(
    serving: worker.Worker,
    show_ref_ids: dict[str, str],
    case: list[str],
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    served, here, typed = _three_ways(_show_ref_argv(case, show_ref_ids, serving.root), capsysbinary)
    assert served is not None
    assert served == here == typed
    assert typed[0] in (0, 1, 2)


@pytest.mark.parametrize("case", ["grep-context", "unknown-ref", "bad-lines"])
def test_show_ref_names_a_relative_store_as_the_command_does(
    serving: worker.Worker,
    show_ref_ids: dict[str, str],
    case: str,
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(os.path.dirname(serving.root))
    argv = _show_ref_argv(SHOW_REF_CASES[case], show_ref_ids, os.path.basename(serving.root) + "/")
    served, here, typed = _three_ways(argv, capsysbinary)
    assert served is not None and served == here == typed


def test_show_ref_command_line_is_served_by_the_worker(
    serving: worker.Worker,
    show_ref_ids: dict[str, str],
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the worker on, `tokens show-ref` prints the worker's answer."""
    argv = _show_ref_argv(SHOW_REF_CASES["grep-context"], show_ref_ids, serving.root)[:-2]
    monkeypatch.setenv("TOKENLAB_STORE", serving.root)
    expected = CliRunner().invoke(app, argv)
    monkeypatch.setenv("TOKENLAB_WORKER", "1")
    answers: list[tuple[int, bytes, bytes] | None] = []
    ask = client.show_ref
    monkeypatch.setattr(client, "show_ref", lambda arguments: answers.append(ask(arguments)) or answers[-1])
    capsysbinary.readouterr()
    assert entry_run(argv) == 0
    shown = capsysbinary.readouterr()
    assert len(answers) == 1 and answers[0] is not None
    assert (shown.out, shown.err) == (expected.stdout_bytes, expected.stderr_bytes)


def test_show_ref_for_a_database_or_a_missing_store_runs_in_process(
    short_store: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[str] = []
    monkeypatch.setattr(client, "start_worker", started.append)
    for store in ("postgresql://user@localhost:1/db", os.path.join(short_store, "missing")):
        arguments = plain_show_ref(["show-ref", "ctx_abcdef", "--head", "1", "--store", store])
        assert arguments is not None
        assert client.show_ref(arguments) is None
    assert started == []
    arguments = plain_show_ref(["show-ref", "ctx_abcdef", "--head", "1", "--store", short_store])
    assert arguments is not None and client.show_ref(arguments) is None  # no worker yet: one is started
    assert started == [short_store]


def test_a_worker_is_not_idle_while_a_connection_is_open(serving: worker.Worker) -> None:
    """A `tokens run` connects before its command starts and holds the connection while it
    runs, however long: the worker must still be there for its request."""
    serving.last_request -= 1000
    with serving.busy():
        assert serving.idle_for() == 0.0
    assert serving.idle_for() < 1000
