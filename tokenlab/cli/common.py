"""What every `tokens` command shares: the error edge, JSON output and common options."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer

from tokenlab.errors import TokenlabError, error_line

F = TypeVar("F", bound=Callable[..., Any])

# A string, not a Path: `postgresql://…` would lose a slash in a Path.
StoreOption = Annotated[
    str | None,
    typer.Option(
        "--store",
        metavar="DIR|URL",
        help="Store folder, or postgresql://user@host:port/db (default: $TOKENLAB_STORE, else ./var/context).",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def fail(error: TokenlabError) -> typer.Exit:
    """Render a domain error as one line on stderr; return the Exit to raise."""
    typer.echo(error_line(error), err=True)
    return typer.Exit(error.exit_code)


def domain_errors(command: F) -> F:
    """Turn domain errors raised by `command` into a one-line message and their exit code."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except TokenlabError as error:
            raise fail(error) from None

    return wrapper  # type: ignore[return-value]
