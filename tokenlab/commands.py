"""The services every interface calls: `tokens analyze`, a ref drill-down, JSON output.

The typer commands (`cli/`), the console entry's fast path (`entry.py`), the warm worker
(`agent/worker.py`), `tokens run` (`agent/run.py`) and the MCP server (`serve/mcp.py`)
all answer through these functions, so every way in prints the same bytes. `Output` is
what a command prints and its exit code: written by this process, or sent back by the
warm worker.

Nothing of the pipeline is imported at load time: the console entry imports this module
only once it knows it runs a command in-process.
"""

from __future__ import annotations

import sys
from contextlib import nullcontext

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing at run time
if TYPE_CHECKING:
    from pathlib import Path
    from typing import IO

    from tokenlab.spooled_text import SpooledText

    from tokenlab.optimizers import Granularity
    from tokenlab.refs.expand import RefQuery
    from tokenlab.store import Store


def run_analyze(
    source: str,
    *,
    granularity: Granularity | str = "coarse",
    signals: Path | str | None = None,
    redact: bool = True,
    store: Path | str | None = None,
    as_json: bool = False,
    stdin_data: bytes | None = None,
    stdin_head: bytes = b"",
) -> int:
    """Analyze SOURCE: visible text on stdout, the trace on stderr; the exit code.
    `stdin_data` is standard input when the caller already read it (for `-`), and
    `stdin_head` its start when the caller read only that (the rest is read here)."""
    from pathlib import Path

    from tokenlab.counting import tokens

    tokens.prefetch_vocabulary()  # read while the pipeline's modules are imported
    from tokenlab.sources import SPOOL_FOLDER, opened_input, signals_for
    from tokenlab.store import open_store

    with open_store(store) as target:
        if source == "-" and stdin_data is not None:
            given = nullcontext(("<stdin>", stdin_data))
        else:
            given = opened_input(source, target.root / SPOOL_FOLDER, stdin_head)
        with given as (label, data):
            answer = analysis_output(
                data,
                label=label,
                signals=signals_for(label, Path(signals) if signals else None),
                granularity=granularity,
                redact=redact,
                store=target,
                as_json=as_json,
            )
    answer.write_stdout(sys.stdout.buffer)
    sys.stdout.flush()
    sys.stderr.buffer.write(answer.stderr)
    return answer.exit_code


class Output:
    """What a command prints, and its exit code: written by this process or sent back by
    the warm worker (`agent/worker.py`), so both print exactly the same. Its stdout may be
    a visible text as the pipeline wrote it (`SpooledText`): `write_stdout` copies it out
    a block at a time and closes it; `stdout` gives it whole, for an answer sent back."""

    __slots__ = ("_stdout", "exit_code", "stderr")

    def __init__(self, exit_code: int, stdout: bytes | SpooledText, stderr: bytes) -> None:
        self.exit_code, self._stdout, self.stderr = exit_code, stdout, stderr

    @property
    def stdout(self) -> bytes:
        return self._stdout if isinstance(self._stdout, bytes) else self._stdout.getvalue()

    @property
    def stdout_text(self) -> bytes | SpooledText:
        """The stdout as it was given: a visible text is not read whole."""
        return self._stdout

    def read_stdout(self) -> bytes:
        """The stdout whole, its spool given back at once (for an answer sent back by a
        long-lived host, which would otherwise keep its file open until it is collected)."""
        whole = self.stdout
        if not isinstance(self._stdout, bytes):
            self._stdout.close()
            self._stdout = whole
        return whole

    def write_stdout(self, out: IO[bytes]) -> None:
        if isinstance(self._stdout, bytes):
            out.write(self._stdout)
            return
        with self._stdout as text:
            text.write_to(out)


def analysis_output(
    data: bytes,
    *,
    label: str,
    signals: tuple[str, ...],
    granularity: Granularity | str,
    redact: bool,
    store: Store | Path | str,
    as_json: bool,
) -> Output:
    """The pipeline over input already read, rendered as `tokens analyze` prints it.
    `store` is a store, or a `--store` value naming one."""
    from tokenlab.ledger import note_analysis
    from tokenlab.optimizers import Granularity, OptimizerConfig
    from tokenlab.packet import Status
    from tokenlab.pipeline import analyze
    from tokenlab.store import Store, open_store

    target = store if isinstance(store, Store) else open_store(store)
    packet = analyze(
        data,
        source=label,
        store=target,
        config=OptimizerConfig(granularity=Granularity(granularity)),
        signals=signals,
        redact_secrets=redact,
    )
    failed = Status.FAIL in (packet.signal_status, packet.recovery_status)
    note = note_analysis(target.root, packet)  # the savings ledger's row; b"", or a warning line
    if as_json:
        with packet.visible_text:  # read whole into the object, then given back
            return Output(int(failed), json_bytes(packet.as_dict()), note)
    trace = "".join(f"{entry.stage:<12} {entry.detail}\n" for entry in packet.trace)
    return Output(int(failed), packet.visible_text, trace.encode("utf-8") + note)


def ref_view_output(
    store: Store | Path | str | None,
    ref_id: str,
    query: RefQuery,
    *,
    raw: bool = False,
    as_json: bool = False,
    host: str | None = None,
) -> Output:
    """A drill-down into a ref (`expand_ref`), rendered as `tokens show-ref` prints it: the
    shown bytes with one line on stderr, or the `--json` object, or `--raw` bytes alone.
    `store` is a store, or a `--store` value naming one. The ledger counts the opening
    (from the agent `host`, when one asked)."""
    from contextlib import nullcontext

    from tokenlab import ledger
    from tokenlab.errors import InputError
    from tokenlab.refs.expand import expand_ref
    from tokenlab.store import Store, open_store

    if raw and (as_json or query.grep is not None):
        raise InputError("--raw writes exact bytes: it does not go with --json or --grep")
    # A store named here is closed here; one passed in stays open for its owner.
    with nullcontext(store) if isinstance(store, Store) else open_store(store) as resolved:
        view = expand_ref(resolved, ref_id, query)
        ledger.note_ref_open(resolved.root, ref_id, host)
    if as_json:
        return Output(0, json_bytes(view.as_dict()), b"")
    shown = view.raw if view.raw is not None else view.text.encode("utf-8")
    return Output(0, shown, b"" if raw else view.header.encode("utf-8", "backslashreplace") + b"\n")


def json_bytes(payload: object) -> bytes:
    import orjson

    return orjson.dumps(payload, option=orjson.OPT_INDENT_2) + b"\n"


def emit_json(payload: object) -> None:
    sys.stdout.buffer.write(json_bytes(payload))
    sys.stdout.buffer.flush()
