"""Store integrity under crashes and parallel writers (issue: reliability)."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tokenlab.store import FolderStore
from tokenlab.store.maintenance import verify

# A writer that SIGKILLs itself at its K-th write-path system call (write, fsync, link,
# unlink, mkdir): every point of the write protocol gets interrupted across the runs.
CRASHING_WRITER = r"""
import os, signal, sys
from tokenlab.store import FolderStore, Store

kill_at = int(sys.argv[2])
calls = 0

def tripwire(real):
    def wrapped(*args, **kwargs):
        global calls
        calls += 1
        if calls == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)
    return wrapped

for name in ("write", "fsync", "link", "unlink", "mkdir", "open"):
    setattr(os, name, tripwire(getattr(os, name)))

store = FolderStore(__import__("pathlib").Path(sys.argv[1]))
for i in range(int(sys.argv[3])):
    payload = (f"run {sys.argv[4]} payload {i} " * (1 + i * 37)).encode()
    ref_id = store.put(payload, source="crash-test", content_type="text", reason="crash")
    print(ref_id, i, flush=True)
"""


def _payload(run: int, i: int) -> bytes:
    return (f"run {run} payload {i} " * (1 + i * 37)).encode()


def test_killed_writers_never_leave_a_partial_ref(tmp_path: Path) -> None:
    root = tmp_path / "store"
    rng = random.Random(1234)
    completed: dict[str, bytes] = {}
    kills = 0
    for run in range(40):
        kill_at = str(rng.randint(1, 60))
        result = subprocess.run(
            [sys.executable, "-c", CRASHING_WRITER, str(root), kill_at, "8", str(run)],
            capture_output=True,
            text=True,
            check=False,  # most writers are meant to die by SIGKILL
        )
        kills += result.returncode == -signal.SIGKILL
        for line in result.stdout.splitlines():
            ref_id, index = line.split()
            completed[ref_id] = _payload(run, int(index))
    assert kills > 30, "the tripwire should have killed most writers"
    report = verify(FolderStore(root))
    assert report.clean, report
    store = FolderStore(root)
    for ref_id, payload in completed.items():
        assert store.load(ref_id).data == payload
    # Any ref file present (acknowledged or not) reads back as exactly its payload.
    for entry in store.ref_files():
        if not entry.name.startswith("."):
            data = store.load("ctx_" + entry.name).data
            assert hashlib.sha256(data).hexdigest().startswith(entry.name)


def _parallel_writer(args: tuple[str, int]) -> list[tuple[str, bytes]]:
    root, worker = args
    store = FolderStore(Path(root))
    written = []
    for i in range(50):
        # Half the payloads are shared by every worker, so writers race on the same ids.
        payload = f"shared {i}".encode() * 50 if i % 2 else f"worker {worker} item {i}".encode() * 40
        written.append((store.put(payload, source=f"w{worker}", content_type="text", reason="race"), payload))
    return written


@pytest.mark.slow
def test_parallel_writers_lose_nothing(tmp_path: Path) -> None:
    root = tmp_path / "store"
    with multiprocessing.get_context("spawn").Pool(8) as pool:
        results = pool.map(_parallel_writer, [(str(root), w) for w in range(8)])
    store = FolderStore(root)
    ids_by_payload: dict[bytes, set[str]] = {}
    for written in results:
        for ref_id, payload in written:
            assert store.load(ref_id).data == payload
            ids_by_payload.setdefault(payload, set()).add(ref_id)
    assert all(len(ids) == 1 for ids in ids_by_payload.values()), "same bytes, same id"
    assert verify(store).clean
    assert not [e for e in store.ref_files() if e.name.startswith(".")]
    assert os.listdir(root)
