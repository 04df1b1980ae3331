"""The `tokens` console entry: the front door, and nothing behind it.

Agents put `tokens analyze` in front of every tool output they read, so its start-up is
paid on every call; importing and running the typer app costs about 30 ms of it. A plain
`analyze` invocation (a source and the options below, nothing else) is parsed here and
run by `commands.run_analyze`, the same function the typer command calls. Anything else
(help, other commands, a repeated or unknown option, a bad value) goes to the typer app,
which owns the help text and the error messages.

A plain `analyze`, `run`, and a `show-ref` drill-down (`--grep/--lines/--json-path/--head/
--tail`, a budget, `--json` or `--raw`), are handed to the warm worker when one serves the
store (see `agent/client.py`), so this module imports nothing of the pipeline at load
time: the warm path's cost is Python's start-up, this module and the client. What the
worker runs is what the typer command runs (`commands.analysis_output`,
`commands.ref_view_output`), so both print the same bytes.

The process then ends with `os._exit` once its output is flushed: every ref is already
fsynced and no thread is left running, and skipping the interpreter's teardown saves
another 10 ms or so on each call.
"""

from __future__ import annotations

import gc
import os
import sys

from tokenlab.errors import TokenlabError, error_line
from tokenlab.heap import own_the_heap

# `--granularity` values, kept equal to `Granularity`'s by a test.
GRANULARITIES = ("coarse", "fine")

# `analyze` options: name -> whether it takes a value. Kept equal to the typer command's
# options by a test.
ANALYZE_OPTIONS = {
    "--granularity": True,
    "--signals": True,
    "--store": True,
    "--no-redact": False,
    "--json": False,
}


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
    granularity = str(values.get("--granularity", GRANULARITIES[0]))
    if len(sources) != 1 or granularity not in GRANULARITIES:
        return None
    signals, store = values.get("--signals"), values.get("--store")
    return {
        "source": sources[0],
        "granularity": granularity,
        "signals": str(signals) if signals else None,
        "redact": "--no-redact" not in values,
        "store": str(store) if store else None,
        "as_json": "--json" in values,
    }


# `run` options before the command: name -> whether it takes a value. Kept equal to the
# typer command's options by a test.
RUN_OPTIONS = {
    "--shell": True,
    "--split": False,
    "--timeout": True,
    "--granularity": True,
    "--no-redact": False,
    "--trace": False,
    "--store": True,
    "--json": False,
}


def plain_run(argv: list[str]) -> dict[str, object] | None:
    """The arguments of a plain `run` command line with a non-terminal stderr (a terminal
    gets the progress line of the typer command), else None."""
    if not argv or argv[0] != "run" or sys.stderr.isatty():
        return None
    values: dict[str, str | bool] = {}
    at = 1
    while at < len(argv) and argv[at].startswith("--") and argv[at] != "--":
        name, has_value, value = argv[at].partition("=")
        if name not in RUN_OPTIONS or name in values or has_value and not RUN_OPTIONS[name]:
            return None
        if RUN_OPTIONS[name] and not has_value:
            at += 1
            if at == len(argv):
                return None
            value = argv[at]
        values[name] = value if RUN_OPTIONS[name] else True
        at += 1
    command = argv[at + 1 :] if at < len(argv) and argv[at] == "--" else argv[at:]
    shell, timeout = values.get("--shell"), values.get("--timeout")
    granularity = str(values.get("--granularity", GRANULARITIES[0]))
    if (shell is None) == (not command) or granularity not in GRANULARITIES or command[:1] == ["-"]:
        return None
    try:
        seconds = float(str(timeout)) if timeout is not None else None
    except ValueError:
        return None
    if seconds is not None and not seconds > 0:
        return None
    return {
        "command": command,
        "shell": shell,
        "split": "--split" in values,
        "timeout": seconds,
        "granularity": granularity,
        "redact": "--no-redact" not in values,
        "trace": "--trace" in values,
        "store": str(values["--store"]) if "--store" in values else None,
        "as_json": "--json" in values,
    }


# `show-ref` options: name -> "flag", "int" or "text" (what its value must be). Kept equal
# to the typer command's options by a test.
SHOW_REF_OPTIONS = {
    "--raw": "flag",
    "--lines": "text",
    "--grep": "text",
    "--context": "int",
    "-C": "int",
    "--ignore-case": "flag",
    "-i": "flag",
    "--json-path": "text",
    "--head": "int",
    "--tail": "int",
    "--budget": "int",
    "--store": "text",
    "--json": "flag",
}
_SHOW_REF_ALIASES = {"-C": "--context", "-i": "--ignore-case"}
_DRILL_OPTIONS = ("--lines", "--grep", "--json-path", "--head", "--tail", "--budget")


def plain_show_ref(argv: list[str]) -> dict[str, object] | None:
    """The store, ref id, `raw`/`as_json` and `RefQuery` fields of a plain `show-ref` drill-down, else
    None: every option once, values as typer reads them. Without a drill-down option it
    prints the whole ref, which stays with the typer command."""
    if not argv or argv[0] != "show-ref" or not all(arg.isascii() or _utf8(arg) for arg in argv):
        return None
    values: dict[str, str | bool] = {}
    ids: list[str] = []
    args = iter(argv[1:])
    for arg in args:
        name, has_value, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name.startswith("-C") and name[2:].isdigit():  # `-C2`, as click reads it
            name, has_value, value = "-C", "=", name[2:]
        kind = SHOW_REF_OPTIONS.get(name)
        name = _SHOW_REF_ALIASES.get(name, name)
        if kind is None:
            if arg.startswith("-"):
                return None
            ids.append(arg)
            continue
        if name in values or kind == "flag" and has_value:
            return None
        if kind != "flag" and not has_value:
            value = next(args, "")
        if kind == "int" and not (value.isdigit() and value.isascii() and len(value) < 19):
            return None
        if kind == "text" and (not value or value.startswith("-")):
            return None
        values[name] = True if kind == "flag" else value
    drill = any(name in values for name in _DRILL_OPTIONS) or "--json" in values or "--ignore-case" in values
    if len(ids) != 1 or not (drill or int(str(values.get("--context", "0")))):
        return None

    def number(name: str) -> int | None:
        return int(str(values[name])) if name in values else None

    def text(name: str) -> str | None:
        return str(values[name]) if name in values else None

    return {
        "store": text("--store"),
        "ref_id": ids[0],
        "raw": "--raw" in values,
        "as_json": "--json" in values,
        "lines": text("--lines"),
        "grep": text("--grep"),
        "context": number("--context") or 0,
        "ignore_case": "--ignore-case" in values,
        "json_path": text("--json-path"),
        "head": number("--head"),
        "tail": number("--tail"),
        "budget_tokens": number("--budget"),
    }


def _utf8(text: str) -> bool:
    """Whether `text` encodes as UTF-8 (an argument undecodable in the locale does not)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def run(argv: list[str]) -> int:
    """Run one `tokens` command line; its exit code."""
    if argv[:2] == ["hook", "claude-code"] and "--help" not in argv:  # before every agent Bash call
        return _claude_hook(argv[2:])
    if argv[:2] == ["hook", "codex"] and "--help" not in argv:  # before every Codex shell command
        from tokenlab.agent.codex_hook import run as answer_codex_hook

        return answer_codex_hook(argv[2:])
    running = plain_run(argv)
    if running is not None:
        return _run_command(running)
    showing = plain_show_ref(argv)
    if showing is not None:
        return _show_ref(showing)
    arguments = plain_analyze(argv)
    if arguments is None:
        gc.enable()  # see `main`
        from tokenlab.cli import app

        try:
            app(args=argv, prog_name="tokens")
        except SystemExit as done:
            return done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        return 0
    try:
        if arguments["source"] == "-":
            from tokenlab.mapped import STDIN_HEAD_BYTES

            head = sys.stdin.buffer.read(STDIN_HEAD_BYTES)
            # A larger input is spooled to a file and mapped, never held whole (`tokenlab/mapped.py`).
            arguments["stdin_data" if len(head) < STDIN_HEAD_BYTES else "stdin_head"] = head
        if _worker_enabled():
            from tokenlab.agent import client

            answer = client.analyze(arguments)
            if answer is not None:
                code, out, err = answer
                sys.stdout.buffer.write(out)
                sys.stdout.flush()
                sys.stderr.buffer.write(err)
                return code
        from tokenlab.commands import run_analyze

        return run_analyze(**arguments)  # type: ignore[arg-type]
    except TokenlabError as error:
        sys.stderr.write(error_line(error) + "\n")
        return error.exit_code


def _claude_hook(args: list[str]) -> int:
    """`tokens hook claude-code`: answered by the warm worker when one serves the store here
    (this process then imports neither `json` nor `re`), else in-process; always 0, and
    nothing printed when anything fails (see `agent/claude_hook.py`)."""
    import io

    try:
        data = sys.stdin.buffer.read()
    except Exception:  # noqa: BLE001 - never fail closed
        return 0
    if _worker_enabled():
        try:
            from tokenlab.agent import client

            printed = client.claude_hook(args, data)
        except Exception:  # noqa: BLE001 - the worker's side failed: answered in-process
            printed = None
        if printed is not None:
            try:
                sys.stdout.buffer.write(printed)
                sys.stdout.buffer.flush()
            except OSError:
                pass
            return 0
    from tokenlab.agent.claude_hook import run as answer_hook

    return answer_hook(args, io.BytesIO(data))


def _run_command(arguments: dict[str, object]) -> int:
    """`tokens run` without the command-line framework: the command runs here, and what it
    printed is analysed by the warm worker when one serves the store (else here)."""
    from tokenlab.agent import client

    try:
        code, out, err = client.run(arguments, worker=_worker_enabled())
    except TokenlabError as error:
        sys.stderr.write(error_line(error) + "\n")
        return error.exit_code
    if isinstance(out, bytes):
        sys.stdout.buffer.write(out)
    else:  # the visible text as the pipeline wrote it, copied out a block at a time
        with out:
            out.write_to(sys.stdout.buffer)
    sys.stdout.flush()
    sys.stderr.buffer.write(err)
    return code


def _show_ref(arguments: dict[str, object]) -> int:
    """A `show-ref` drill-down without the command-line framework: by the warm worker when
    one serves the store, else here."""
    try:
        answer = None
        if _worker_enabled():
            from tokenlab.agent import client

            answer = client.show_ref(arguments)
        if answer is None:
            from tokenlab.agent.host_env import host_of
            from tokenlab.commands import ref_view_output
            from tokenlab.refs.expand import RefQuery

            store = arguments["store"]
            output = ref_view_output(
                store if isinstance(store, str) else None,
                str(arguments["ref_id"]),
                RefQuery.of(arguments),
                raw=bool(arguments["raw"]),
                as_json=bool(arguments["as_json"]),
                host=host_of(os.environ),
            )
            answer = output.exit_code, output.stdout, output.stderr
    except TokenlabError as error:
        sys.stderr.write(error_line(error) + "\n")
        return error.exit_code
    code, out, err = answer
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    sys.stderr.buffer.write(err)
    return code


def _worker_enabled() -> bool:
    """`TOKENLAB_WORKER=0` keeps every command in its own process (the tests set it)."""
    return os.environ.get("TOKENLAB_WORKER", "1") != "0"


def main() -> None:
    # A process that runs one command and exits needs no cyclic garbage collector: over
    # start-up's imports it ran some 30 times (10-30 ms of a cold call) and freed a few
    # hundred objects, and inputs large enough to make more run without it anyway
    # (`pipeline`). The typer app's commands, servers among them, turn it back on.
    gc.disable()
    own_the_heap()
    code = run(sys.argv[1:])
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # the reader went away, as with `| head`
        code = 120
    os._exit(code)
