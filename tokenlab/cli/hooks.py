"""The `tokens hook` commands: put tokenlab between an agent's tools and the model.

`register(app)` adds the `hook` group: `install`/`uninstall claude-code` edit Claude Code's
settings (`tokenlab.agent.claude_settings`), `install`/`uninstall gemini` Gemini CLI's
(`tokenlab.agent.gemini_settings`), `print` shows the rewrite for agents that wrap commands
some other way, and `claude-code` and `gemini` are the hooks themselves. Claude Code's, for
two events: PreToolUse puts `tokens run` in front of a Bash command the user's rules allow,
PostToolUse replaces a finished tool's output with the visible text. Gemini's, for AfterTool
only: it has Gemini read the visible text instead of the output (a tail call). The hooks only
parse and answer (`tokenlab.agent.claude_hook.run`, `tokenlab.agent.gemini_hook.run`; the
`decide` functions own every rule) and never fail closed. They accept any extra arguments,
because a usage error would exit 2, which both hosts treat as "block this tool call".
"""

from __future__ import annotations

import os
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from tokenlab.cli.common import domain_errors


class Agent(str, Enum):
    CLAUDE_CODE = "claude-code"
    GEMINI = "gemini"


UserOption = Annotated[
    bool,
    typer.Option(
        "--user", help="~/.claude/settings.json or ~/.gemini/settings.json (default: the project's)."
    ),
]
ProjectOption = Annotated[
    bool,
    typer.Option(
        "--project",
        help="./.claude/settings.json or ./.gemini/settings.json, shared with the project (the default).",
    ),
]


def register(app: typer.Typer) -> None:
    hook_app = typer.Typer(
        help="Compress an agent's tool output with tokenlab (Claude Code and Gemini CLI hooks).",
        no_args_is_help=True,
    )
    app.add_typer(hook_app, name="hook")
    hook_app.command("install")(install)
    hook_app.command("uninstall")(uninstall)
    hook_app.command("print")(print_rewrite)
    hook_app.command(
        "claude-code",
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    )(claude_code)
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


@domain_errors
def install(
    agent: Annotated[Agent, typer.Argument(help="The agent to hook (claude-code, gemini).")],
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
    """Add the hooks to Claude Code's settings, keeping everything else: PreToolUse for Bash
    (the `tokens run` rewrite) and PostToolUse for the tools whose output it replaces.
    Gemini CLI: AfterTool only, for the tools whose output it replaces."""
    from tokenlab.agent import claude_settings

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
        "bypassPermissions mode. Anything else runs as written, with Claude Code's own prompt."
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


@domain_errors
def uninstall(
    agent: Annotated[Agent, typer.Argument(help="The agent to unhook (claude-code, gemini).")],
    project: ProjectOption = False,
    user: UserOption = False,
) -> None:
    """Remove our hook entries from the agent's settings; nothing else changes."""
    from tokenlab.agent import claude_settings, gemini_settings

    path = _settings_file(agent, user, project)
    host = gemini_settings if agent is Agent.GEMINI else claude_settings
    change = host.uninstall(path)
    typer.echo(f"{'removed from' if change.value == 'removed' else 'not installed in'} {path}")
    if agent is Agent.GEMINI and not user:
        trusted = gemini_settings.trusted_hooks_path(os.environ)
        if gemini_settings.distrust(trusted, Path.cwd()).value == "removed":
            typer.echo(f"and from the trusted hooks of {Path.cwd()} in {trusted}")


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


def gemini(ctx: typer.Context) -> None:
    """The Gemini CLI hook (AfterTool): hook JSON on stdin, the answer (or nothing) on stdout."""
    from tokenlab.agent.gemini_hook import run

    run(ctx.args)
