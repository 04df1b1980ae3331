"""The `tokens` console entry, and `tokens analyze` without the command-line framework.

Agents put `tokens analyze` in front of every tool output they read, so its start-up is
paid on every call; importing and running the typer app costs about 30 ms of it. A plain
`analyze` invocation (a source and the options below, nothing else) is parsed here and
run by `run_analyze`, the same function the typer command calls. Anything else (help,
other commands, a repeated or unknown option, a bad value) goes to the typer app, which
owns the help text and the error messages.

The process then ends with `os._exit` once its output is flushed: every ref is already
fsynced and no thread is left running, and skipping the interpreter's teardown saves
another 10 ms or so on each call.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tokenlab.errors import TokenlabError, error_line
from tokenlab.optimizers import Granularity, OptimizerConfig

# `analyze` options: name -> whether it takes a value. Kept equal to the typer command's
# options by a test.
ANALYZE_OPTIONS = {
    "--granularity": True,
    "--signals": True,
    "--store": True,
    "--no-redact": False,
    "--json": False,
}


def run_analyze(
    source: str,
    *,
    granularity: Granularity = Granularity.COARSE,
    signals: Path | None = None,
    redact: bool = True,
    store: Path | None = None,
    as_json: bool = False,
) -> int:
    """Analyze SOURCE: visible text on stdout, the trace on stderr; the exit code."""
    from tokenlab import tokens

    tokens.prefetch_vocabulary()  # read while the pipeline's modules are imported
    from tokenlab.packet import Status
    from tokenlab.pipeline import analyze
    from tokenlab.sources import read_input, signals_for
    from tokenlab.store import Store

    label, data = read_input(source)
    packet = analyze(
        data,
        source=label,
        store=Store.resolve(store),
        config=OptimizerConfig(granularity=granularity),
        signals=signals_for(label, signals),
        redact_secrets=redact,
    )
    if as_json:
        emit_json(packet.as_dict())
    else:
        sys.stdout.write(packet.visible)
        sys.stdout.flush()
        sys.stderr.write("".join(f"{entry.stage:<12} {entry.detail}\n" for entry in packet.trace))
    return 1 if Status.FAIL in (packet.signal_status, packet.recovery_status) else 0


def emit_json(payload: object) -> None:
    import orjson

    sys.stdout.buffer.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n")
    sys.stdout.buffer.flush()


def plain_analyze(argv: list[str]) -> dict[str, object] | None:
    """`run_analyze`'s arguments for a plain `analyze` command line, else None."""
    if not argv or argv[0] != "analyze":
        return None
    values: dict[str, str | bool] = {}
    sources: list[str] = []
    args = iter(argv[1:])
    for arg in args:
        name, has_value, value = arg.partition("=")
        if name in ANALYZE_OPTIONS and name not in values:
            if not ANALYZE_OPTIONS[name]:
                if has_value:
                    return None
                values[name] = True
                continue
            if not has_value:
                value = next(args, "")
            if not value or value.startswith("-"):
                return None
            values[name] = value
        elif arg == "-" or not arg.startswith("-"):
            sources.append(arg)
        else:
            return None
    granularity = str(values.get("--granularity", Granularity.COARSE.value))
    if len(sources) != 1 or granularity not in {g.value for g in Granularity}:
        return None
    signals, store = values.get("--signals"), values.get("--store")
    return {
        "source": sources[0],
        "granularity": Granularity(granularity),
        "signals": Path(str(signals)) if signals else None,
        "redact": "--no-redact" not in values,
        "store": Path(str(store)) if store else None,
        "as_json": "--json" in values,
    }


def run(argv: list[str]) -> int:
    """Run one `tokens` command line; its exit code."""
    arguments = plain_analyze(argv)
    if arguments is None:
        from tokenlab.cli import app

        try:
            app(args=argv, prog_name="tokens")
        except SystemExit as done:
            return done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        return 0
    try:
        return run_analyze(**arguments)  # type: ignore[arg-type]
    except TokenlabError as error:
        sys.stderr.write(error_line(error) + "\n")
        return error.exit_code


def main() -> None:
    code = run(sys.argv[1:])
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # the reader went away, as with `| head`
        code = 120
    os._exit(code)
