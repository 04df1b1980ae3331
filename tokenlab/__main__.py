"""Allow `python -m tokenlab`."""

from tokenlab.cli import app

app(prog_name="tokens")
