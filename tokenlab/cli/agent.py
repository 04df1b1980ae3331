"""`tokens run`, `tokens gain` and `tokens discover`: parse, call `tokenlab.agent`, render."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tokenlab.cli.common import JsonOption, StoreOption, domain_errors
from tokenlab.optimizers import Granularity

if TYPE_CHECKING:
    from tokenlab.tallies import Tally

# Options end at the first word of the command: `tokens run ls --json` runs `ls --json`.
_RUN_SETTINGS = {"allow_interspersed_args": False, "ignore_unknown_options": True}
_SINCE_RE = re.compile(r"(\d+(?:\.\d+)?)\s*([smhdw])")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_BAR_WIDTH = 24
_EIGHTHS = " ▏▎▍▌▋▊▉"


def register(app: typer.Typer) -> None:
    app.command("run", context_settings=_RUN_SETTINGS)(run)
    app.command("gain")(gain)
    app.command("discover")(discover)


@domain_errors
def run(
    command: Annotated[
        list[str] | None, typer.Argument(metavar="[--] CMD [ARGS]...", help="The command, run as given.")
    ] = None,
    shell: Annotated[
        str | None, typer.Option("--shell", help="Run this line with /bin/sh -c (chains and pipes).")
    ] = None,
    split: Annotated[bool, typer.Option("--split", help="Capture stdout and stderr apart.")] = False,
    timeout: Annotated[
        float | None, typer.Option("--timeout", metavar="S", help="End the process group after S seconds.")
    ] = None,
    granularity: Annotated[
        Granularity, typer.Option(help="coarse or fine for a successful run (a failed one is fine).")
    ] = Granularity.COARSE,
    no_redact: Annotated[bool, typer.Option("--no-redact", help="Do not mask credentials.")] = False,
    trace: Annotated[bool, typer.Option("--trace", help="Print the stage trace on stderr.")] = False,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Run a command and print the visible text of its output; exit with its status."""
    from tokenlab.agent.run import Caller, Command, RunOptions, output
    from tokenlab.agent.run import run as run_command
    from tokenlab.errors import InputError
    from tokenlab.store import open_store

    if (shell is None) == (not command):
        raise InputError("give either a command after -- or --shell LINE, not both")
    if timeout is not None and timeout <= 0:
        raise InputError("--timeout must be more than 0 seconds")
    resolved = open_store(store)
    options = RunOptions(split=split, timeout=timeout, granularity=granularity, redact=not no_redact)
    what = Command.of_shell(shell) if shell is not None else Command.of_args(command or [])
    progress = _Progress() if sys.stderr.isatty() else None
    try:
        result = run_command(what, resolved, options, progress)
    finally:
        if progress:
            progress.clear()
    answer = output(result, resolved.root, Caller.here(), as_json=as_json, trace=trace)
    answer.write_stdout(sys.stdout.buffer)
    sys.stdout.flush()
    sys.stderr.buffer.write(answer.stderr)
    if answer.exit_code:
        raise typer.Exit(answer.exit_code)


class _Progress:
    """One self-erasing line on a terminal's stderr while a command runs longer than a second."""

    def __init__(self) -> None:
        self.shown = False

    def __call__(self, captured: int, seconds: float) -> None:
        if seconds < 1.0:
            return
        sys.stderr.write(f"\r\x1b[K[tokens run: {_size(captured)} captured, {seconds:.0f} s]")
        sys.stderr.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _size(count: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if count < 1024 or unit == "GB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024  # type: ignore[assignment]
    return str(count)


@domain_errors
def gain(
    since: Annotated[
        str | None, typer.Option("--since", metavar="AGE", help="Only runs newer than AGE: 30m, 24h, 7d, 2w.")
    ] = None,
    by: Annotated[
        str, typer.Option("--by", help="Group rows by command, type, day, model (proxy rows) or tool.")
    ] = "command",
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Tokens saved by `analyze`, `run` and the agent hooks, from the savings ledger in the store folder,
    and how often outputs were fetched again (a repeated run or tool call, a ref opened)."""
    from tokenlab import ledger, tallies
    from tokenlab.commands import emit_json
    from tokenlab.errors import InputError
    from tokenlab.store import open_store

    try:
        grouping = tallies.GroupBy(by)
    except ValueError:
        raise InputError("--by must be command, type, day, model or tool") from None
    cutoff = time.time() - parse_age(since) if since else None
    root = open_store(store).root
    try:
        found = ledger.records(root, cutoff)
    except ledger.LedgerError as error:
        raise InputError(str(error)) from None
    outputs = [entry for entry in found if entry.kind is not ledger.Kind.REF]
    rows = tallies.group(outputs, grouping)
    totals = tallies.total(rows)
    host = tallies.against_host(outputs)
    refetch = tallies.refetch(found)
    if as_json:
        emit_json(
            {
                "ledger": str(ledger.ledger_path(root)),
                "since": since,
                "by": grouping.value,
                "totals": totals.as_dict() | {"key": None},
                "against_host": host.as_dict(),
                "refetch": refetch.as_dict(),
                "rows": [row.as_dict() for row in rows],
            }
        )
        return
    window = f"in the last {since}" if since else "in all"
    typer.echo(f"{totals.runs:,} runs {window}: {_summary(totals)}")
    if host.runs:
        typer.echo(
            f"{host.runs:,} tool outputs replaced by agent hooks: {host.visible_tokens:,} tokens "
            f"shown where the agents would have shown {host.host_tokens:,} ({host.raw_tokens:,} raw)"
        )
    if refetch.outputs:
        typer.echo(
            f"re-fetch rate {100 * refetch.rate:.1f}%: {refetch.reruns:,} runs or tool calls repeated within "
            f"{ledger.RERUN_WINDOW / 60:g} minutes, {refetch.ref_opens:,} refs opened"
        )
    if rows:
        typer.echo("")
        typer.echo(table(rows, grouping.value, sys.stdout.isatty()))


def parse_age(text: str) -> float:
    """Seconds in `30m`, `24h`, `7d`, `2w` (or `90s`)."""
    from tokenlab.errors import InputError

    match = _SINCE_RE.fullmatch(text.strip())
    if not match:
        raise InputError(f"--since takes an age such as 30m, 24h, 7d or 2w, not {text!r}")
    return float(match.group(1)) * _UNIT_SECONDS[match.group(2)]


def _summary(totals: Tally) -> str:
    return (
        f"{totals.raw_tokens:,} tokens in, {totals.visible_tokens:,} shown, "
        f"{totals.saved_tokens:,} saved ({totals.saved_pct:.1f}%)"
    )


def table(tallies: Sequence[Tally], heading: str, colour: bool = False) -> str:
    """Rows of tallies with a bar of saved tokens each, scaled to the largest."""
    width = max([len(heading), *(len(row.key) for row in tallies)])
    width = min(width, 40)
    top = max((row.saved_tokens for row in tallies), default=0)
    lines = [f"{heading:<{width}}  {'runs':>6}  {'raw':>11}  {'shown':>10}  {'saved':>11}  {'%':>5}"]
    for row in tallies:
        key = row.key if len(row.key) <= width else row.key[: width - 1] + "…"
        bar = _bar(row.saved_tokens, top)
        if colour and bar:
            bar = f"\x1b[32m{bar}\x1b[0m"
        lines.append(
            f"{key:<{width}}  {row.runs:>6,}  {row.raw_tokens:>11,}  {row.visible_tokens:>10,}  "
            f"{row.saved_tokens:>11,}  {row.saved_pct:>5.1f}  {bar}".rstrip()
        )
    return "\n".join(lines)


def _bar(value: int, top: int) -> str:
    if top <= 0 or value <= 0:
        return ""
    eighths = max(1, round(_BAR_WIDTH * 8 * value / top))
    return "█" * (eighths // 8) + (_EIGHTHS[eighths % 8] if eighths % 8 else "")


@domain_errors
def discover(
    path: Annotated[
        Path | None,
        typer.Argument(help="Transcript file or folder (default: ~/.claude/projects)."),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """What tokenlab would have saved on the tool results of Claude Code transcripts."""
    from tokenlab.agent import discover as transcripts
    from tokenlab.commands import emit_json

    report = transcripts.discover(path if path is not None else transcripts.default_location())
    if as_json:
        emit_json(report.as_dict())
        return
    typer.echo(
        f"{report.transcripts:,} transcripts, {report.totals.runs:,} tool results: {_summary(report.totals)}"
    )
    if report.findings:
        typer.echo(
            f"Claude Code showed {report.host_tokens:,} tokens of them (its own cap and previews); "
            f"tokenlab would have shown {report.totals.visible_tokens:,}"
        )
    if report.skipped_lines:
        typer.echo(f"({report.skipped_lines:,} lines were not JSON and were skipped)")
    colour = sys.stdout.isatty()
    for heading, rows in (("tool", report.by_tool), ("command", report.by_command)):
        if rows:
            typer.echo("")
            typer.echo(table(rows, heading, colour))
