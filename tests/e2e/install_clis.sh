#!/usr/bin/env bash
# Install the agent CLIs the end-to-end tests drive, at the exact versions in
# tests/e2e/package-lock.json, into a cache folder outside the repository (about 860 MB):
#
#   tests/e2e/install_clis.sh            # ${TOKENLAB_E2E_CACHE:-$HOME/.cache/tokenlab-e2e}
#   TOKENLAB_E2E_CACHE=/somewhere tests/e2e/install_clis.sh
#
# Running it again does nothing when the cache already holds those versions. Install
# scripts are skipped, so the optional native add-ons that would compile (node-pty,
# keytar; not needed non-interactively) are never built; Claude Code's own postinstall,
# which puts its native binary in place of a stub, is run explicitly.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${TOKENLAB_E2E_CACHE:-$HOME/.cache/tokenlab-e2e}
bins=(claude codex gemini)

installed() {
    cmp -s "$here/package-lock.json" "$cache/package-lock.json" || return 1
    node -e '
        const [here, cache] = process.argv.slice(1);
        const pins = require(`${here}/package.json`).dependencies;
        for (const [name, version] of Object.entries(pins)) {
            if (require(`${cache}/node_modules/${name}/package.json`).version !== version) process.exit(1);
        }' "$here" "$cache" 2>/dev/null || return 1
    for bin in "${bins[@]}"; do
        [ -x "$cache/node_modules/.bin/$bin" ] || return 1
    done
    # Until its postinstall has run, `claude` is a stub that only prints a hint and fails.
    "$cache/node_modules/.bin/claude" --version >/dev/null 2>&1
}

if installed; then
    echo "tokenlab e2e: CLIs already installed in $cache"
    exit 0
fi

mkdir -p "$cache"
cp "$here/package.json" "$here/package-lock.json" "$cache/"
(cd "$cache" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error &&
    node node_modules/@anthropic-ai/claude-code/install.cjs)
if ! installed; then
    echo "tokenlab e2e: install in $cache did not produce the pinned versions" >&2
    exit 1
fi
echo "tokenlab e2e: installed the CLIs pinned in $here/package.json in $cache"
