"""The budgeted-read commands of `tokens`: read, deref, changes, search and serve.

`register(app)` adds them to the main typer app. Each command parses options, calls one
library function from `tokenlab.reads` (imported lazily, so `tokens --help` stays fast)
and renders: plain output is the content on stdout and one header line on stderr; `--json`
prints the response object. Domain errors become one line on stderr and their exit code.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from tokenlab.cli.common import JsonOption, StoreOption, domain_errors
from tokenlab.commands import emit_json


class ReadView(str, Enum):
    """The views a read may ask for (`stub` is only ever returned)."""

    AUTO = "auto"
    OUTLINE = "outline"
    SECTION = "section"
    LINES = "lines"
    FULL = "full"
    SUMMARY = "summary"


BudgetOption = Annotated[
    int | None,
    typer.Option(
        "--budget", min=0, help="Token budget, o200k_base (default 4000; search 2000).", show_default=False
    ),
]
NodeOption = Annotated[
    str | None,
    typer.Option(
        "--node",
        envvar="TOKENLAB_NODE",
        help="Node name in pointers (default: host name).",
        show_default=False,
    ),
]
SummarizerOption = Annotated[
    str | None,
    typer.Option(
        "--summarizer",
        envvar="TOKENLAB_SUMMARIZER",
        help="Command that reads a file on stdin and prints its summary; enables the summary view.",
        show_default=False,
    ),
]


def _emit(content: str | bytes, header: str) -> None:
    sys.stdout.buffer.write(content if isinstance(content, bytes) else content.encode("utf-8"))
    sys.stdout.buffer.flush()
    typer.echo(header, err=True)


def _summarizer(command: str | None, cached_only: bool) -> Any:
    if not command:
        return None
    from tokenlab.reads.summary import Summarizer

    return Summarizer(command, cached_only=cached_only)


def read(
    path: Annotated[Path, typer.Argument(help="File to read.")],
    view: Annotated[
        ReadView, typer.Option(help="View to return; a view that does not fit degrades.")
    ] = ReadView.AUTO,
    budget: BudgetOption = None,
    section: Annotated[
        str | None,
        typer.Option(help="Heading, symbol (Class.method) or key path (a.b.c).", show_default=False),
    ] = None,
    lines: Annotated[
        str | None, typer.Option(help="Line range A-B (1-based), A, or A-.", show_default=False)
    ] = None,
    summarizer: SummarizerOption = None,
    cached_summary: Annotated[
        bool,
        typer.Option(
            "--cached-summary", help="Never run the summarizer; reuse the last summary (maybe stale)."
        ),
    ] = False,
    node: NodeOption = None,
    as_json: JsonOption = False,
) -> None:
    """The most detailed view of PATH that fits the budget: full, outline, section, lines, summary or stub."""
    from tokenlab.reads import views

    request = views.ReadRequest(
        path=path,
        view=views.View(view.value),
        budget_tokens=views.DEFAULT_BUDGET if budget is None else budget,
        section=section,
        lines=views.LineRange.parse(lines) if lines is not None else None,
    )
    response = views.read(
        request, views.ReadOptions(node=node, summarizer=_summarizer(summarizer, cached_summary))
    )
    if as_json:
        emit_json(response.as_dict())
    else:
        _emit(response.raw if response.raw is not None else response.content, response.header)


def deref(
    pointer: Annotated[str, typer.Argument(help="nas://node/tree/path@commit#L1-L2 or path@commit#L1-L2.")],
    verify: Annotated[
        str | None,
        typer.Option(metavar="SHA256", help="Exit 1 unless the lines hash to this.", show_default=False),
    ] = None,
    repo: Annotated[
        Path | None,
        typer.Option(
            help="Repository the pointer's path is in (default: the current one).", show_default=False
        ),
    ] = None,
    node: NodeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Print the exact lines a pointer names, from its commit (not the working tree)."""
    from tokenlab.reads.pointers import WORKTREE, parse_pointer
    from tokenlab.reads.pointers import deref as dereference

    result = dereference(parse_pointer(pointer), repo=repo, node=node)
    if verify is not None:
        result.verify(verify)
    if as_json:
        emit_json({**result.as_dict(), "verified": None if verify is None else True})
        return
    where = (
        "working tree (verify its sha256)" if result.commit == WORKTREE else f"commit {result.commit[:12]}"
    )
    status = ", verified" if verify is not None else ""
    _emit(
        result.data,
        f"{result.pointer.short}: {len(result.data)} bytes from {where}, sha256 {result.sha256}{status}",
    )


def changes(
    path: Annotated[Path, typer.Argument(help="File or folder in a git repository.")],
    since: Annotated[str, typer.Option(help="Older commit.")],
    to: Annotated[
        str | None, typer.Option(help="Newer commit (default: the working tree).", show_default=False)
    ] = None,
    budget: BudgetOption = None,
    store: StoreOption = None,
    node: NodeOption = None,
    as_json: JsonOption = False,
) -> None:
    """What changed in PATH between two commits, compressed when it does not fit the budget."""
    from tokenlab.reads.changes import DEFAULT_BUDGET, ChangesRequest
    from tokenlab.reads.changes import changes as compare

    request = ChangesRequest(path, since, to, DEFAULT_BUDGET if budget is None else budget)
    response = compare(request, store_dir=store, node=node)
    if as_json:
        emit_json(response.as_dict())
    else:
        _emit(response.content, response.header)


def search(
    query: Annotated[str, typer.Argument(help="Text to find (smart case), or a regex with --regex.")],
    paths: Annotated[
        list[Path] | None, typer.Argument(help="Files or folders (default: the current folder).")
    ] = None,
    budget: BudgetOption = None,
    regex: Annotated[bool, typer.Option("--regex", help="QUERY is a Python regular expression.")] = False,
    context: Annotated[int, typer.Option(min=0, max=20, help="Lines of context around each match.")] = 1,
    node: NodeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Ranked snippets with symbol labels and pointers, within the budget; never whole files."""
    from tokenlab.reads.search import DEFAULT_BUDGET, SearchRequest
    from tokenlab.reads.search import search as find

    request = SearchRequest(
        query, tuple(paths or ()), DEFAULT_BUDGET if budget is None else budget, regex, context
    )
    response = find(request, node=node)
    if as_json:
        emit_json(response.as_dict())
    else:
        _emit(response.content, response.header)


def serve(
    host: Annotated[
        str, typer.Option(help="Address to bind; anything but loopback should use --token.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port.")] = 8765,
    root: Annotated[Path, typer.Option(help="Serve only files under this folder.")] = Path("."),
    token: Annotated[
        str | None,
        typer.Option(
            envvar="TOKENLAB_TOKEN",
            help="Require `Authorization: Bearer TOKEN` on every request.",
            show_default=False,
        ),
    ] = None,
    store: StoreOption = None,
    summarizer: SummarizerOption = None,
    node: NodeOption = None,
) -> None:
    """Serve budgeted reads, search, deref and store refs over HTTP (needs the `serve` extra)."""
    from tokenlab.errors import InputError

    try:
        import uvicorn
    except ImportError as error:
        raise InputError("tokens serve needs the serve extra: pip install 'tokenlab[serve]'") from error
    from tokenlab.serve.guard import LOOPBACK_HOSTS
    from tokenlab.serve.http import create_app

    if not root.is_dir():
        raise InputError(f"--root {root} is not a folder")
    if host not in LOOPBACK_HOSTS and not token:
        typer.echo(f"tokens: warning: serving {root} on {host} without --token", err=True)
    app = create_app(
        root,
        token,
        node=node,
        store_dir=store,
        summarizer=_summarizer(summarizer, False),
        allowed_hosts=LOOPBACK_HOSTS if host in LOOPBACK_HOSTS else None,
    )
    typer.echo(f"tokens: serving {root.resolve()} on http://{host}:{port} (OpenAPI at /docs)", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")


def register(app: typer.Typer) -> None:
    """Add read, deref, changes, search and serve to the `tokens` app."""
    for command in (read, deref, changes, search, serve):
        app.command(command.__name__)(domain_errors(command))
