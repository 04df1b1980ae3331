"""What plugs tokenlab into agents' loops.

run.py              `tokens run`: run a command, analyse what it printed
capture.py          the command's output spooled to disk, its process group, timeouts
client.py           the short-lived side of the warm worker (standard library only)
wire.py             what the worker and its clients say over the socket, versioned
worker.py           the warm worker: analyses, drill-downs and hook calls for short-lived commands
package_files.py    whether the worker's package files changed since it started
discover.py         `tokens discover`: savings on past Claude Code sessions
hooks.py            the rewrite rules: which commands go through `tokens run`
shell_split.py      a shell command line read into its segments, for the rules
claude_hook.py      Claude Code's PreToolUse hook entry
claude_settings.py  Claude Code's settings: permission rules, install and uninstall
launcher.py         how hooks and rewrites name tokenlab: this Python by absolute path
host_env.py         which host a process runs under, and the command lines above it
"""
