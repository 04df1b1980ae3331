"""Tests for the call trace optimizer: classification, goldens, what stays visible, exact bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Golden, render_preview
from tokenlab.classify import classify
from tokenlab.optimizers import ContentType, Granularity, Omission, OptimizerConfig
from tokenlab.optimizers.call_trace import optimizer as call_trace
from tokenlab.pipeline import analyze
from tokenlab.restore import restore
from tokenlab.store import FolderStore

COARSE = OptimizerConfig()
FINE = OptimizerConfig(Granularity.FINE)
REAL = Path(__file__).parent.parent / "fixtures" / "real"
CAPTURES = ("strace_f_ringd.log", "strace_probe.log")


def preview(data: bytes, config: OptimizerConfig = COARSE) -> str:
    return render_preview(call_trace.optimize(data, config))


def trace() -> bytes:
    lines = ['execve("./svc", ["./svc"], 0x7ffc /* 35 vars */) = 0']
    for n in range(30):
        lines.append(f"mmap(NULL, {8192 * n}, PROT_READ, MAP_PRIVATE, 3, 0) = 0x7f{n:08x}")
        lines.append(f"close({n + 3})                                = 0")
        if n == 15:
            lines.append('write(3, "checkpoint 7\\n", 13)            = 13')
    lines.append('openat(AT_FDCWD, "/etc/svc.conf", O_RDONLY) = -1 ENOENT (No such file or directory)')
    lines.append('write(2, "svc: no config\\n", 15svc: no config')
    lines.append(") = 15")
    lines += [f'read(4, "", 4096)                        = {n}' for n in range(30)]
    lines.append("svc: serving on :8080")
    lines += [f"futex(0x7f{n:04x}, FUTEX_WAKE_PRIVATE, 1) = 0" for n in range(20)]
    lines += ["exit_group(0)                           = ?", "+++ exited with 0 +++", ""]
    return "\n".join(lines).encode()


@pytest.mark.parametrize("name", CAPTURES)
@pytest.mark.parametrize("granularity", ["coarse", "fine"])
def test_capture_goldens(name: str, granularity: str, golden: Golden) -> None:
    config = FINE if granularity == "fine" else COARSE
    golden.check(f"call_trace/{name}.{granularity}.txt", preview((REAL / name).read_bytes(), config))


@pytest.mark.parametrize("name", CAPTURES)
def test_captures_classify_and_keep_their_signals(name: str, tmp_path: Path) -> None:
    data = (REAL / name).read_bytes()
    assert classify(data).content_type is ContentType.CALL_TRACE
    expected = tuple((REAL / f"{name}.signals").read_text().splitlines())
    store = FolderStore(tmp_path / "store")
    packet = analyze(data, source=name, store=store, signals=expected)
    assert packet.signal_status.value == "PASS", packet.missing_signals
    assert packet.recovery_status.value == "PASS"
    assert restore(packet.visible.encode("utf-8"), store) == data


def test_program_output_writes_failures_and_exits_stay() -> None:
    result = call_trace.optimize(trace(), COARSE)
    shown = render_preview(result)
    assert "svc: serving on :8080\n" in shown
    assert 'write(2, "svc: no config\\n", 15svc: no config\n) = 15\n' in shown
    assert 'openat(AT_FDCWD, "/etc/svc.conf", O_RDONLY) = -1 ENOENT' in shown
    assert "+++ exited with 0 +++" in result.signals
    assert shown.startswith("[call trace: 115 calls, 1 failed (ENOENT ×1)")


def test_other_calls_fold_with_counts_per_name() -> None:
    shown = preview(trace())
    assert "… 61 calls: mmap ×30, close ×30, write ×1\n" in shown
    assert "… 20 calls: futex ×20\n" in shown
    assert "checkpoint 7" not in shown  # a write to another file is routine


def test_a_write_resumed_after_another_process_stays() -> None:
    lines = ['[pid 11] write(1, "up\\n", 3 <unfinished ...>', "[pid 12] getpid( <unfinished ...>"]
    lines += ["[pid 12] <... getpid resumed>) = 12", "[pid 11] <... write resumed>) = 3"]
    lines += [f"[pid 12] brk(NULL) = 0x{n:x}" for n in range(20)]
    data = (trace().decode() + "\n".join(lines) + "\n").encode()
    shown = preview(data)
    assert "[pid 11] <... write resumed>) = 3\n" in shown
    assert "[pid 12] <... getpid resumed>) = 12" not in shown


def test_coarse_and_fine_hold_the_same_folded_bytes() -> None:
    (coarse,) = [p.data for p in call_trace.optimize(trace(), COARSE).parts if isinstance(p, Omission)]
    fine = [p.data for p in call_trace.optimize(trace(), FINE).parts if isinstance(p, Omission)]
    assert len(fine) > 1 and b"".join(fine) == coarse


@pytest.mark.parametrize(
    "name", ["objdump_d_ring.txt", "gcc_wall_61_files.log", "git_blame.txt", "env_sorted.txt"]
)
def test_other_captures_are_not_call_traces(name: str) -> None:
    assert classify((REAL / name).read_bytes()).content_type is not ContentType.CALL_TRACE


def test_hostile_input_restores(tmp_path: Path) -> None:
    line = 'write(1, "\udcff"..., 9\udcff out\r\n) = 9\nbrk(NULL) = 0x1\n'
    data = (line * 300).encode("utf-8", "surrogateescape") + b"\x00"
    assert classify(data).content_type is ContentType.CALL_TRACE
    store = FolderStore(tmp_path / "store")
    packet = analyze(data, source="trace.log", store=store)
    assert packet.recovery_status.value == "PASS"
    assert restore(packet.visible.encode("utf-8"), store) == data
