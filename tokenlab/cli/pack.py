"""`tokens pack`: the best views of many files within one token budget.

Parses, calls `tokenlab.pack.pack` (imported lazily, so `tokens --help` stays fast) and
renders: the packed document on stdout and one summary line on stderr, or with `--json`
the result object. Parsed facts are cached in the store folder (`--store`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tokenlab.cli.common import JsonOption, StoreOption, domain_errors
from tokenlab.errors import InputError

if TYPE_CHECKING:
    from tokenlab.store import Store


def register(app: typer.Typer) -> None:
    app.command("pack")(pack)


def _listed(from_file: Path | None) -> tuple[Path, ...]:
    """The paths in a list file (`-` reads stdin)."""
    if from_file is None:
        return ()
    try:
        text = sys.stdin.read() if str(from_file) == "-" else from_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"cannot read the list {from_file}: {error}") from error
    return _paths_in(text)


def _listed_in_ref(store: Store, ref_id: str | None) -> tuple[Path, ...]:
    """The paths in a ref (a file listing tokenlab folded away, e.g. `find`'s output)."""
    if ref_id is None:
        return ()
    try:
        return _paths_in(store.load(ref_id).data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise InputError(f"ref {ref_id} is not a UTF-8 list of paths: {error}") from error


def _paths_in(text: str) -> tuple[Path, ...]:
    """One path a line; blank lines and `#` comments skipped."""
    lines = (line.strip() for line in text.splitlines())
    return tuple(Path(line) for line in lines if line and not line.startswith("#"))


@domain_errors
def pack(
    paths: Annotated[
        list[Path] | None, typer.Argument(help="Files and folders to pack (default: none; see --from-file).")
    ] = None,
    query: Annotated[
        str | None,
        typer.Option("--query", "-q", help="What the pack is for: ranks files and picks sections."),
    ] = None,
    budget: Annotated[
        int | None,
        typer.Option(
            "--budget",
            min=0,
            help="Token budget for the whole output, o200k_base (default 8000).",
            show_default=False,
        ),
    ] = None,
    from_file: Annotated[
        Path | None,
        typer.Option(
            "--from-file", help="A file listing candidate paths, one a line ('-': stdin).", show_default=False
        ),
    ] = None,
    from_ref: Annotated[
        str | None,
        typer.Option(
            "--from-ref",
            metavar="ID",
            help="A ref listing candidate paths, one a line (a folded file listing).",
            show_default=False,
        ),
    ] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """The best view of each file (full, sections, outline, stub) so that all of them fit one budget."""
    from tokenlab.commands import emit_json
    from tokenlab.pack import DEFAULT_BUDGET, PackRequest
    from tokenlab.pack import pack as run_pack
    from tokenlab.store import open_store

    with open_store(store) as resolved:
        request = PackRequest(
            paths=tuple(paths or ()),
            query=query,
            budget_tokens=DEFAULT_BUDGET if budget is None else budget,
            explicit=_listed(from_file) + _listed_in_ref(resolved, from_ref),
        )
        result = run_pack(request, resolved.root)
    if as_json:
        emit_json(result.as_dict())
        return
    sys.stdout.buffer.write(result.content.encode("utf-8", "surrogateescape"))
    sys.stdout.buffer.flush()
    typer.echo(result.header, err=True)
