"""The validation suite: every fixture through the pipeline, checked for SIGNAL,
RECOVERY and full RESTORE. Logs run at both granularities."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tokenlab.classify import classify
from tokenlab.errors import TokenlabError
from tokenlab.optimizers import ContentType, Granularity, OptimizerConfig
from tokenlab.pack.bench_rows import PackRow, pack_rows
from tokenlab.packet import ContextPacket, Status
from tokenlab.pipeline import analyze
from tokenlab.reads.bench_rows import ReadRow, read_rows
from tokenlab.restore import restore
from tokenlab.sources import SIGNALS_SUFFIX, is_sidecar, read_signals
from tokenlab.store import Store

READS_FOLDER = "reads"


@dataclass(frozen=True)
class BenchmarkReport:
    runs: list[BenchmarkRow]
    reads: list[ReadRow]
    packs: list[PackRow]

    @property
    def passed(self) -> bool:
        return (
            all(row.passed for row in self.runs)
            and all(row.pointer_status is Status.PASS for row in self.reads)
            and all(row.status is Status.PASS for row in self.packs)
        )


@dataclass(frozen=True)
class BenchmarkRow:
    fixture: str
    granularity: str
    packet: ContextPacket
    restore_status: Status

    @property
    def passed(self) -> bool:
        return (
            self.packet.signal_status is not Status.FAIL
            and self.packet.recovery_status is Status.PASS
            and self.restore_status is Status.PASS
        )


def fixture_files(folder: Path) -> Iterator[Path]:
    """Every analysable file: no sidecars, no hidden files, not the budgeted-read fixtures."""
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if not path.is_file() or is_sidecar(path):
            continue
        if relative.parts[0] == READS_FOLDER or any(p.startswith(".") for p in relative.parts):
            continue
        yield path


def _restore_status(packet: ContextPacket, store: Store) -> Status:
    try:
        rebuilt = restore(packet.visible_bytes, store)
    except TokenlabError:
        return Status.FAIL
    return Status.PASS if rebuilt == packet.raw else Status.FAIL


def run_benchmark(folder: Path, store: Store) -> BenchmarkReport:
    """Analysis rows for every fixture, and budgeted-read and packer rows for `<folder>/reads/`."""
    reads_folder = folder / READS_FOLDER
    reads = read_rows(reads_folder) if reads_folder.is_dir() else []
    packs = pack_rows(reads_folder, store.root) if reads_folder.is_dir() else []
    return BenchmarkReport(_analysis_rows(folder, store), reads, packs)


def _analysis_rows(folder: Path, store: Store) -> list[BenchmarkRow]:
    rows: list[BenchmarkRow] = []
    for path in fixture_files(folder):
        data = path.read_bytes()
        sidecar = path.with_name(path.name + SIGNALS_SUFFIX)
        signals = read_signals(sidecar) if sidecar.is_file() else ()
        granularities = [Granularity.COARSE]
        if classify(data).content_type is ContentType.LOG:
            granularities.append(Granularity.FINE)
        for granularity in granularities:
            packet = analyze(
                data,
                source=str(path.relative_to(folder)),
                store=store,
                config=OptimizerConfig(granularity=granularity),
                signals=signals,
            )
            rows.append(
                BenchmarkRow(packet.source, granularity.value, packet, _restore_status(packet, store))
            )
    return rows
