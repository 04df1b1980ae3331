"""tokenlab: deterministic, reversible compression of tool output for coding agents."""

__version__ = "0.1.0"


def code_stamp() -> str:
    """Which tokenlab this process runs: its version and the package's folder. Each request
    to the warm worker carries it, and the worker answers only its own, and only while its
    files are unchanged, which it checks itself (`agent/package_files.py`): a client never
    reads the package's files. The native client has it built in (`agent/native.py`)."""
    import os

    return f"{__version__}:{os.path.dirname(os.path.abspath(__file__))}"
