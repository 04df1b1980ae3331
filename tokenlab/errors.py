"""Domain exceptions. The CLI turns each into a one-line message and its exit code."""


class TokenlabError(Exception):
    """Base class; `exit_code` is what the CLI exits with."""

    exit_code = 2


class InputError(TokenlabError):
    """The input or an option cannot be used (exit 2)."""


class RefNotFoundError(TokenlabError):
    """A ref id that the store does not hold (exit 2: the caller named it)."""


class StoreCorruptionError(TokenlabError):
    """Stored bytes no longer match their hash, or a ref needed for recovery is gone (exit 1)."""

    exit_code = 1


class InvariantError(TokenlabError):
    """SIGNAL, RECOVERY or RESTORE failed (exit 1)."""

    exit_code = 1


def error_line(error: TokenlabError) -> str:
    """How the command line reports a domain error: one line, no traceback."""
    return f"tokens: {error}"


class StoreUnavailableError(TokenlabError):
    """The store cannot be reached or refuses the connection: refused, wrong password (exit 2)."""


class StoreFailedError(TokenlabError):
    """The store failed during an operation, e.g. its server stopped mid-write (exit 1).
    Nothing of an unfinished write is readable."""

    exit_code = 1
