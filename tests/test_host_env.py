"""Which host a process runs under, and the command lines above it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tokenlab.agent.host_env import ancestors, host_of


def test_host_of_reads_each_hosts_marker() -> None:
    assert host_of({"CLAUDECODE": "1"}) == "claude-code"
    assert host_of({"CODEX_SANDBOX": "seatbelt"}) == "codex"
    assert host_of({"GEMINI_CLI": "1"}) == "gemini"
    assert host_of({"PATH": "/bin"}) is None


def test_ancestors_are_the_command_lines_above_nearest_first(tmp_path: Path) -> None:
    script = (
        "import json; from tokenlab.agent.host_env import ancestors; "
        "print(json.dumps([[a, str(c)] for a, c in ancestors()]))"
    )
    inner = f"{sys.executable} -c {json.dumps(script)}"
    argv = ["sh", "-c", inner, "gemini", "--policy", "mine.toml"]
    done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, check=True)
    found = json.loads(done.stdout)
    assert found[0] == [argv, str(tmp_path)]
    assert len(found) >= 2  # and this test's own process above it
    assert ancestors() is not None
