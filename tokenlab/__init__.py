"""tokenlab: deterministic, reversible compression of tool output for coding agents."""

__version__ = "0.1.0"
