"""The warm worker: answers exactly as in-process, falls back when it cannot, stops idle."""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tokenlab.agent import client, worker
from tokenlab.entry import analysis_output, plain_analyze

FIXTURES = Path(__file__).parent.parent / "fixtures"


@pytest.fixture
def short_store() -> Iterator[str]:
    """A store folder with a path short enough for a Unix socket."""
    folder = tempfile.mkdtemp(prefix="tl-", dir="/tmp")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def serving(short_store: str) -> Iterator[worker.Worker]:
    """A worker serving `short_store` on a thread, stopped after the test."""
    ready: queue.Queue[worker.Worker] = queue.Queue()
    codes: list[int] = []
    thread = threading.Thread(target=lambda: codes.append(worker.serve(short_store, 60, ready.put)))
    thread.start()
    server = ready.get(timeout=60)
    yield server
    server.shutdown()
    thread.join(30)
    assert codes == [0]


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
    assert serving.answer(header, b"data") == ({"fallback": True}, b"")


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
    here = client.run(dict(arguments), worker=False)
    assert _without_timing(served) == _without_timing(here)


def _without_timing(answer: tuple[int, bytes, bytes]) -> tuple[int, bytes, bytes]:
    """The answer with the command's measured duration, which differs between two runs."""
    code, out, err = answer
    pattern = rb'(seconds=|"duration_s": )[0-9.]+'
    return code, re.sub(pattern, rb"\1", out), re.sub(pattern, rb"\1", err)
