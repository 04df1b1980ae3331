"""The PostgreSQL store under load and under faults.

- 8 processes × 50 analyses into one store, half the inputs shared by every process:
  `verify` clean, and all 400 visible texts restore exactly from a process that never wrote.
- The server stopped in the middle of a large write (`tokens analyze` of 24 MB; `tokens
  store copy` of a 64 MB ref), and a writer SIGKILLed in the middle of a 64 MB one: nothing
  of that ref is readable, the command exits 1 with one line, and after a restart the refs
  acknowledged before are intact. (analyze counts every token of its input before it exits,
  about 0.2 s a MB, hence the smaller input there.)

The fault tests run on a cluster of their own, since they stop it. The writer pauses
inside its COPY of the large ref (after a few chunks) until the fault is in place, so the
fault always lands mid-write.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.pg_cluster import Cluster, cluster_or_skip
from tokenlab.errors import RefNotFoundError
from tokenlab.restore import restore
from tokenlab.store import FolderStore, open_store
from tokenlab.store.maintenance import verify

PROCESSES, ANALYSES = 8, 50

ANALYST = r"""
import json, sys
from tokenlab.commands import analysis_output

url, worker, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sys.path.insert(0, sys.argv[4])
from tests.test_store_pg_stress import analysis_input

from tokenlab.store import open_store
with open_store(url) as store, open(out, "w") as answers:
    for i in range(int(sys.argv[5])):
        key = f"shared-{i // 2}" if i % 2 == 0 else f"own-{worker}-{i}"
        answer = analysis_output(analysis_input(key), label=key, signals=(), granularity="fine",
                                 redact=True, store=store, as_json=False)
        assert answer.exit_code == 0, answer.stderr
        answers.write(json.dumps({"key": key, "visible": answer.stdout.decode()}) + "\n")
"""


def analysis_input(key: str) -> bytes:
    """A log that folds into several refs; the same key gives the same bytes."""
    seed = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16)
    lines = [f"INFO {key} worker={seed % 97} request {n} served in {n % 7}ms" for n in range(300)]
    lines[seed % 300] = f"ERROR {key} payment failed code={seed % 1000}"
    return ("\n".join(lines) + "\n").encode()


def test_eight_processes_fifty_analyses_each(pg_url: str, tmp_path: Path) -> None:
    with open_store(pg_url) as store:
        store.init()
    tests_dir = str(Path(__file__).parent.parent)
    writers = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                ANALYST,
                pg_url,
                str(n),
                str(tmp_path / f"answers-{n}"),
                tests_dir,
                str(ANALYSES),
            ]
        )
        for n in range(PROCESSES)
    ]
    assert [writer.wait(timeout=300) for writer in writers] == [0] * PROCESSES
    answers = [json.loads(line) for n in range(PROCESSES) for line in (tmp_path / f"answers-{n}").open()]
    assert len(answers) == PROCESSES * ANALYSES
    with open_store(pg_url) as reader:  # this process never wrote
        exact = sum(restore(a["visible"].encode(), reader) == analysis_input(a["key"]) for a in answers)
        report = verify(reader)
    assert exact == PROCESSES * ANALYSES
    assert report.clean and report.checked > 0
    shared = [a["visible"] for a in answers if a["key"] == "shared-0"]
    assert len(shared) == PROCESSES and len(set(shared)) == 1  # racing writers agreed on every id


# --- faults ----------------------------------------------------------------------------------

BIG = 64 << 20

PAUSING_WRITER = r"""
import os, sys, time
import psycopg

ready, go = sys.argv[1], sys.argv[2]
real, rows = psycopg.Copy.write_row, [0]

def write_row(self, row):
    rows[0] += 1
    if rows[0] == 4:  # a few chunks of the large ref are on their way: wait for the fault
        open(ready, "w").close()
        while not os.path.exists(go):
            time.sleep(0.01)
    return real(self, row)

psycopg.Copy.write_row = write_row
from tokenlab.entry import run
sys.exit(run(sys.argv[3:]))
"""


@pytest.fixture(scope="module")
def own_cluster() -> Iterator[Cluster]:
    cluster = cluster_or_skip()
    try:
        yield cluster
    finally:
        cluster.remove()


def _wait_for(path: Path, writer: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while not path.exists():
        assert writer.poll() is None, writer.communicate()
        assert time.monotonic() < deadline, "the writer never reached the middle of its write"
        time.sleep(0.01)


def _acknowledged(url: str, tmp_path: Path) -> list[tuple[bytes, bytes]]:
    """Visible texts of analyses that finished before the fault, with their inputs."""
    from tokenlab.commands import analysis_output

    done = []
    with open_store(url) as store:
        for key in ("before-1", "before-2", "before-3"):
            data = analysis_input(key)
            answer = analysis_output(data, label=key, signals=(), granularity="fine", redact=True,
                                     store=store, as_json=False)  # fmt: skip
            done.append((answer.stdout, data))
    return done


def _start_pausing_writer(
    url: str, tmp_path: Path, command: str = "analyze", size: int = BIG
) -> tuple[subprocess.Popen[bytes], Path, bytes]:
    """`tokens analyze` of `size` random bytes, or `tokens store copy` of a ref of them from a
    folder store, paused in the middle of writing them."""
    big = os.urandom(size)
    if command == "analyze":
        (tmp_path / "big.bin").write_bytes(big)
        argv = ["analyze", str(tmp_path / "big.bin"), "--store", url]
    else:
        FolderStore(tmp_path / "ci").put(big, source="ci", content_type="binary", reason="published")
        argv = ["store", "copy", "--from", str(tmp_path / "ci"), "--to", url]
    writer = subprocess.Popen(
        [sys.executable, "-c", PAUSING_WRITER, str(tmp_path / "ready"), str(tmp_path / "go"), *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _wait_for(tmp_path / "ready", writer)
    return writer, tmp_path / "go", big


def _nothing_of(url: str, big: bytes, acknowledged: list[tuple[bytes, bytes]]) -> None:
    """No ref holds any of `big`; verify is clean; every acknowledged text restores."""
    with open_store(url) as store:
        with pytest.raises(RefNotFoundError):
            store.load("ctx_" + hashlib.sha256(big).hexdigest()[:6])
        assert all(info.sha256 != hashlib.sha256(big).hexdigest() for info in store.refs())
        report = verify(store)
        assert report.clean
        for visible, data in acknowledged:
            assert restore(visible, store) == data


@pytest.mark.parametrize(("command", "size"), [("analyze", 24 << 20), ("copy", BIG)])
def test_server_stopped_mid_write(own_cluster: Cluster, tmp_path: Path, command: str, size: int) -> None:
    url = own_cluster.new_database(f"stopped_mid_{command}")
    acknowledged = _acknowledged(url, tmp_path)
    writer, go, big = _start_pausing_writer(url, tmp_path, command, size)
    own_cluster.stop("fast")
    go.touch()
    out, err = writer.communicate(timeout=300)
    lines = err.decode().splitlines()
    assert writer.returncode == 1 and out == b"", (out, err)
    assert len(lines) == 1 and lines[0].startswith("tokens: PostgreSQL store"), err
    assert "nothing of an unfinished write is kept" in lines[0]
    own_cluster.start()
    _nothing_of(url, big, acknowledged)


def test_writer_killed_mid_write(own_cluster: Cluster, tmp_path: Path) -> None:
    url = own_cluster.new_database("killed_mid_write")
    acknowledged = _acknowledged(url, tmp_path)
    writer, _, big = _start_pausing_writer(url, tmp_path)
    writer.send_signal(signal.SIGKILL)
    writer.communicate(timeout=60)
    _nothing_of(url, big, acknowledged)
    with open_store(url) as store:  # the killed writer's claim on the id is gone with it
        ref_id = store.put(big, source="again", content_type="binary", reason="after the kill")
        assert store.load(ref_id).data == big


# --- two machines ----------------------------------------------------------------------------

WRITER_ADDRESS, READER_ADDRESS = "10.77.0.1", "10.77.0.2"


@pytest.fixture
def two_hosts() -> Iterator[tuple[str, str]]:
    """Two network namespaces joined by a veth pair: a writer's and a reader's machine."""
    if os.getuid() != 0 or not shutil.which("ip"):
        pytest.skip("two machines need root and iproute2 (ip netns)")
    writer, reader = f"tlw{os.getpid()}", f"tlr{os.getpid()}"
    steps = [
        ["ip", "netns", "add", writer],
        ["ip", "netns", "add", reader],
        ["ip", "link", "add", f"{writer}v", "netns", writer, "type", "veth", "peer", "name", f"{reader}v",
         "netns", reader],
        ["ip", "-n", writer, "addr", "add", f"{WRITER_ADDRESS}/24", "dev", f"{writer}v"],
        ["ip", "-n", reader, "addr", "add", f"{READER_ADDRESS}/24", "dev", f"{reader}v"],
        *[["ip", "-n", ns, "link", "set", dev, "up"] for ns in (writer, reader) for dev in ("lo", f"{ns}v")],
    ]  # fmt: skip
    try:
        for step in steps:
            subprocess.run(step, check=True, capture_output=True)
        yield writer, reader
    except subprocess.CalledProcessError as error:
        pytest.skip(f"cannot make network namespaces here: {error.stderr.decode().strip()}")
    finally:
        for ns in (writer, reader):
            subprocess.run(["ip", "netns", "del", ns], check=False, capture_output=True)


def test_a_writer_and_a_reader_on_two_machines(two_hosts: tuple[str, str], tmp_path: Path) -> None:
    from tests.pg_cluster import PASSWORD, PASSWORD_ROLE, ClusterUnavailable, start_cluster

    writer_ns, reader_ns = two_hosts
    try:
        cluster = start_cluster(netns=writer_ns, listen=WRITER_ADDRESS)
    except ClusterUnavailable as why:
        if os.environ.get("CI"):
            pytest.fail(f"CI needs PostgreSQL for the shared-store tests: {why}")
        pytest.skip(f"PostgreSQL store tests skipped: {why}")
    try:
        cluster.new_database("two_hosts")
        url = cluster.url("two_hosts", PASSWORD_ROLE, PASSWORD)
        data = analysis_input("two machines") * 20

        def tokens(ns: str, state: str, *args: str, stdin: bytes) -> subprocess.CompletedProcess[bytes]:
            env = {**os.environ, "TOKENLAB_STATE": str(tmp_path / state)}
            return subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-m", "tokenlab", *args],
                                  input=stdin, capture_output=True, env=env, timeout=120, check=False)  # fmt: skip

        written = tokens(writer_ns, "writer", "analyze", "-", "--store", url, stdin=data)
        assert written.returncode == 0 and b"#ref:ctx_" in written.stdout, written.stderr
        read = tokens(reader_ns, "reader", "restore", "-", "--store", url, stdin=written.stdout)
        assert (read.returncode, read.stdout) == (0, data), read.stderr
        local = url.replace(WRITER_ADDRESS, "127.0.0.1")  # the reader has no server of its own
        refused = tokens(reader_ns, "reader", "restore", "-", "--store", local, stdin=written.stdout)
        assert refused.returncode == 2 and PASSWORD.encode() not in refused.stderr
    finally:
        cluster.remove()
