"""The `tokens hook` commands: put tokenlab between an agent's tools and the model.

`register(app)` adds the `hook` group: `install`/`uninstall claude-code` edit Claude Code's
settings (`tokenlab.agent.claude_settings`), `install`/`uninstall codex` Codex's hooks.json,
trusting the hook in its config.toml (`tokenlab.agent.codex_config`), `install`/`uninstall
gemini` Gemini CLI's settings (`tokenlab.agent.gemini_settings`), `print` shows the rewrite
for agents that wrap commands some other way, `status` says what is installed where and
when it last ran, and `claude-code`, `codex` and `gemini` are the hooks themselves. Claude
Code's, for two events: PreToolUse puts `tokens run` in front of a Bash command the user's
rules allow, PostToolUse replaces a finished tool's output with the visible text. Codex's:
PreToolUse rewrites a shell command that is harmless or allowed by the user's rules,
PostToolUse replaces a large MCP result. Gemini's, for AfterTool only: it has Gemini read
the visible text instead of the output (a tail call). The hooks only parse and answer (the
`decide` functions own every rule) and never fail closed. They accept any extra arguments,
because a usage error would exit 2, which the hosts treat as "block this tool call".
"""

from __future__ import annotations

import os
import time
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from tokenlab.cli.common import JsonOption, StoreOption, domain_errors


class Agent(str, Enum):
    CLAUDE_CODE = "claude-code"
    CODEX = "codex"
    GEMINI = "gemini"


UserOption = Annotated[
    bool,
    typer.Option(
        "--user",
        help="~/.claude/settings.json, Codex's ~/.codex/hooks.json or ~/.gemini/settings.json "
        "(default: the project's).",
    ),
]
ProjectOption = Annotated[
    bool,
    typer.Option(
        "--project",
        help="./.claude/settings.json, ./.codex/hooks.json or ./.gemini/settings.json, shared with the "
        "project (the default).",
    ),
]


def register(app: typer.Typer) -> None:
    hook_app = typer.Typer(
        help="Compress an agent's tool output with tokenlab (Claude Code, Codex and Gemini CLI hooks).",
        no_args_is_help=True,
    )
    app.add_typer(hook_app, name="hook")
    hook_app.command("install")(install)
    hook_app.command("uninstall")(uninstall)
    hook_app.command("print")(print_rewrite)
    hook_app.command("status")(status)
    hook_app.command(
        "claude-code",
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    )(claude_code)
    hook_app.command(
        "codex",
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    )(codex)
    hook_app.command(
        "gemini",
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    )(gemini)


def _settings_file(agent: Agent, user: bool, project: bool) -> Path:
    from tokenlab.agent import claude_settings, gemini_settings
    from tokenlab.errors import InputError

    if user and project:
        raise InputError("--user and --project exclude each other")
    if agent is Agent.GEMINI:
        return gemini_settings.settings_path(user, os.environ, Path.cwd())
    return claude_settings.settings_path(user, os.environ, Path.cwd())


def _codex_files(user: bool, project: bool) -> tuple[Path, Path]:
    from tokenlab.agent.codex_config import config_path, hooks_path
    from tokenlab.errors import InputError

    if user and project:
        raise InputError("--user and --project exclude each other")
    return hooks_path(user, os.environ, Path.cwd()), config_path(os.environ)


@domain_errors
def install(
    agent: Annotated[Agent, typer.Argument(help="The agent to hook (claude-code, codex, gemini).")],
    project: ProjectOption = False,
    user: UserOption = False,
    allow_read_only: Annotated[
        bool,
        typer.Option("--allow-read-only", help="Also approve the built-in read-only commands (listed)."),
    ] = False,
    exclude: Annotated[
        list[str] | None,
        typer.Option(
            "--exclude", metavar="PATTERN", help="Never rewrite commands matching this rule pattern."
        ),
    ] = None,
    tools: Annotated[
        str | None,
        typer.Option(
            "--tools",
            metavar="LIST",
            help="Comma-separated tools (names or regular expressions) whose output PostToolUse "
            "(AfterTool) replaces; '' for none. Default: Bash,Read,Grep,Glob,WebFetch,mcp__.* "
            "(gemini: run_shell_command,read_file,grep_search,glob,mcp_.*)",
        ),
    ] = None,
) -> None:
    """Add the hooks to the agent's own settings, keeping everything else. Claude Code and
    Codex: PreToolUse for shell commands (the `tokens run` rewrite) and PostToolUse for the
    tools whose output it replaces. Gemini CLI: AfterTool only, for the tools whose output it
    replaces."""
    from tokenlab.agent import claude_settings

    if agent is Agent.CODEX:
        if allow_read_only or exclude or tools is not None:
            from tokenlab.errors import InputError

            raise InputError("--allow-read-only, --exclude and --tools apply to claude-code only")
        _install_codex(user, project)
        return
    if agent is Agent.GEMINI:
        _install_gemini(user, project, tools, allow_read_only or bool(exclude))
        return
    path = _settings_file(agent, user, project)
    command = claude_settings.hook_command(allow_read_only, tuple(exclude or ()))
    covered = claude_settings.DEFAULT_TOOLS if tools is None else tuple(filter(None, tools.split(",")))
    change = claude_settings.install(path, command, covered)
    verb = {"added": "installed", "updated": "updated", "unchanged": "already installed"}[change.value]
    typer.echo(f"{verb}: `{command}` as a PreToolUse hook for Bash in {path}")
    typer.echo(
        "It rewrites a command to `tokens run --shell '…'` only when it would have run without a\n"
        "prompt: every part allowed by your permission rules (none denied or asked), or\n"
        "bypassPermissions mode. Anything else runs as written, with Claude Code's own prompt.\n"
        "The hook and the rewrite name tokenlab by this Python's absolute path (with `-S` and\n"
        "tokenlab's __main__.py), so they work whatever PATH Claude Code's shell has."
    )
    if covered:
        typer.echo(
            f"Also as a PostToolUse hook for {', '.join(covered)}:\n"
            "a successful tool's output is replaced by tokenlab's visible text when that is\n"
            "shorter (source code read with Read is left as it is). It changes what the model\n"
            "is shown, never what may run."
        )
    _show_read_only(allow_read_only)


def _install_gemini(user: bool, project: bool, tools: str | None, rewrite_options: bool) -> None:
    from tokenlab.agent import gemini_settings
    from tokenlab.errors import InputError

    if rewrite_options:
        raise InputError(
            "--allow-read-only and --exclude are for claude-code: the gemini hook rewrites no command"
        )
    path = _settings_file(Agent.GEMINI, user, project)
    covered = gemini_settings.DEFAULT_TOOLS if tools is None else tuple(filter(None, tools.split(",")))
    if not covered:
        raise InputError("--tools is empty: the gemini hook has nothing else to do")
    command = gemini_settings.hook_command()
    change = gemini_settings.install(path, command, covered)
    verb = {"added": "installed", "updated": "updated", "unchanged": "already installed"}[change.value]
    typer.echo(f"{verb}: `{command}` as an AfterTool hook for {', '.join(covered)} in {path}")
    if not user:
        trusted = gemini_settings.trusted_hooks_path(os.environ)
        gemini_settings.trust(trusted, Path.cwd(), command)
        typer.echo(f"and trusted for {Path.cwd()} in {trusted}")
    typer.echo(
        "A finished tool's output is replaced by tokenlab's visible text when that is shorter:\n"
        "Gemini reads it with read_file from its own temp folder (source code read with\n"
        "read_file is left as it is). It changes what the model is shown, never what may run;\n"
        "no command is rewritten, since Gemini's policy would then judge `tokens` instead."
    )


def _show_read_only(accepted: bool) -> None:
    from tokenlab.agent.hooks import READ_ONLY

    listed = ", ".join(" ".join(prefix) for prefix in READ_ONLY)
    if accepted:
        typer.echo(f"Also approved as read-only (options that write or run programs excluded): {listed}.")
        typer.echo("Note: test runners (pytest, npm test, cargo test, go test) run the project's own code.")
    else:
        typer.echo(f"With --allow-read-only it would also approve these read-only commands: {listed}.")


def _install_codex(user: bool, project: bool) -> None:
    from tokenlab.agent import codex_config
    from tokenlab.agent.launcher import tokens_argv
    from tokenlab.agent.hooks import READ_ONLY

    hooks_file, config_file = _codex_files(user, project)
    command = codex_config.hook_command(tokens_argv())
    installed = codex_config.install(hooks_file, config_file, command)
    verb = {"added": "installed", "updated": "updated", "unchanged": "already installed"}[
        installed.change.value
    ]
    typer.echo(f"{verb}: `{command}` in {hooks_file}, for PreToolUse (Bash) and PostToolUse (mcp__.*)")
    typer.echo(
        f"Trusted in {config_file} (Codex runs a hook only once trusted): " + ", ".join(installed.trusted)
    )
    listed = ", ".join(" ".join(prefix) for prefix in READ_ONLY)
    typer.echo(
        "PreToolUse rewrites a shell command to `tokens run --shell '…'` only when every part is\n"
        f"read-only ({listed}; options that write or run programs excluded), a `cd`, or allowed\n"
        "by an allow rule of your Codex rules, and none matches a forbidden or prompt rule or is a\n"
        "forced rm. Anything else runs as written, under Codex's own checks.\n"
        "Note: test runners on that list run the project's own code (in Codex's sandbox).\n"
        "PostToolUse replaces a large MCP tool result with tokenlab's visible text."
    )
    if not user and not codex_config.project_trusted(config_file, Path.cwd()):
        typer.echo(
            f"warning: Codex loads {hooks_file.parent} only for a trusted project, and {Path.cwd()} is\n"
            f"not marked trusted in {config_file}: trust it when Codex asks, or add\n"
            f'[projects."{Path.cwd()}"] trust_level = "trusted"',
            err=True,
        )


@domain_errors
def uninstall(
    agent: Annotated[Agent, typer.Argument(help="The agent to unhook (claude-code, codex, gemini).")],
    project: ProjectOption = False,
    user: UserOption = False,
) -> None:
    """Remove our hook entries from the agent's settings (and, for Codex, the trust install
    wrote); nothing else changes."""
    from tokenlab.agent import claude_settings, gemini_settings

    if agent is Agent.CODEX:
        from tokenlab.agent import codex_config

        hooks_file, config_file = _codex_files(user, project)
        change = codex_config.uninstall(hooks_file, config_file)
        where = f"{hooks_file} and {config_file}"
        typer.echo(f"{'removed from' if change.value == 'removed' else 'not installed in'} {where}")
        return
    path = _settings_file(agent, user, project)
    host = gemini_settings if agent is Agent.GEMINI else claude_settings
    change = host.uninstall(path)
    typer.echo(f"{'removed from' if change.value == 'removed' else 'not installed in'} {path}")
    if agent is Agent.GEMINI and not user:
        trusted = gemini_settings.trusted_hooks_path(os.environ)
        if gemini_settings.distrust(trusted, Path.cwd()).value == "removed":
            typer.echo(f"and from the trusted hooks of {Path.cwd()} in {trusted}")


@domain_errors
def status(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """For each agent: which tokenlab hooks are installed, where, and when each last ran."""
    from tokenlab import ledger
    from tokenlab.agent.hook_status import status as hook_status
    from tokenlab.commands import emit_json
    from tokenlab.errors import InputError
    from tokenlab.store import open_store

    try:
        found = hook_status(os.environ, Path.cwd(), open_store(store).root)
    except ledger.LedgerError as error:
        raise InputError(str(error)) from None
    if as_json:
        emit_json({"hosts": [host.as_dict() for host in found]})
        return
    for host in found:
        typer.echo(f"{host.host}:")
        for place in host.installed:
            hooks = ", ".join(f"{event} ({matcher})" if matcher else event for event, matcher in place.entries)
            typer.echo(f"  installed in {place.path}: {hooks}")
        if not host.installed:
            typer.echo("  not installed (user or project settings)")
        for what, when in sorted(host.last_runs.items()):
            typer.echo(f"  last {what}: {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(when))}")
        if not host.last_runs:
            typer.echo("  no run recorded in the savings ledger")


def print_rewrite(
    command: Annotated[str, typer.Argument(metavar="CMD", help="The shell command, as one argument.")],
) -> None:
    """Print CMD as the hook would rewrite it (permission rules aside)."""
    from tokenlab.agent.hooks import rewrite

    rewritten = rewrite(command)
    if rewritten is None:
        typer.echo(
            "tokens: left unchanged (already wrapped, only changes the shell's state, runs in "
            "the background, or uses syntax the hook does not analyse)",
            err=True,
        )
    typer.echo(command if rewritten is None else rewritten)


def claude_code(ctx: typer.Context) -> None:
    """The Claude Code hook (PreToolUse and PostToolUse): hook JSON on stdin, the answer (or nothing) on stdout.

    Options (in the hook's command line): --allow-read-only, --exclude PATTERN.
    """
    from tokenlab.agent.claude_hook import run

    run(ctx.args)


def codex(ctx: typer.Context) -> None:
    """The Codex hook (PreToolUse and PostToolUse): hook JSON on stdin, the answer (or nothing) on stdout."""
    from tokenlab.agent.codex_hook import run

    run(ctx.args)


def gemini(ctx: typer.Context) -> None:
    """The Gemini CLI hook (AfterTool): hook JSON on stdin, the answer (or nothing) on stdout."""
    from tokenlab.agent.gemini_hook import run

    run(ctx.args)
