#!/usr/bin/env bash
# `tokens mcp` against a client we did not write: the MCP Inspector's command-line mode
# (npm @modelcontextprotocol/inspector) lists the tools and calls read_file over stdio.
# Installs the Inspector into .ci/npm/ (git-ignored) on first use; needs node and npm.
# Run by .ci/run after `make test` when node is present; exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
INSPECTOR_VERSION="${INSPECTOR_VERSION:-0.15.0}"
PREFIX=.ci/npm
BIN="$PREFIX/node_modules/.bin/mcp-inspector"
PYTHON="${PYTHON:-.venv/bin/python}"

if [ ! -x "$BIN" ]; then
    npm install --prefix "$PREFIX" --no-save --no-audit --no-fund --loglevel=error \
        "@modelcontextprotocol/inspector@$INSPECTOR_VERSION"
fi
store="$(mktemp -d)"
trap 'rm -rf "$store"' EXIT
server=("$PWD/$PYTHON" -m tokenlab mcp --root "$PWD" --store "$store")

listed="$(timeout 120 "$BIN" --cli "${server[@]}" --method tools/list)"
called="$(timeout 120 "$BIN" --cli "${server[@]}" --method tools/call --tool-name read_file \
    --tool-arg path=README.md --tool-arg budget_tokens=300)"

LISTED="$listed" CALLED="$called" "$PYTHON" - <<'PY'
import json, os, sys

tools = {tool["name"]: tool for tool in json.loads(os.environ["LISTED"])["tools"]}
expected = {"read_file", "search", "pack", "deref", "changes", "expand_ref", "compress"}
problems = []
if set(tools) != expected:
    problems.append(f"tools/list: {sorted(tools)}, expected {sorted(expected)}")
for name, tool in tools.items():
    if not tool.get("description") or "outputSchema" not in tool:
        problems.append(f"{name}: no description or output schema")
answer = json.loads(os.environ["CALLED"])
result = answer.get("structuredContent") or {}
if answer.get("isError") or result.get("path") != "README.md" or result.get("tokens", 10**9) > 300:
    problems.append(f"read_file README.md: {json.dumps(answer)[:300]}")
for problem in problems:
    print(f"mcp inspector check: {problem}", file=sys.stderr)
if problems:
    sys.exit(1)
print(f"mcp inspector check: {len(tools)} tools listed; read_file README.md: "
      f"{result['view']} view, {result['tokens']}/{result['budget_tokens']} tokens")
PY
