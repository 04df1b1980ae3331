"""`tokens mcp`: serve the budgeted-read tools over MCP (stdio, or streamable HTTP).

Parses options and hands over to `tokenlab.serve.mcp`, which needs the optional
`mcp` extra; without it the command says how to install it and exits 2.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from tokenlab.cli.common import StoreOption, domain_errors

MAX_HTTP_BODY = 24 << 20  # bytes: room for compress's 4 Mi characters, JSON-escaped


@domain_errors
def mcp(
    root: Annotated[
        Path, typer.Option(help="Serve only files under this folder (the tools' working folder).")
    ] = Path("."),
    store: StoreOption = None,
    allow_run: Annotated[
        bool,
        typer.Option(
            "--allow-run",
            help="Offer run_command: any shell command, with this server's rights (off by default).",
        ),
    ] = False,
    http: Annotated[
        bool, typer.Option("--http", help="Serve streamable HTTP at /mcp instead of stdio.")
    ] = False,
    host: Annotated[
        str, typer.Option(help="Address to bind with --http; anything but loopback should use --token.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port for --http.")] = 8766,
    token: Annotated[
        str | None,
        typer.Option(
            envvar="TOKENLAB_TOKEN",
            help="With --http, require `Authorization: Bearer TOKEN` on every request.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Serve read_file, search, pack, deref, changes, expand_ref and compress over MCP (needs the `mcp` extra)."""
    from tokenlab.errors import InputError

    try:
        from tokenlab.serve.mcp import Settings, build_server
    except ImportError as error:
        raise InputError("tokens mcp needs the mcp extra: pip install 'tokenlab[mcp]'") from error
    if not root.is_dir():
        raise InputError(f"--root {root} is not a folder")
    # The store is named before moving into the root, so a relative --store (or the
    # default ./var/context) means the folder it names where the command was typed; so
    # does a database store's local state folder.
    from tokenlab.store import open_store

    named = open_store(store)
    os.environ.setdefault("TOKENLAB_STATE", str(named.root.absolute()))
    settings = Settings(root.resolve(), named.spec, allow_run)
    server = build_server(settings)
    os.chdir(settings.root)  # run_command runs here; relative pointers resolve here
    if not http:
        server.run("stdio")
        return
    try:
        import uvicorn

        from tokenlab.serve.guard import LOOPBACK_HOSTS
        from tokenlab.serve.mcp import http_app
    except ImportError as error:
        raise InputError(
            "tokens mcp --http needs the serve extra too: pip install 'tokenlab[mcp,serve]'"
        ) from error
    loopback = host in LOOPBACK_HOSTS
    if not loopback and not token:
        typer.echo(f"tokens: warning: serving {settings.root} on {host} without --token", err=True)
    app = http_app(server, token=token, loopback=loopback, max_body=MAX_HTTP_BODY)
    typer.echo(f"tokens: MCP for {settings.root} on http://{host}:{port}/mcp", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")


def register(app: typer.Typer) -> None:
    """Add `mcp` to the `tokens` app."""
    app.command("mcp")(mcp)
