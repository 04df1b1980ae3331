"""The ledger's rows summed: a command line's key, the first words it is grouped under."""

from __future__ import annotations

import pytest

from tokenlab.tallies import command_key


@pytest.mark.parametrize(
    ("command", "key"),
    [
        ("make test && git status | head", "make test"),
        ("cd /repo && npm run build", "npm run build"),
        ("FOO=1 sudo git -C repo status", "git"),
        ("python -m pytest -q tests/", "python -m pytest"),
        (".venv/bin/pytest tests", "pytest"),
        ("npx eslint .", "npx eslint"),
        ("uv run pytest", "uv run pytest"),
        ("ls -la", "ls"),
        ("cargo test --all", "cargo test"),
        ("echo 'unbalanced", "echo"),
        ("bash -c 'cd x && make check'", "make check"),
    ],
)
def test_command_key(command: str, key: str) -> None:
    assert command_key(command) == key
