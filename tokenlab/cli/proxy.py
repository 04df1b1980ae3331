"""`tokens proxy`: parse options, start `tokenlab.serve.proxy`, run until interrupted."""

from __future__ import annotations

import logging
from typing import Annotated

import typer

from tokenlab.cli.common import StoreOption, domain_errors


@domain_errors
def proxy(
    listen: Annotated[
        str, typer.Option(metavar="HOST:PORT", help="Address to listen on; loopback unless told otherwise.")
    ] = "127.0.0.1:8787",
    upstream_anthropic: Annotated[
        str, typer.Option(metavar="URL", help="Where Anthropic Messages requests go.")
    ] = "https://api.anthropic.com",
    upstream_openai: Annotated[
        str, typer.Option(metavar="URL", help="Where OpenAI Chat Completions and Responses requests go.")
    ] = "https://api.openai.com",
    only_newest: Annotated[
        bool,
        typer.Option(
            "--only-newest/--all-results",
            help="--all-results (the default, measured cheaper: bench/RESULTS.md) compresses every"
            " large tool result; --only-newest only those the provider has not seen yet (and those"
            " compressed before, which stay compressed).",
        ),
    ] = False,
    min_tokens: Annotated[
        int, typer.Option(min=1, help="Leave tool results under this many tokens as they are.")
    ] = 500,
    store: StoreOption = None,
) -> None:
    """Serve a model base URL that compresses large tool results and forwards everything else unchanged.

    Point an agent at it: ANTHROPIC_BASE_URL=http://127.0.0.1:8787, or an OpenAI base URL of
    http://127.0.0.1:8787/v1. The same tool result is always replaced by the same bytes, so a
    provider's prompt cache keeps working; refs open with `tokens show-ref` or MCP expand_ref.
    """
    from tokenlab.errors import InputError
    from tokenlab.serve import LOOPBACK_HOSTS
    from tokenlab.serve.proxy import ProxyServer, ProxySettings, parse_listen
    from tokenlab.store import open_store

    try:
        address = parse_listen(listen)
    except ValueError as error:
        raise InputError(str(error)) from None
    for name, url in (("--upstream-anthropic", upstream_anthropic), ("--upstream-openai", upstream_openai)):
        if not url.startswith(("http://", "https://")):
            raise InputError(f"{name} must be an http:// or https:// URL, not {url!r}")
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    settings = ProxySettings(upstream_anthropic, upstream_openai, only_newest, min_tokens)
    with open_store(store) as opened:
        try:
            server = ProxyServer(address, settings, opened)
        except OSError as error:
            raise InputError(f"cannot listen on {listen}: {error.strerror or error}") from None
        if address[0] not in LOOPBACK_HOSTS:
            typer.echo(f"tokens: warning: the proxy listens on {address[0]}, not loopback", err=True)
        mode = "newest results only" if only_newest else "all results"
        typer.echo(f"tokens: proxy on {server.url} ({mode}, over {min_tokens} tokens)", err=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()


def register(app: typer.Typer) -> None:
    """Add `proxy` to the `tokens` app."""
    app.command("proxy")(proxy)
