"""The `tokens` command: parse options, call one library function, render.

Domain errors become a one-line message on stderr and their exit code (2 bad input,
1 a failed invariant); no traceback for bad input.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from tokenlab.cli import agent as cli_agent
from tokenlab.cli import hooks as cli_hooks
from tokenlab.cli import mcp as cli_mcp
from tokenlab.cli import pack as cli_pack
from tokenlab.cli import proxy as cli_proxy
from tokenlab.cli.common import JsonOption, StoreOption, domain_errors
from tokenlab.commands import emit_json, ref_view_output, run_analyze
from tokenlab.optimizers import Granularity

app = typer.Typer(
    name="tokens",
    help="Give coding agents less to read without losing anything.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.command()
@domain_errors
def analyze(
    source: Annotated[str, typer.Argument(help="File to analyze, or - for stdin.")],
    granularity: Annotated[
        Granularity, typer.Option(help="coarse: one ref for folded material; fine: one per group.")
    ] = Granularity.COARSE,
    signals: Annotated[
        Path | None,
        typer.Option(help="Expected substrings, one per line (default: FILE.signals if present)."),
    ] = None,
    no_redact: Annotated[
        bool, typer.Option("--no-redact", help="Do not mask credentials in the visible text.")
    ] = False,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Compress FILE: visible text on stdout, the stage trace on stderr."""
    code = run_analyze(
        source,
        granularity=granularity,
        signals=signals,
        redact=not no_redact,
        store=store,
        as_json=as_json,
    )
    if code:
        raise typer.Exit(code)


@app.command("show-ref")
@domain_errors
def show_ref(
    ref_id: Annotated[str, typer.Argument(metavar="ID", help="ctx_… or #ref:ctx_…")],
    raw: Annotated[
        bool, typer.Option("--raw", help="Write exactly the stored (or shown) bytes, nothing else.")
    ] = False,
    lines: Annotated[
        str | None, typer.Option(help="Line range A-B (1-based), A, or A-.", show_default=False)
    ] = None,
    grep: Annotated[
        str | None,
        typer.Option(
            help="Python regex over the ref's UTF-8 bytes; lines shown as L<n>:.", show_default=False
        ),
    ] = None,
    context: Annotated[
        int, typer.Option("--context", "-C", help="Lines of context around each --grep match.")
    ] = 0,
    ignore_case: Annotated[
        bool, typer.Option("--ignore-case", "-i", help="Case-insensitive --grep.")
    ] = False,
    json_path: Annotated[
        str | None,
        typer.Option(
            "--json-path", help='Subtree of a JSON ref: items[737].error, a["b.c"].', show_default=False
        ),
    ] = None,
    head: Annotated[int | None, typer.Option(help="The first N lines.", show_default=False)] = None,
    tail: Annotated[int | None, typer.Option(help="The last N lines.", show_default=False)] = None,
    budget: Annotated[
        int | None,
        typer.Option(
            help="Token budget, o200k_base (default 4000 with any option above).", show_default=False
        ),
    ] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Print a ref: source, type, reason, then its content; or drill into it within a budget."""
    from tokenlab import ledger
    from tokenlab.agent.host_env import host_of
    from tokenlab.store import open_store

    drill = (lines, grep, json_path, head, tail, budget)
    if all(option is None for option in drill) and not (as_json or context or ignore_case):
        with open_store(store) as resolved:
            record = resolved.load(ref_id)
            ledger.note_ref_open(resolved.root, ref_id, host_of(os.environ))
        if not raw:
            header = (
                f"ref:    {record.id}\nsource: {record.source}\ntype:   {record.content_type}\n"
                f"reason: {record.reason}\nbytes:  {record.length}\n\n"
            )
            sys.stdout.write(header)
            sys.stdout.flush()
        sys.stdout.buffer.write(record.data)
        sys.stdout.buffer.flush()
        return
    from tokenlab.refs.expand import RefQuery

    query = RefQuery(lines, grep, context, ignore_case, json_path, head, tail, budget)
    output = ref_view_output(store, ref_id, query, raw=raw, as_json=as_json, host=host_of(os.environ))
    sys.stdout.buffer.write(output.stdout)
    sys.stdout.buffer.flush()
    sys.stderr.buffer.write(output.stderr)
    sys.stderr.buffer.flush()


@app.command()
@domain_errors
def restore(
    source: Annotated[str, typer.Argument(help="Visible text from `tokens analyze`, or - for stdin.")],
    store: StoreOption = None,
) -> None:
    """Rebuild the original input byte for byte and write it to stdout."""
    from tokenlab.restore import restore as rebuild
    from tokenlab.sources import read_input
    from tokenlab.store import open_store

    _, visible = read_input(source)
    with open_store(store) as resolved:
        original = rebuild(visible, resolved)
    sys.stdout.buffer.write(original)
    sys.stdout.buffer.flush()


@app.command()
@domain_errors
def benchmark(
    fixtures: Annotated[Path, typer.Option(help="Folder of fixtures (with optional NAME.signals).")] = Path(
        "fixtures"
    ),
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Run every fixture; check SIGNAL, RECOVERY and RESTORE, budgeted reads of fixtures/reads/
    and packs of it at several budgets (every evidence pointer dereferenced); exit 1 if any fails."""
    from tokenlab.benchmark import run_benchmark
    from tokenlab.errors import InputError
    from tokenlab.render import benchmark_as_dict, benchmark_table
    from tokenlab.store import open_store

    if not fixtures.is_dir():
        raise InputError(f"fixtures folder not found: {fixtures}")
    report = run_benchmark(fixtures, open_store(store))
    if as_json:
        emit_json(benchmark_as_dict(report))
    else:
        typer.echo(benchmark_table(report))
    if not report.passed:
        raise typer.Exit(1)


store_app = typer.Typer(help="Inspect and maintain the ref store.", no_args_is_help=True)
app.add_typer(store_app, name="store")


def _when(timestamp: float | None) -> str:
    import datetime

    if timestamp is None:
        return "-"
    return datetime.datetime.fromtimestamp(timestamp, datetime.UTC).isoformat(timespec="seconds")


@store_app.command("stats")
@domain_errors
def store_stats(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Refs, bytes held, and the oldest/newest last use (write or read)."""
    from tokenlab.store import open_store
    from tokenlab.store.maintenance import stats

    with open_store(store) as resolved:
        found = stats(resolved)
    payload = {
        "store": resolved.name,
        "refs": found.refs,
        "bytes": found.bytes,
        "oldest_use": _when(found.oldest_use),
        "newest_use": _when(found.newest_use),
    }
    if as_json:
        emit_json(payload)
    else:
        for key, value in payload.items():
            typer.echo(f"{key + ':':<12}{value}")


@store_app.command("verify")
@domain_errors
def store_verify(store: StoreOption = None) -> None:
    """Re-hash every ref; list corrupt or orphaned files; exit 1 if any."""
    from tokenlab.store import open_store
    from tokenlab.store.maintenance import verify

    with open_store(store) as resolved:
        report = verify(resolved)
    for problem in report.corrupt:
        typer.echo(f"corrupt:  {problem}")
    for path in report.orphaned:
        typer.echo(f"orphaned: {path}")
    for path in report.incomplete_writes:
        typer.echo(f"interrupted write (not a ref, removed by gc): {path}")
    verdict = "clean" if report.clean else "NOT clean"
    typer.echo(
        f"{report.checked} refs checked, {len(report.corrupt)} corrupt, "
        f"{len(report.orphaned)} orphaned: {verdict}"
    )
    if not report.clean:
        raise typer.Exit(1)


@store_app.command("gc")
@domain_errors
def store_gc(
    older_than: Annotated[float, typer.Option("--older-than", metavar="DAYS", help="Age limit in days.")],
    dry_run: Annotated[bool, typer.Option("--dry-run", help="List what would be removed.")] = False,
    store: StoreOption = None,
) -> None:
    """Remove refs not written or read for DAYS; their markers can no longer be expanded."""
    from tokenlab.errors import InputError
    from tokenlab.store import open_store
    from tokenlab.store.maintenance import gc

    if older_than < 0:
        raise InputError("--older-than must be zero or more days")
    with open_store(store) as resolved:
        removed = gc(resolved, older_than, dry_run)
    for path in removed:
        typer.echo(path)
    typer.echo(f"{'would remove' if dry_run else 'removed'} {len(removed)} entries")


@store_app.command("init")
@domain_errors
def store_init(store: StoreOption = None) -> None:
    """Create the store if missing: the folder, or the database schema (also migrated)."""
    from tokenlab.store import open_store
    from tokenlab.store.maintenance import init

    with open_store(store) as resolved:
        typer.echo(init(resolved))


@store_app.command("copy")
@domain_errors
def store_copy(
    source: Annotated[str, typer.Option("--from", metavar="DIR|URL", help="The store to copy from.")],
    target: Annotated[str, typer.Option("--to", metavar="DIR|URL", help="The store to copy to.")],
    ids: Annotated[
        list[str] | None,
        typer.Option("--ids", metavar="ID", help="Only these refs (repeat, or comma-separated)."),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Copy refs between two stores under the same ids, verifying every hash.

    Refs the target already holds are skipped; exit 1 if a ref is missing, corrupt or
    conflicting."""
    from tokenlab.store import open_store
    from tokenlab.store.maintenance import copy

    wanted = [part for value in ids for part in value.split(",") if part.strip()] if ids else None
    with open_store(source) as origin, open_store(target) as destination:
        report = copy(origin, destination, wanted)
        names = (origin.name, destination.name)
    if as_json:
        emit_json(
            {"from": names[0], "to": names[1], "copied": report.copied, "present": report.present,
             "missing": report.missing, "failed": report.failed}
        )  # fmt: skip
    else:
        for ref_id in report.missing:
            typer.echo(f"missing:  {ref_id}")
        for problem in report.failed:
            typer.echo(f"failed:   {problem}")
        typer.echo(
            f"{len(report.copied)} copied, {len(report.present)} already there, {len(report.missing)} missing, "
            f"{len(report.failed)} failed: {names[0]} -> {names[1]}"
        )
    if not report.clean:
        raise typer.Exit(1)


def _register_read_commands() -> None:
    from tokenlab.cli.reads import register

    register(app)


_register_read_commands()
cli_agent.register(app)  # run, gain, discover
cli_hooks.register(app)  # hook install, uninstall, print, claude-code
cli_mcp.register(app)  # mcp
cli_pack.register(app)  # pack
cli_proxy.register(app)  # proxy
