"""Claude Code with tokenlab's hooks as `install` writes them, and a warm worker serving the
store: the worker answers the PreToolUse hook calls and analyses the rewritten runs, and the
model is sent the visible text. Where the native client is built for this Python and this
tokenlab (`tokenlab/agent/native.py`), the hook and the rewritten command name it: the
calls then run no Python process at all. What the worker answered is recorded by wrapping
its operations (the worker runs on a thread of the test)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.hosts import base_env, run_claude, tokens_bin
from tests.e2e.model_server import shell_call
from tests.e2e.test_hosts_e2e import claude_project, finished, results, serving  # noqa: F401
from tests.warm_worker import serving_on_a_thread
from tokenlab.agent import native, worker

pytestmark = pytest.mark.e2e

Operation = Callable[[dict[str, object], bytes], tuple[int, bytes, bytes]]


Answered = list[tuple[str, dict[str, object], bytes]]


def _recorded(operation: Operation, name: str, answered: Answered) -> Operation:
    def answer(header: dict[str, object], payload: bytes) -> tuple[int, bytes, bytes]:
        code, out, err = operation(header, payload)
        answered.append((name, header, out))
        return code, out, err

    return answer


def test_the_warm_worker_answers_claude_codes_hook_and_runs_as_installed(
    claude_project: tuple[Path, Path],  # noqa: F811
    short_store: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home, project = claude_project
    # Installed by this Python (the `tokens` script may name `python3`): a hook run by another
    # Python than the worker's is not answered by it.
    install = [sys.executable, str(tokens_bin()), "hook", "install", "claude-code", "--user"]
    subprocess.run(install, env=base_env(home), cwd=project, check=True, capture_output=True)
    installed = json.loads((home / ".claude" / "settings.json").read_text())["hooks"]["PreToolUse"]
    hook_command = installed[0]["hooks"][0]["command"]
    assert (shlex.split(hook_command)[0] == native.installed_path()) == native.current()
    answered: Answered = []
    for name, operation in dict(worker._OPERATIONS).items():
        monkeypatch.setitem(worker._OPERATIONS, name, _recorded(operation, name, answered))
    monkeypatch.setenv("TOKENLAB_WORKER", "1")
    monkeypatch.setenv("TOKENLAB_STORE", short_store)
    monkeypatch.chdir(project)  # the worker answers hooks run in its own folder only
    codes: list[int] = []
    with serving_on_a_thread(short_store, codes):
        with serving([shell_call("sh build.sh"), shell_call("sh failing.sh")]) as server:
            finished(run_claude(home, project, server.url))
        build, failing = results(server)
    hooks = [json.loads(out) for name, _, out in answered if name == "claude-hook"]
    runs = [header for name, header, _ in answered if name == "run"]
    assert len(hooks) == 2 and len(runs) == 2
    rewritten = hooks[0]["hookSpecificOutput"]["updatedInput"]["command"]
    assert (shlex.split(rewritten)[0] == native.installed_path()) == native.current()
    assert "BUILD OK: 3000 modules" in build.text and "[exit 3: sh failing.sh]" in failing.text
