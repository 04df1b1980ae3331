"""The command as `tokens run` starts it: as `subprocess.Popen(…, start_new_session=True)`
would (a session of its own, no descriptor of ours, the signals Python ignores back to
their defaults), not found / not executable as 127 / 126, and the signals `tokens` gets
passed on to it. Output order, bytes, timeouts and memory: `test_run.py`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tokenlab.agent import capture
from tokenlab.agent.capture import CommandNotRunError, Limits, capture_output
from tokenlab.mapped import FAULT_AROUND

PY = sys.executable


def captured(argv: list[str], folder: Path, limits: Limits | None = None) -> tuple[int, bytes]:
    capture = capture_output(tuple(argv), str(folder), limits or Limits())
    try:
        return capture.status, capture.read("output")
    finally:
        capture.close()


def test_the_command_leads_a_session_of_its_own(tmp_path: Path) -> None:
    probe = "import os; print(os.getsid(0) == os.getpid() == os.getpgid(0))"
    assert captured([PY, "-c", probe], tmp_path) == (0, b"True\n")


def test_the_signals_python_ignores_are_back_to_their_defaults(tmp_path: Path) -> None:
    """Else `yes | head -1` would end with an error on a broken pipe, not quietly."""
    assert signal.getsignal(signal.SIGPIPE) == signal.SIG_IGN  # in this process, as in `tokens`
    status, output = captured(["grep", "^SigIgn:", "/proc/self/status"], tmp_path)
    ignored = int(output.split()[1], 16)
    assert status == 0
    assert ignored & (1 << (signal.SIGPIPE - 1) | 1 << (signal.SIGXFSZ - 1)) == 0
    assert captured(["sh", "-c", "yes | head -1"], tmp_path) == (0, b"y\n")


def test_the_command_gets_no_descriptor_of_ours(tmp_path: Path) -> None:
    read, written = os.pipe()
    os.set_inheritable(written, True)  # as a descriptor `tokens` got from whatever started it
    try:
        probe = "import os, sys\ntry:\n    os.fstat(int(sys.argv[1]))\nexcept OSError:\n    print('closed')"
        assert captured([PY, "-c", probe, str(written)], tmp_path) == (0, b"closed\n")
    finally:
        os.close(read)
        os.close(written)


def test_stdout_and_stderr_are_one_pipe_or_two(tmp_path: Path) -> None:
    line = "import sys; print('out', flush=True); print('err', file=sys.stderr, flush=True); print('again')"
    assert captured([PY, "-c", line], tmp_path) == (0, b"out\nerr\nagain\n")
    capture = capture_output((PY, "-c", line), str(tmp_path), Limits(split=True))
    try:
        assert (capture.read("stdout"), capture.read("stderr")) == (b"out\nagain\n", b"err\n")
    finally:
        capture.close()


def test_a_command_that_cannot_run(tmp_path: Path) -> None:
    plain = tmp_path / "not-executable"
    plain.write_text("#!/bin/sh\necho never\n")
    with pytest.raises(CommandNotRunError) as denied:
        captured([str(plain)], tmp_path)
    assert denied.value.exit_code == 126
    with pytest.raises(CommandNotRunError) as missing:
        captured(["no-such-command-tokenlab"], tmp_path)
    assert missing.value.exit_code == 127
    assert sorted(os.listdir(tmp_path)) == ["not-executable"]  # no spool left behind


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_to_tokens_reaches_the_command(tmp_path: Path, signum: int) -> None:
    ready = tmp_path / "ready"
    child = (
        "import pathlib, signal, sys, time\n"
        "signal.signal(int(sys.argv[2]), lambda *_: (print('got it'), sys.exit(3)))\n"
        "pathlib.Path(sys.argv[1]).touch()\n"
        "time.sleep(60)"
    )
    with subprocess.Popen(
        [PY, "-m", "tokenlab", "run", "--", PY, "-c", child, str(ready), str(int(signum))],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "TOKENLAB_WORKER": "0"},
    ) as tokens:  # fmt: skip
        deadline = time.monotonic() + 60
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        tokens.send_signal(signum)
        out, err = tokens.communicate(timeout=120)
    assert tokens.returncode == 3, err
    assert out.decode().startswith("got it\n[exit 3: ")


def test_output_read_whole_is_never_output_the_mapping_would_take() -> None:
    from tokenlab.agent import capture
    from tokenlab.mapped import MAPPED_BYTES

    assert capture.READ_WHOLE_BYTES <= MAPPED_BYTES


def test_a_pipe_is_read_in_pieces_no_larger_than_a_fault_around_window() -> None:
    """The spool's writes are the pipe's reads: a larger write makes every mapped read of
    the spool map more than a window (`sources.spooled`). Written out in `capture`, so
    that the lean client does not import `mapped`; kept equal here."""
    assert capture._CHUNK == FAULT_AROUND
