"""Memory that does not hold a large input (issue 25): a 200 MB log is analysed in a child
process under a data limit that the code which read the input into memory exceeded
(`RLIMIT_DATA` counts the heap, anonymous mappings and thread stacks, so it holds with the
tokenizer's threads, where `RLIMIT_AS` counts reserved address space too)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LOG_BYTES = 200_000_000
# Measured on this log (3.0 million lines): VmData peaked at 542 MiB when the folded lines
# were joined into one omission in memory, and at 464 MiB while the input was read into
# memory. Mapped from its file, the input is not counted (a shared read-only mapping is
# not data): what remains is the tokenizer and the log optimizer's per-line arrays (README,
# "Memory").
DATA_LIMIT = 350 << 20


@pytest.fixture(scope="session")
def large_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A templated log of about 200 MB that folds almost whole, with one failure at the end."""
    path = tmp_path_factory.mktemp("memory") / "service.log"
    with open(path, "wb") as out:
        written = first = 0
        while written < LOG_BYTES:
            block = "".join(
                f"2026-12-02T10:{(n // 60) % 60:02}:{n % 60:02}Z INFO worker-{n % 8} handled GET"
                f" /api/items/{n} in {n % 97} ms\n"
                for n in range(first, first + 10_000)
            ).encode()
            first += 10_000
            written += out.write(block)
        out.write(b"2026-12-02T11:00:00Z ERROR worker-3 request /api/items/7 failed: connection reset\n")
    return path


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_DATA, (DATA_LIMIT, DATA_LIMIT))


@pytest.mark.slow
def test_a_200_mb_log_is_analysed_under_a_data_limit(large_log: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tokenlab", "analyze", str(large_log)],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        preexec_fn=_limited,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    assert b"failed: connection reset" in proc.stdout
    assert b"refs reload byte-exactly" in proc.stderr
