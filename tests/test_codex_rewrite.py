"""The Codex hook's PreToolUse rewrite: what it wraps, and that it never widens what runs."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tokenlab.agent.codex_rewrite import decide, forced_rm, wrapper
from tokenlab.agent.codex_rules import CodexRules, parse_rules

WRAP = wrapper(["/venv/bin/python", "-m", "tokenlab"], "/work/var/context")
RUN = "/venv/bin/python -m tokenlab run --store /work/var/context"


def wrapped(part: str) -> str:
    quoted = shlex.quote(part)
    return f"if [ -w /work/var/context ]; then {RUN} --shell {quoted}; else eval {quoted}; fi"


def call(command: str) -> dict[str, Any]:
    return {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command}}


def rules(text: str = "", *, trusted: bool = True) -> CodexRules:
    parsed = parse_rules(text)
    allow = tuple(r for r in parsed if r.decision.value == "allow") if trusted else ()
    return CodexRules(tuple(r for r in parsed if r.decision.value != "allow"), allow)


def rewritten(command: str, rule_text: str = "") -> str | None:
    answer = decide(call(command), rules(rule_text), WRAP)
    if answer is None:
        return None
    output = answer["hookSpecificOutput"]
    assert output["hookEventName"] == "PreToolUse" and output["permissionDecision"] == "allow"
    return str(output["updatedInput"]["command"])


def test_a_read_only_command_is_wrapped_by_absolute_path_with_the_store_pinned() -> None:
    command = "grep -n 'ERROR' build.log | head -50"
    assert rewritten(command) == wrapped(command)


@pytest.mark.parametrize("writable", [True, False])
def test_the_wrapped_part_runs_as_written_where_the_store_cannot_be_written(
    writable: bool, tmp_path: Path
) -> None:
    """Codex's default sandbox lets nothing be written: `tokens run` would fail there."""
    store = tmp_path / "store" if writable else tmp_path / "missing" / "store"
    store.parent.mkdir(exist_ok=True)
    if writable:
        store.mkdir()
    command = wrapper([sys.executable, "-m", "tokenlab"], str(store))('echo "it\'s"; exit 3')
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).parents[1]), "TOKENLAB_WORKER": "0"}
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 3
    if writable:
        assert '[exit 3: echo "it\'s"; exit 3]' in done.stdout and "#ref:ctx_" in done.stdout
    else:
        assert done.stdout == "it's\n" and not store.exists()


def test_a_leading_cd_stays_outside() -> None:
    assert rewritten("cd src && cat app.log") == "cd src && " + wrapped("cat app.log")


def test_a_store_url_is_never_written_into_the_command() -> None:
    assert wrapper(["/bin/tokens"], None)("cat a.log") == "/bin/tokens run --shell 'cat a.log'"


@pytest.mark.parametrize(
    "command",
    [
        "rm -f x",
        "rm -rf build",
        "touch x",
        "cat a.log && touch x",
        "cat a.log; rm -f x",
        "cat a.log | tee out.txt",
        "cat a.log > copy.log",
        "bash -c 'rm -f x'",
        "sh -c 'cat a.log'",  # a shell is not on the list, whatever it runs
        "find . -delete",
        "find . -exec rm {} +",
        "git log --output=x",
        "$PAGER a.log",
        "X=1 cat a.log",
        "cat $(echo a.log)",
        "cat a.log &",
        "cd /tmp",
        "python3 script.py",
        "",
    ],
)
def test_what_is_not_known_harmless_is_left_alone(command: str) -> None:
    assert rewritten(command) is None


@pytest.mark.parametrize(
    ("command", "allow", "restrict"),
    [
        ("cat secret.txt", "", 'prefix_rule(pattern=["cat", "secret.txt"], decision="forbidden")'),
        ("git status", "", 'prefix_rule(pattern=["git"], decision="prompt")'),
        ("ls && git log", "", 'prefix_rule(pattern=["/usr/bin/git", ["status", "log"]], decision="prompt")'),
        (
            "make test",
            'prefix_rule(pattern=["make"])',
            'prefix_rule(pattern=["make", "test"], decision="forbidden")',
        ),
        ("cat a.log | grep x", "", 'prefix_rule(pattern=["grep"], decision="forbidden")'),
    ],
)
def test_a_forbidden_or_prompt_rule_on_any_part_stops_the_rewrite(
    command: str, allow: str, restrict: str
) -> None:
    assert rewritten(command, allow) is not None
    assert rewritten(command, allow + "\n" + restrict) is None


def test_a_command_the_users_allow_rule_names_is_wrapped() -> None:
    allow = 'prefix_rule(pattern=["make", ["test", "build"]])'
    assert rewritten("make test", allow) == wrapped("make test")
    assert rewritten("make install", allow) is None
    assert rewritten("make test && touch x", allow) is None
    assert decide(call("make test"), rules(allow, trusted=False), WRAP) is None


def test_an_allow_rule_never_lets_through_what_codex_refuses_itself() -> None:
    assert rewritten("rm -f x", 'prefix_rule(pattern=["rm"])') is None
    assert rewritten("bash -c 'rm -f x'", 'prefix_rule(pattern=["bash"])') is None
    assert (
        rewritten(
            "bash -c 'touch x'",
            'prefix_rule(pattern=["bash"])\nprefix_rule(pattern=["touch"], decision="forbidden")',
        )
        is None
    )
    assert rewritten("sudo rm -rf /", 'prefix_rule(pattern=["sudo"])') is None
    assert rewritten("rm -r build", 'prefix_rule(pattern=["rm"])') is not None


@pytest.mark.parametrize(
    ("argv", "forced"),
    [(["rm", "-f", "x"], True), (["/bin/rm", "-rf", "x"], True), (["rm", "x", "--force"], True),
     (["rm", "--", "-f"], False), (["rm", "-r", "x"], False), (["ls", "-f"], False)],
)  # fmt: skip
def test_forced_rm_follows_codex(argv: list[str], forced: bool) -> None:
    assert forced_rm(argv) is forced


def test_other_tools_and_events_get_no_answer() -> None:
    assert decide({**call("cat a.log"), "tool_name": "apply_patch"}, rules(), WRAP) is None
    assert decide({"tool_name": "Bash", "tool_input": "cat a.log"}, rules(), WRAP) is None
