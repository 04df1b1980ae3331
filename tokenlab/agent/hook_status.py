"""`tokens hook status`: for each agent host, which of tokenlab's hooks are installed, in
which file, and when each last ran (from the savings ledger).

A host's hooks leave rows of their own: a replaced output is a `hook` row naming the host
and event, a command its rewrite ran is a `run` row naming the host it ran under, and a ref
opened from it a `ref` row. A host without rows has not run tokenlab since the ledger began.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tokenlab import ledger


@dataclass(frozen=True)
class Installed:
    """Our hook entries in one settings file: (event, matcher) each."""

    path: Path
    entries: tuple[tuple[str, str], ...]

    def as_dict(self) -> dict[str, object]:
        return {"path": str(self.path), "hooks": [{"event": e, "matcher": m} for e, m in self.entries]}


@dataclass(frozen=True)
class HostStatus:
    host: str
    installed: tuple[Installed, ...]
    last_runs: dict[str, float] = field(default_factory=dict)  # what ran (`PostToolUse`, `run`, `ref`) → when

    def as_dict(self) -> dict[str, object]:
        return {
            "host": self.host,
            "installed": [place.as_dict() for place in self.installed],
            "last_runs": dict(sorted(self.last_runs.items())),
        }


def _claude_code(env: Mapping[str, str], cwd: Path) -> list[Installed]:
    from tokenlab.agent import claude_settings

    paths = [claude_settings.settings_path(True, env, cwd), claude_settings.settings_path(False, env, cwd)]
    return [Installed(path, tuple(found)) for path in _distinct(paths) if (found := claude_settings.installed(path))]


def _distinct(paths: Iterable[Path]) -> list[Path]:
    """`paths` without a second name for the same file (the project is the home folder)."""
    seen: dict[Path, Path] = {}
    for path in paths:
        seen.setdefault(path.resolve(), path)
    return list(seen.values())


def _codex(env: Mapping[str, str], cwd: Path) -> list[Installed]:
    from tokenlab.agent import codex_config

    paths = [codex_config.hooks_path(True, env, cwd), codex_config.hooks_path(False, env, cwd)]
    return [Installed(path, tuple(found)) for path in _distinct(paths) if (found := codex_config.installed(path))]


def _gemini(env: Mapping[str, str], cwd: Path) -> list[Installed]:
    from tokenlab.agent import gemini_settings

    paths = [gemini_settings.settings_path(True, env, cwd), gemini_settings.settings_path(False, env, cwd)]
    return [Installed(path, tuple(found)) for path in _distinct(paths) if (found := gemini_settings.installed(path))]


# Each host's settings files, read for our entries.
HOSTS: dict[str, Callable[[Mapping[str, str], Path], list[Installed]]] = {
    "claude-code": _claude_code,
    "codex": _codex,
    "gemini": _gemini,
}


def status(env: Mapping[str, str], cwd: Path, store_root: Path) -> list[HostStatus]:
    """Every known host's installed hooks and last runs. Raises `ledger.LedgerError` when the
    ledger cannot be read."""
    rows = ledger.records(store_root)
    return [HostStatus(host, tuple(places(env, cwd)), _last_runs(rows, host)) for host, places in HOSTS.items()]


def _last_runs(rows: Iterable[ledger.Record], host: str) -> dict[str, float]:
    last: dict[str, float] = {}
    for row in rows:
        if row.host == host:
            what = row.event or row.kind.value
            last[what] = max(last.get(what, 0.0), row.time)
    return last
