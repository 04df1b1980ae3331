"""Codex's exec-policy rules files: the Starlark subset read, matching, and which files count."""

from __future__ import annotations

from pathlib import Path

import pytest

from tokenlab.agent import codex_rules
from tokenlab.agent.codex_rules import Decision, PrefixRule, Unreadable, load_rules, parse_rules


@pytest.fixture(autouse=True)
def no_system_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(codex_rules, "SYSTEM_DIR", tmp_path / "etc-codex")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def test_prefix_rules_with_alternatives_defaults_and_positional_arguments() -> None:
    rules = parse_rules(
        """
# comments and trailing commas are fine
prefix_rule(
    pattern = ["gh", "pr", ["view", "list"]],
    decision = "prompt",
    match = ["gh pr view 7888"],
    not_match = [["gh", "pr", "merge"]],
    justification = "looks only",
)
prefix_rule(pattern=["git", "status"])
prefix_rule(["rm"], "forbidden")
network_rule(host="example.com", protocol="https", decision="deny")
host_executable(name="git", paths=["/usr/bin/git"])
"""
    )
    assert rules == [
        PrefixRule((("gh",), ("pr",), ("view", "list")), Decision.PROMPT),
        PrefixRule((("git",), ("status",)), Decision.ALLOW),
        PrefixRule((("rm",),), Decision.FORBIDDEN),
    ]


def test_matching_is_by_prefix_and_loose_matching_sees_the_base_name() -> None:
    rule = PrefixRule((("gh",), ("pr",), ("view", "list")), Decision.PROMPT)
    assert rule.matches(["gh", "pr", "list", "--json"])
    assert not rule.matches(["gh", "pr"])
    assert not rule.matches(["gh", "issue", "view"])
    assert not rule.matches(["/usr/bin/gh", "pr", "view"])
    assert rule.matches(["/usr/bin/gh", "pr", "view"], loose=True)


@pytest.mark.parametrize(
    "text",
    [
        'prefix_rule(pattern=["rm"], decision="deny")',  # not a prefix_rule decision
        'prefix_rule(pattern=[], decision="forbidden")',
        'prefix_rule(pattern=["rm", []])',
        'prefix_rule(pattern=["rm", 3])',
        'PATTERN = ["rm"]\nprefix_rule(pattern=PATTERN, decision="forbidden")',
        'for p in ["rm"]:\n    prefix_rule(pattern=[p], decision="forbidden")',
        "def f():\n    pass",
        'load("x.star", "y")',
        'prefix_rule(pattern=["rm"], decision="forbidden"',  # unbalanced
        "prefix_rule(*args)",
        'prefix_rule(pattern=["rm"], pattern=["ls"])',
        'prefix_rule(pattern=[f"{x}"])',
    ],
)
def test_anything_outside_the_subset_is_unreadable(text: str) -> None:
    with pytest.raises(Unreadable):
        parse_rules(text)


def write(folder: Path, name: str, text: str) -> None:
    (folder / "rules").mkdir(parents=True, exist_ok=True)
    (folder / "rules" / name).write_text(text)


def test_allow_rules_come_only_from_the_layers_codex_always_loads(tmp_path: Path) -> None:
    codex_home, project = tmp_path / "codex-home", tmp_path / "project"
    write(codex_home, "default.rules", 'prefix_rule(pattern=["make"])\n')
    write(
        project / ".codex",
        "p.rules",
        'prefix_rule(pattern=["npm"])\nprefix_rule(pattern=["git"], decision="prompt")\n',
    )
    write(tmp_path / "home" / ".codex", "h.rules", 'prefix_rule(pattern=["touch"], decision="forbidden")\n')
    write(project / ".codex", "notes.txt", "not a rules file(")
    rules = load_rules(project / "sub", {"CODEX_HOME": str(codex_home)})
    assert rules.allows(["make", "all"])
    assert not rules.allows(["npm", "test"])  # a project layer Codex may not load
    assert rules.restricts(["git", "push"]) and rules.restricts(["touch", "x"])
    assert not rules.restricts(["make"])


def test_one_unreadable_file_makes_the_rules_unreadable(tmp_path: Path) -> None:
    write(tmp_path / "project" / ".codex", "bad.rules", "prefix_rule(pattern=RM)\n")
    with pytest.raises(Unreadable):
        load_rules(tmp_path / "project", {"CODEX_HOME": str(tmp_path / "none")})
