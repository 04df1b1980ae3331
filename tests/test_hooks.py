"""The Claude Code hook: rewrites, permission rules, the hook entry, install and uninstall."""

from __future__ import annotations

import difflib
import io
import json
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tokenlab.agent import claude_hook, claude_permissions
from tokenlab.agent.claude_permissions import permission_settings
from tokenlab.agent.claude_settings import Change, hook_command, install, uninstall
from tokenlab.agent.hooks import Rule, decide, parse_rule, rewrite, wrap
from tokenlab.agent.launcher import tokens_argv
from tokenlab.agent.shell_split import Unsure, split_command, split_conditional
from tokenlab.cli import app
from tokenlab.errors import InputError

runner = CliRunner()
POST_MATCHER = "Bash|Read|Grep|Glob|WebFetch|mcp__.*"
# What the rewrite puts in front of a command: this Python and tokenlab's entry file by
# absolute path, without `site` (`launcher.tokens_argv`).
RUN = shlex.join([*tokens_argv(), "run", "--shell"])
HOOK = shlex.join([*tokens_argv(), "hook", "claude-code"])


@pytest.fixture(autouse=True)
def claude_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private home, no managed settings and no Claude Code variables from the real machine."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.setattr(claude_permissions, "MANAGED_DIRS", (str(tmp_path / "managed"),))
    return home


def hook(command: str, mode: str | None = "default", **tool_input: Any) -> dict[str, Any]:
    """Claude Code's PreToolUse input for one Bash call."""
    data: dict[str, Any] = {
        "session_id": "abc123",
        "transcript_path": "/tmp/transcript.jsonl",
        "cwd": "/tmp",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, **tool_input},
        "tool_use_id": "toolu_01",
    }
    if mode is not None:
        data["permission_mode"] = mode
    return data


def rules(
    allow: tuple[str, ...] = (), ask: tuple[str, ...] = (), deny: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    return [{"permissions": {"allow": list(allow), "ask": list(ask), "deny": list(deny)}}]


def rewritten(command: str, mode: str = "default", **kwargs: Any) -> str | None:
    settings_list = kwargs.pop("settings", [])
    answer = decide(hook(command, mode), settings_list, **kwargs)
    return None if answer is None else answer.updated_input["command"]


# --- the rewrite and its quoting ------------------------------------------------------------

HOSTILE = [
    "echo 'single' \"double\" \\back\\slash",
    "printf '%s\\n' \"$HOME\" '$HOME' `date` $(whoami)",
    "echo it's\nline two\n\nline four\n",
    "cat <<'EOF'\n$(rm -rf /) `x` 'q' \"d\"\nEOF",
    "cat <<EOF\n  tabs\tand $VAR\nEOF\n",
    "echo 'ünïcødé ✓ 日本語 \u2028 emoji 🙂'",
    "'''''",
    "a\\'b\\\"c",
    "   leading and trailing spaces   ",
    "echo -- --shell x; exit 3",
    "!history $((1+2)) ${x:-y} *glob? [a-z]",
]


@pytest.fixture
def stub_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A PATH without `tokens`, and in place of this Python (in a folder whose name needs
    quoting) a stub that prints its fifth argument: the command after `-m tokenlab run --shell`."""
    folder = tmp_path / "stub bin"
    folder.mkdir()
    stub = folder / "python3"
    stub.write_text('#!/bin/sh\nprintf "%s" "$5"\n')
    stub.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(stub))
    return "/usr/bin:/bin"


def run_sh(command: str, path: str, cwd: Path | None = None) -> str:
    done = subprocess.run(
        ["sh", "-c", command], capture_output=True, check=True, env={**os.environ, "PATH": path}, cwd=cwd
    )
    return done.stdout.decode("utf-8")


@pytest.mark.parametrize("command", HOSTILE)
def test_wrap_passes_any_command_through_sh_exactly(command: str, stub_path: str) -> None:
    assert run_sh(wrap(command), stub_path) == command


@settings(max_examples=300)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\x00")))
def test_wrap_round_trips_through_posix_word_splitting(command: str) -> None:
    assert shlex.split(wrap(command)) == [*tokens_argv(), "run", "--shell", command]


def test_rewrite_of_a_heredoc_runs_the_same_text(stub_path: str) -> None:
    command = "cat <<'EOF'\nrm -rf / && echo $(id)\nEOF"
    result = rewrite(command)
    assert result == wrap(command)
    assert run_sh(result, stub_path) == command


def test_rewrite_keeps_a_leading_cd_in_the_agents_shell(tmp_path: Path, stub_path: str) -> None:
    (tmp_path / "sub").mkdir()
    result = rewrite("cd sub && make test 2>&1 | tail -5")
    run = shlex.join([*tokens_argv(), "run", "--shell"])
    assert result == f"cd sub && {run} 'make test 2>&1 | tail -5'"
    assert run_sh(result, stub_path, cwd=tmp_path) == "make test 2>&1 | tail -5"
    wrapped = shlex.join([*tokens_argv(), "run", "--shell", "pytest -q\n"])
    assert rewrite("export A=1; cd b; pytest -q\n") == f"export A=1; cd b; {wrapped}"


@pytest.mark.parametrize(
    "command",
    [
        "cd src",  # only changes the shell's state
        "export PATH=/x:$PATH",
        "A=1",
        "cd a && export B=2",
        "make && cd build",  # state change after the wrapped part
        "cd a && make; ls",  # `;` after `&&`: wrapping the rest would change what runs
        "cd a || make",
        "sleep 10 &",  # background
        "make & wait",
        "tokens run --shell 'ls'",  # already wrapped
        "/opt/venv/bin/python3 -m tokenlab run --shell 'ls'",
        "git diff | tokens analyze -",
        "",
        "ls 'unterminated",
        "echo $(whoami)",
        "(cd x && make)",
        "if true; then cd x; fi",
        "ls &&",
    ],
)
def test_commands_left_alone(command: str) -> None:
    assert rewrite(command) is None
    assert rewritten(command, "bypassPermissions") is None


# --- the splitter -----------------------------------------------------------------------------


def test_splitter_respects_quotes_escapes_and_heredocs() -> None:
    parts = split_command('grep -n "a && b; c" f.txt | wc -l && echo a\\;b; cat <<EOF\nx | y && z\nEOF\nls')
    assert [p.text for p in parts] == ['grep -n "a && b; c" f.txt', "wc -l", "echo a\\;b", "cat", "ls"]
    assert [p.connector for p in parts] == ["|", "&&", ";", "\n", ""]
    assert parts[2].words[1].value == "a;b"


@pytest.mark.parametrize(
    "command",
    [
        "echo `id`",
        'echo "$(id)"',
        "diff <(ls a) <(ls b)",
        "cat <<EOF\n$(id)\nEOF",
        "cat <<EOF\nno end",
        "{ ls; }",
    ],
)
def test_splitter_is_unsure_about_what_it_does_not_analyse(command: str) -> None:
    with pytest.raises(Unsure):
        split_command(command)


# --- if … fi -----------------------------------------------------------------------------------

CAT_AND_SH = rules(allow=("Bash(cat:*)", "Bash(sh failing.sh)"))


@pytest.mark.parametrize(
    "command",
    [
        "if [ -f big.log ]; then cat big.log; fi",
        "if [ -f x ]\nthen\n  cat big.log\nelif test -d y; then cat y/a; else sh failing.sh; fi\n",
        "if cat a | cat -n && cat b; then cat c; fi",
        "if cat fi; then cat 'fi'; fi",  # `fi` as an argument closes nothing
        "if cat <<'EOF'\nfi\nEOF\nthen cat x; fi",  # nor inside a here-document
    ],
)
def test_an_if_whose_every_command_is_allowed_is_rewritten_whole(command: str, stub_path: str) -> None:
    assert rewritten(command, settings=CAT_AND_SH) == wrap(command)
    assert run_sh(wrap(command), stub_path) == command


@pytest.mark.parametrize(
    "command",
    [
        "if [ -f x ]; then rm x; fi",  # no rule for rm
        "if rm x; then cat y; fi",
        "if [ -f $(rm -rf ~) ]; then cat x; fi",  # command substitution in the condition
        "if [ -f `rm x` ]; then cat x; fi",
        "if [ -f $x ]; then cat x; fi",  # a variable: Claude Code asks about it
        "if test -v 'a[$(rm x)]'; then cat x; fi",  # bash evaluates the subscript
        "if test -v a[0]; then cat x; fi",
        "if [ -f x ]; then cat x > out; fi",  # a redirection that writes
        "if [ -f x ] > out; then cat x; fi",
        "if [ -f x ]; then cat x; fi > out",
        "if [ -f x ]; then cat x; \"fi\"",  # a quoted fi closes nothing
        "if [ -f x ]; then echo 'fi'; rm y; fi",
        "if [ -f x ]; then cat x; fi; rm y",  # text after fi
        "if [ -f x ]; then cat x; fi && rm y",
        "if [ -f x ]; then cat x; fi &",
        "if [ -f x ]; then if [ -d y ]; then cat y; fi; fi",  # nested
        "if [ -f x ]; then cat x; exit 3; fi",  # `; exit`: Claude Code asks about exit
        "if [ -f x ]; then cd y; fi",
        "if ! cat x; then cat y; fi",
        "if [ -f x ]; then { cat x; }; fi",
        "if [ -f x ]; then (cat x); fi",
        "if [ -f x ]; then cat x; fi\nrm y",
        "if [ -f x ]; then; cat x; fi",  # a syntax error in bash
        "if [ -f x ]; then cat x; else fi",
        "if [ -f x ]; then cat x",  # no fi
        "if [ -f x ]; then cat <<EOF\n$(rm y)\nEOF\nfi",
        "if [ -f x ]; then sh -c 'rm y'; fi",
        "if [ -f x ]; then tokens run --shell 'cat x'; fi",
        "then cat x; fi",
        "[ -f x ] && cat x",  # outside an if, `[` needs a rule as before
    ],
)
def test_an_if_with_anything_not_allowed_or_not_understood_is_left_alone(command: str) -> None:
    assert rewritten(command, settings=CAT_AND_SH) is None


def test_an_if_with_a_denied_or_asked_command_is_left_alone_in_every_mode() -> None:
    command = "if [ -f x ]; then cat secret.txt; fi"
    denied, asked = rules(allow=("Bash",), deny=("Bash(cat secret.txt)",)), rules(ask=("Bash(cat:*)",))
    for settings_list in (denied, asked):
        assert rewritten(command, settings=settings_list) is None
        assert rewritten(command, "bypassPermissions", settings=settings_list) is None
    assert rewritten("if [ -d .git ]; then cat .git/config; fi", "bypassPermissions") is None
    assert rewritten("if [ -f x ]; then cat x; fi", "plan", settings=CAT_AND_SH) is None


def test_the_parts_of_an_if_are_its_simple_commands() -> None:
    parts = split_conditional("if [ -f x ] && cat a; then\n  cat b | wc -l\nelse cat c; fi")
    assert [p.text for p in parts] == ["[ -f x ]", "cat a", "cat b", "wc -l", "cat c"]
    with pytest.raises(Unsure):
        split_command("if [ -f x ]; then cat b; fi")


# --- permission modes -------------------------------------------------------------------------

ALLOW_ALL = rules(allow=("Bash",))


@pytest.mark.parametrize("mode", ["default", "acceptEdits", "dontAsk"])
def test_modes_that_follow_the_rules_rewrite_allowed_commands(mode: str) -> None:
    allowed = rules(allow=("Bash(git status:*)",))
    assert rewritten("git status -s", mode, settings=allowed) == f"{RUN} 'git status -s'"
    assert rewritten("git push", mode, settings=allowed) is None  # would have prompted (or been denied)


@pytest.mark.parametrize("mode", ["plan", "auto", "somethingNew", "", None])
def test_other_modes_never_rewrite(mode: str | None) -> None:
    assert decide(hook("git status", mode), ALLOW_ALL) is None


def test_bypass_mode_rewrites_without_rules_but_not_denied_or_asked() -> None:
    assert rewritten("make build", "bypassPermissions") == f"{RUN} 'make build'"
    assert rewritten("make build", "bypassPermissions", settings=rules(deny=("Bash(make:*)",))) is None
    assert rewritten("make build", "bypassPermissions", settings=rules(ask=("Bash(make build)",))) is None


@pytest.mark.parametrize(
    "command",
    ["rm -rf build", "ls && rmdir x", "cat .git/config", "echo x > .claude/settings.json", "bash -c 'rm a'"],
)
def test_bypass_mode_leaves_what_claude_code_still_guards(command: str) -> None:
    assert rewritten(command, "bypassPermissions") is None


def test_answer_is_allow_with_the_full_tool_input() -> None:
    answer = decide(
        hook("pytest -q", "default", description="Run tests", timeout=120000),
        rules(allow=("Bash(pytest:*)",)),
    )
    assert answer is not None
    output = answer.as_dict()["hookSpecificOutput"]
    assert output["hookEventName"] == "PreToolUse"
    assert output["permissionDecision"] == "allow"
    assert output["updatedInput"] == {
        "command": f"{RUN} 'pytest -q'",
        "description": "Run tests",
        "timeout": 120000,
    }


# --- rules: kinds, chains, precedence ---------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "command", "matches"),
    [
        ("Bash", "anything at all", True),
        ("Bash(*)", "anything at all", True),
        ("Bash(npm test)", "npm test", True),
        ("Bash(npm test)", "npm test --watch", False),
        ("Bash(npm run test:*)", "npm run test", True),
        ("Bash(npm run test:*)", "npm run test -- -k x", True),
        ("Bash(npm run test:*)", "npm run testing", False),
        ("Bash(ls *)", "ls", True),
        ("Bash(ls *)", "ls -la", True),
        ("Bash(ls *)", "lsof", False),
        ("Bash(ls*)", "lsof", True),
        ("Bash(git * main)", "git merge main", True),
        ("Bash(git * main)", "git merge dev", False),
        ("Bash(git  status)", "git   status", True),
    ],
)
def test_rule_syntax(rule: str, command: str, matches: bool) -> None:
    parsed = parse_rule(rule)
    assert parsed is not None
    assert parsed.matches(command) is matches


def test_rules_for_other_tools_are_ignored() -> None:
    assert parse_rule("Read(./secrets/**)") is None
    assert parse_rule("WebFetch") is None
    assert rewritten("cat x", settings=rules(allow=("Read",))) is None


def test_loose_matching_for_deny_and_ask_drops_word_boundaries() -> None:
    assert Rule("npm run test:*").matches("npm run test:unit", loose=True)
    assert Rule("rm -rf /").matches("rm -rf / --no-preserve-root", loose=True)


@pytest.mark.parametrize("connector", [" && ", " || ", "; ", " | ", "\n"])
def test_every_part_of_a_chain_must_be_allowed(connector: str) -> None:
    command = f"git status{connector}curl -s example.com"
    only_git = rules(allow=("Bash(git status:*)",))
    both = rules(allow=("Bash(git status:*)", "Bash(curl:*)"))
    assert rewritten(command, settings=only_git) is None
    assert rewritten(command, settings=both) == wrap(command)


def test_operators_inside_quotes_do_not_split() -> None:
    command = "grep -rn 'TODO && rm -rf x; y' src"
    assert rewritten(command, settings=rules(allow=("Bash(grep:*)",))) == wrap(command)
    assert rewritten("echo 'x' && rm -rf y", settings=rules(allow=("Bash(echo:*)",))) is None


def test_deny_beats_ask_beats_allow() -> None:
    assert (
        rewritten("git push origin", settings=rules(allow=("Bash(git:*)",), deny=("Bash(git push:*)",)))
        is None
    )
    assert (
        rewritten("git push origin", settings=rules(allow=("Bash(git:*)",), ask=("Bash(git push:*)",)))
        is None
    )
    assert rewritten("git log", settings=rules(allow=("Bash(git:*)",), ask=("Bash(git push:*)",))) == wrap(
        "git log"
    )


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf build",
        "ls && rm x",
        "timeout 5 rm x",
        "sudo -u root rm x",
        "FOO=1 rm x",
        "/bin/rm x",
        '"rm" x',
        "bash -c 'ls; rm -rf x'",
        "find . -name '*.pyc' -exec rm {} \\;",
        "ls | xargs -n 1 rm",
        "env A=1 nice -n 5 rm x",
        "bash <<'EOF'\nls\nEOF",  # a shell reading a here-document: its script is not checked
    ],
)
def test_a_deny_rule_is_never_bypassed(command: str) -> None:
    denied = rules(allow=("Bash",), deny=("Bash(rm:*)",))
    assert rewritten(command, "bypassPermissions", settings=denied) is None
    assert rewritten(command, settings=denied) is None


def test_file_writing_redirections_are_not_auto_approved() -> None:
    allowed = rules(allow=("Bash(git log:*)", "Bash(pytest:*)", "Bash(cat:*)"))
    assert rewritten("git log > out.txt", settings=allowed) is None
    assert rewritten("cat > notes.md <<'EOF'\nhi\nEOF", settings=allowed) is None
    assert rewritten("pytest -q 2>&1", settings=allowed) == wrap("pytest -q 2>&1")
    assert rewritten("pytest -q > /dev/null 2>&1", settings=allowed) == wrap("pytest -q > /dev/null 2>&1")
    assert rewritten("git log > out.txt", "bypassPermissions") == wrap("git log > out.txt")


def test_heredoc_bodies_are_data() -> None:
    command = "cat <<'EOF'\nrm -rf /\nEOF"
    settings_list = rules(allow=("Bash(cat:*)",), deny=("Bash(rm:*)",))
    assert rewritten(command, settings=settings_list) == wrap(command)
    assert rewritten("cat <<EOF\n$(rm -rf /)\nEOF", "bypassPermissions") is None


def test_a_program_named_by_a_variable_is_not_approved() -> None:
    assert rewritten("$EDITOR notes.txt", settings=ALLOW_ALL) is None


def test_leading_cd_is_checked_like_every_other_part() -> None:
    assert rewritten("cd src && pytest", settings=rules(allow=("Bash(pytest:*)",))) is None
    assert (
        rewritten("cd src && pytest", settings=rules(allow=("Bash(pytest:*)", "Bash(cd:*)")))
        == f"cd src && {RUN} pytest"
    )
    assert rewritten("cd src && pytest", "bypassPermissions") == f"cd src && {RUN} pytest"


def test_excluded_commands_are_left_alone() -> None:
    assert rewritten("docker ps", "bypassPermissions", excludes=["docker *"]) is None
    assert rewritten("npm run dev -- --port 3000", "bypassPermissions", excludes=["npm run dev"]) is None
    assert rewritten("ls && docker ps", "bypassPermissions", excludes=["docker"]) is None
    assert rewritten("npm test", "bypassPermissions", excludes=["npm run dev"]) == wrap("npm test")


def test_background_and_non_bash_calls_are_left_alone() -> None:
    assert decide(hook("npm run dev", "bypassPermissions", run_in_background=True), []) is None
    assert decide({**hook("ls", "bypassPermissions"), "tool_name": "Read"}, []) is None
    assert decide({"tool_name": "Bash", "permission_mode": "bypassPermissions"}, []) is None
    assert decide({**hook("ls", "bypassPermissions"), "tool_input": {"command": ["ls"]}}, []) is None


def test_read_only_list_is_opt_in_and_guarded() -> None:
    assert rewritten("git status") is None
    assert rewritten("git status", read_only=True) == wrap("git status")
    assert rewritten("git log --oneline | head -20", read_only=True) == wrap("git log --oneline | head -20")
    assert rewritten("find . -name x -delete", read_only=True) is None
    assert rewritten("git diff --output=/tmp/x", read_only=True) is None
    assert rewritten("rg --pre ./evil x", read_only=True) is None
    assert rewritten("git status", read_only=True, settings=rules(deny=("Bash(git:*)",))) is None
    assert rewritten("git status", "plan", read_only=True) is None


# --- which settings files count ---------------------------------------------------------------


def write_json(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "work" / "project"
    folder.mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(folder))
    return folder


def decide_from_files(command: str, project: Path, mode: str = "default") -> str | None:
    data = {**hook(command, mode), "cwd": str(project)}
    answer = decide(data, permission_settings(data, os.environ))
    return None if answer is None else answer.updated_input["command"]


@pytest.mark.parametrize("where", ["user", "project", "local"])
def test_rules_from_user_project_and_local_settings(where: str, project: Path, claude_home: Path) -> None:
    path = {
        "user": claude_home / ".claude" / "settings.json",
        "project": project / ".claude" / "settings.json",
        "local": project / ".claude" / "settings.local.json",
    }[where]
    write_json(path, {"permissions": {"allow": ["Bash(make:*)"], "ask": ["Bash(make deploy)"]}})
    assert decide_from_files("make build", project) == wrap("make build")
    assert decide_from_files("make deploy", project) is None
    write_json(path, {"permissions": {"allow": ["Bash(make:*)"], "deny": ["Bash(make build)"]}})
    assert decide_from_files("make build", project) is None


def test_rules_spread_over_files_combine(project: Path, claude_home: Path) -> None:
    write_json(claude_home / ".claude" / "settings.json", {"permissions": {"allow": ["Bash(make:*)"]}})
    write_json(project / ".claude" / "settings.local.json", {"permissions": {"deny": ["Bash(make clean)"]}})
    assert decide_from_files("make build", project) == wrap("make build")
    assert decide_from_files("make clean", project) is None


def test_a_parent_folders_settings_only_add_deny_and_ask(project: Path) -> None:
    parent = project.parent / ".claude" / "settings.json"
    write_json(parent, {"permissions": {"allow": ["Bash(make:*)"], "deny": ["Bash(curl:*)"]}})
    assert decide_from_files("make build", project) is None  # Claude Code may not load that allow
    assert decide_from_files("curl x", project, "bypassPermissions") is None


def test_an_unreadable_settings_file_stops_every_rewrite(project: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text("{ not json")
    assert decide_from_files("make build", project, "bypassPermissions") is None


def test_managed_settings_and_managed_only_rules(project: Path, claude_home: Path, tmp_path: Path) -> None:
    write_json(claude_home / ".claude" / "settings.json", {"permissions": {"allow": ["Bash(make:*)"]}})
    managed = tmp_path / "managed" / "managed-settings.json"
    write_json(managed, {"permissions": {"deny": ["Bash(make clean)"]}})
    assert decide_from_files("make build", project) == wrap("make build")
    assert decide_from_files("make clean", project) is None
    write_json(managed, {"allowManagedPermissionRulesOnly": True, "permissions": {}})
    assert decide_from_files("make build", project) is None


# --- the hook entry ---------------------------------------------------------------------------


def test_hook_entry_answers_with_json(project: Path) -> None:
    write_json(project / ".claude" / "settings.json", {"permissions": {"allow": ["Bash(git log:*)"]}})
    result = runner.invoke(
        app, ["hook", "claude-code"], input=json.dumps(hook("git log -3", cwd=str(project)))
    )
    assert result.exit_code == 0
    answer = json.loads(result.stdout)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "allow"
    assert answer["updatedInput"]["command"] == f"{RUN} 'git log -3'"


@pytest.mark.parametrize(
    "stdin",
    [
        "",
        "not json",
        "[1, 2]",
        '{"tool_name": "Bash"}',
        json.dumps(hook("git log", "default")),  # no rule allows it: the normal prompt appears
        json.dumps({**hook("ls", "bypassPermissions"), "tool_input": None}),
    ],
)
def test_hook_entry_answers_nothing_and_exits_0(stdin: str) -> None:
    result = runner.invoke(app, ["hook", "claude-code", "--unknown-option", "x"], input=stdin)
    assert result.exit_code == 0
    assert result.stdout == ""


def test_hook_entry_survives_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr("tokenlab.agent.hooks.decide", broken)
    out = io.StringIO()
    stdin = io.BytesIO(json.dumps(hook("ls", "bypassPermissions")).encode())
    assert claude_hook.run([], stdin, out, {}) == 0
    assert out.getvalue() == ""


def test_hook_entry_reads_its_options() -> None:
    out = io.StringIO()
    stdin = io.BytesIO(json.dumps(hook("git status", "default")).encode())
    claude_hook.run(["--allow-read-only", "--exclude=docker *"], stdin, out, {"HOME": os.environ["HOME"]})
    assert json.loads(out.getvalue())["hookSpecificOutput"]["updatedInput"]["command"] == wrap("git status")
    assert claude_hook.hook_options(["--exclude", "a b", "--exclude=c", "--x"]) == (False, ["a b", "c"])


def test_hook_process_never_prints_a_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tokenlab", "hook", "claude-code"],
        input=b"\xff{",
        capture_output=True,
        cwd=tmp_path,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_print_shows_the_rewrite() -> None:
    result = runner.invoke(app, ["hook", "print", "cd src && pytest -q"])
    assert result.exit_code == 0
    assert result.stdout == f"cd src && {RUN} 'pytest -q'\n"
    result = runner.invoke(app, ["hook", "print", "cd src"])
    assert result.exit_code == 0
    assert result.stdout == "cd src\n"
    assert "left unchanged" in result.stderr


# --- install and uninstall --------------------------------------------------------------------

ORIGINAL = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "model": "opus",
    "permissions": {"allow": ["Bash(git status:*)"], "deny": []},
    "hooks": {
        "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "ruff format"}]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "~/guard.sh"}]}],
    },
    "env": {"GREETING": "héllo ✓"},
}


def styles() -> list[tuple[str, bytes]]:
    two = json.dumps(ORIGINAL, indent=2, ensure_ascii=False)
    return [
        ("two spaces", (two + "\n").encode()),
        ("no final newline", two.encode()),
        ("four spaces", (json.dumps(ORIGINAL, indent=4, ensure_ascii=False) + "\n").encode()),
        ("tabs", (json.dumps(ORIGINAL, indent="\t", ensure_ascii=False) + "\n").encode()),
        ("ascii escapes", (json.dumps(ORIGINAL, indent=2) + "\n").encode()),
        ("crlf", (two.replace("\n", "\r\n") + "\r\n").encode()),
        ("one line", json.dumps(ORIGINAL, ensure_ascii=False).encode()),
        ("no hooks", (json.dumps({"model": "opus"}, indent=2) + "\n").encode()),
        ("empty object", b"{}\n"),
    ]


@pytest.mark.parametrize(("name", "original"), styles(), ids=[name for name, _ in styles()])
def test_install_then_uninstall_is_byte_identical(name: str, original: bytes, tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_bytes(original)
    command = hook_command()
    assert install(path, command) is Change.ADDED
    installed = path.read_bytes()
    data = json.loads(installed)
    expected = json.loads(original)
    entry = {"type": "command", "command": command, "timeout": 10}
    expected.setdefault("hooks", {}).setdefault("PreToolUse", []).append({"matcher": "Bash", "hooks": [entry]})
    expected["hooks"].setdefault("PostToolUse", []).append({"matcher": POST_MATCHER, "hooks": [entry]})
    assert data == expected
    assert list(data) == list(expected)  # key order kept
    assert install(path, command) is Change.UNCHANGED
    assert path.read_bytes() == installed
    assert uninstall(path) is Change.REMOVED
    assert path.read_bytes() == original
    assert uninstall(path) is Change.ABSENT
    assert path.read_bytes() == original
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # no temp file left


def test_install_only_adds_lines(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    original = json.dumps(ORIGINAL, indent=2, ensure_ascii=False) + "\n"
    path.write_text(original)
    install(path, hook_command())
    old, new = original.splitlines(), path.read_text().splitlines()
    changes = difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
    assert {tag for tag, *_ in changes} == {"equal", "insert"}


def test_install_creates_a_missing_file_and_updates_options_in_place(tmp_path: Path) -> None:
    path = tmp_path / "project" / ".claude" / "settings.json"
    assert install(path, hook_command()) is Change.ADDED
    entry = {"type": "command", "command": HOOK, "timeout": 10}
    assert json.loads(path.read_text()) == {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [entry]}],
            "PostToolUse": [{"matcher": POST_MATCHER, "hooks": [entry]}],
        }
    }
    assert path.read_text().endswith("}\n")
    changed = hook_command(read_only=True, excludes=("docker *",))
    assert install(path, changed) is Change.UPDATED
    for event in ("PreToolUse", "PostToolUse"):
        groups = json.loads(path.read_text())["hooks"][event]
        assert [h["command"] for g in groups for h in g["hooks"]] == [
            f"{HOOK} --allow-read-only --exclude 'docker *'"
        ]
    assert uninstall(path) is Change.REMOVED
    assert json.loads(path.read_text()) == {}


def test_install_replaces_an_entry_that_runs_tokens_by_name(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    by_name = {"type": "command", "command": "tokens hook claude-code", "timeout": 10}
    path.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [by_name]}]}}) + "\n")
    assert install(path, hook_command(), tools=()) is Change.UPDATED
    (group,) = json.loads(path.read_text())["hooks"]["PreToolUse"]
    assert group["hooks"] == [{**by_name, "command": HOOK}]
    named = shlex.split(HOOK)[0]  # this Python, or the native client built for it
    assert named == tokens_argv()[0] and os.path.isabs(named)  # found whatever PATH Claude Code has


def test_uninstall_removes_only_our_entry_from_a_shared_group(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    shared = {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [
                        {"type": "command", "command": "~/guard.sh"},
                        {
                            "type": "command",
                            "command": "/usr/local/bin/tokens hook claude-code --allow-read-only",
                        },
                    ],
                }
            ]
        }
    }
    path.write_text(json.dumps(shared, indent=2) + "\n")
    assert uninstall(path) is Change.REMOVED
    assert json.loads(path.read_text())["hooks"]["PreToolUse"] == [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/guard.sh"}]}
    ]


@pytest.mark.parametrize(
    "text", ['{"a":1,  "b":2}\n', "{ not json", '{"hooks": []}\n', '{"hooks": {"PreToolUse": {}}}\n', "[]\n"]
)
def test_install_refuses_what_it_cannot_edit_exactly(text: str, tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text)
    with pytest.raises(InputError):
        install(path, hook_command())
    assert path.read_text() == text


def test_install_writes_through_a_symlink_and_keeps_the_mode(tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "claude-settings.json"
    target.parent.mkdir()
    target.write_text('{\n  "model": "opus"\n}\n')
    target.chmod(0o600)
    link = tmp_path / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(target)
    install(link, hook_command())
    assert link.is_symlink()
    assert json.dumps(HOOK)[1:-1] in target.read_text()
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_cli_install_and_uninstall(tmp_path: Path, claude_home: Path) -> None:
    project_file = tmp_path / ".claude" / "settings.json"  # the tests run in tmp_path
    result = runner.invoke(app, ["hook", "install", "claude-code"])
    assert result.exit_code == 0, result.output
    assert "installed" in result.stdout and "git status" in result.stdout
    assert project_file.exists()
    assert "already installed" in runner.invoke(app, ["hook", "install", "claude-code", "--project"]).stdout
    result = runner.invoke(app, ["hook", "install", "claude-code", "--user", "--allow-read-only"])
    assert result.exit_code == 0, result.output
    user_file = claude_home / ".claude" / "settings.json"
    assert "--allow-read-only" in user_file.read_text()
    assert "test runners" in result.stdout
    assert "removed from" in runner.invoke(app, ["hook", "uninstall", "claude-code", "--user"]).stdout
    assert "not installed" in runner.invoke(app, ["hook", "uninstall", "claude-code", "--user"]).stdout
    result = runner.invoke(app, ["hook", "install", "claude-code", "--user", "--project"])
    assert result.exit_code == 2
    assert result.stderr.startswith("tokens: ")


def test_unicode_spaces_are_part_of_a_word() -> None:
    assert rewritten("git\u00a0status", settings=rules(allow=("Bash(git status:*)",))) is None


@pytest.mark.parametrize("path", ["~", "~/", "~/.claude", "~root/x", "plain/~", "/abs", ""])
def test_expand_user_reads_home_from_the_given_environment(path: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """As `os.path.expanduser` with the process's own environment, and with another's HOME
    (the warm worker answers for a hook process), or none (the password database)."""
    assert claude_permissions.expand_user(path, os.environ) == os.path.expanduser(path)
    monkeypatch.setenv("HOME", "/elsewhere/")
    assert claude_permissions.expand_user(path, {"HOME": "/elsewhere/"}) == os.path.expanduser(path)
    other = {"HOME": "/other"}
    assert claude_permissions.expand_user(path, other) == os.path.expanduser(path).replace("/elsewhere", "/other", 1)
    monkeypatch.delenv("HOME")
    assert claude_permissions.expand_user(path, {}) == os.path.expanduser(path)
