"""Human and JSON renderings of results; the CLI prints what these return."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tokenlab.benchmark import BenchmarkReport, BenchmarkRow
from tokenlab.pack.bench_rows import PackRow
from tokenlab.reads.bench_rows import ReadRow

_COLUMNS = (
    "FIXTURE", "TYPE", "RAW", "VISIBLE", "MARKERS", "REFERENCED", "SAVED", "REFS",
    "SIGNALS", "SIGNAL", "RECOVERY", "RESTORE",
)  # fmt: skip


def _label(row: BenchmarkRow) -> str:
    return f"{row.fixture} [{row.granularity}]" if row.granularity == "fine" else row.fixture


def _cells(row: BenchmarkRow) -> tuple[str, ...]:
    packet = row.packet
    raw = packet.raw_measure.tokens if packet.raw_measure else 0
    shown = packet.visible_measure.tokens if packet.visible_measure else 0
    return (
        _label(row),
        packet.content_type.value if packet.content_type else "?",
        f"{raw:,}",
        f"{shown:,}",
        f"{packet.marker_tokens:,}",
        f"{packet.referenced_tokens:,}",
        f"{packet.saved_pct:.2f}%",
        str(len(packet.unique_refs)),
        f"{len(packet.signals)}+{len(packet.automatic_signals)}",
        packet.signal_status.value,
        packet.recovery_status.value,
        row.restore_status.value,
    )


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain fixed-width table: text left-aligned, numbers right-aligned."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]

    def line(cells: Sequence[str]) -> str:
        out = []
        for cell, width in zip(cells, widths):
            numeric = cell[:1].isdigit() or cell[:1] == "-" and cell[1:2].isdigit()
            out.append(cell.rjust(width) if numeric else cell.ljust(width))
        return "  ".join(out).rstrip()

    return "\n".join([line(header), *(line(r) for r in rows)])


_READ_COLUMNS = ("READ FIXTURE", "FULL", "OUTLINE", "RATIO", "SYMBOLS", "POINTERS", "POINTER")


def _read_cells(row: ReadRow) -> tuple[str, ...]:
    return (
        row.fixture,
        f"{row.full_tokens:,}",
        f"{row.outline_tokens:,}",
        f"{row.ratio:.2f}",
        str(row.symbols),
        str(row.pointers_checked),
        row.pointer_status.value,
    )


_PACK_COLUMNS = ("PACK QUERY", "BUDGET", "TOKENS", "ADHERENCE", "FILES", "POINTERS", "STATUS")


def _pack_label(row: PackRow) -> str:
    return f"{row.query or '(no query)'} @ {row.budget_tokens:,}"


def _pack_cells(row: PackRow) -> tuple[str, ...]:
    return (
        row.query or "(no query)",
        f"{row.budget_tokens:,}",
        f"{row.tokens:,}",
        f"{row.adherence:.3f}",
        f"{row.files_shown}/{row.candidates}",
        str(row.pointers_checked),
        row.status.value,
    )


def benchmark_table(report: BenchmarkReport) -> str:
    runs = report.runs
    sections = [table(_COLUMNS, [_cells(row) for row in runs])]
    failed = sum(1 for row in runs if not row.passed)
    counts = f"{len(runs)} runs, {len(runs) - failed} passed, {failed} failed"
    summary = [counts + " (SIGNALS: given + found by the content type's rules, all checked)"]
    summary.extend(
        f"  {_label(row)}: missing {', '.join(map(repr, row.packet.missing_signals))}"
        for row in runs
        if row.packet.missing_signals
    )
    if report.reads:
        sections.append(table(_READ_COLUMNS, [_read_cells(row) for row in report.reads]))
        bad = [row for row in report.reads if row.failure]
        summary.append(f"{len(report.reads)} budgeted reads, {len(bad)} with a failing pointer")
        summary.extend(f"  {row.fixture}: {row.failure}" for row in bad)
    if report.packs:
        sections.append(table(_PACK_COLUMNS, [_pack_cells(row) for row in report.packs]))
        bad_packs = [row for row in report.packs if row.failure]
        summary.append(
            f"{len(report.packs)} packs of the read fixtures, {len(bad_packs)} over budget or with a failing pointer"
        )
        summary.extend(f"  {_pack_label(row)}: {row.failure}" for row in bad_packs)
    summary.append("Tokens: o200k_base (exact); estimates of what a provider bills.")
    return "\n\n".join(sections) + "\n\n" + "\n".join(summary)


def benchmark_as_dict(report: BenchmarkReport) -> dict[str, Any]:
    return {
        "passed": report.passed,
        "runs": _runs_as_dicts(report.runs),
        "reads": [
            {
                "fixture": row.fixture,
                "full_tokens": row.full_tokens,
                "outline_tokens": row.outline_tokens,
                "ratio": round(row.ratio, 4),
                "symbols": row.symbols,
                "pointers_checked": row.pointers_checked,
                "pointer": row.pointer_status.value,
                "failure": row.failure,
            }
            for row in report.reads
        ],
        "packs": [
            {
                "query": row.query,
                "budget_tokens": row.budget_tokens,
                "tokens": row.tokens,
                "adherence": round(row.adherence, 4),
                "files_shown": row.files_shown,
                "candidates": row.candidates,
                "pointers_checked": row.pointers_checked,
                "status": row.status.value,
                "failure": row.failure,
            }
            for row in report.packs
        ],
    }


def _runs_as_dicts(rows: Sequence[BenchmarkRow]) -> list[dict[str, Any]]:
    return [
        {
            "fixture": row.fixture,
            "granularity": row.granularity,
            "restore": {"status": row.restore_status.value},
            "passed": row.passed,
            **{k: v for k, v in row.packet.as_dict().items() if k not in ("visible", "trace")},
            "visible": {
                "bytes": row.packet.visible_measure.bytes if row.packet.visible_measure else 0,
                "tokens": row.packet.visible_measure.tokens if row.packet.visible_measure else 0,
            },
        }
        for row in rows
    ]
