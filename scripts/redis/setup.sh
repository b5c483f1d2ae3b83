#!/usr/bin/env bash
# Make sure redis-server is installed (and redis-cli, which makes a Redis Cluster of three): the shared
# store of a team's replicas (docs/team.md), which test/e2e/team.test.ts, test/gateway/team-parts.test.ts
# and test/gateway/store.test.ts start for real on loopback ports with a temporary directory. Idempotent
# and quick when installed; installs from apt only (Debian), as root or through sudo -n. Nothing is
# downloaded at run time.
set -euo pipefail

APT_PACKAGES=(redis-server redis-tools)

log() { echo "[redis setup] $*"; }

# shellcheck source=../lib/apt.sh
. "$(dirname "$0")/../lib/apt.sh"
mapfile -t missing < <(apt_missing "${APT_PACKAGES[@]}")
if [ "${#missing[@]}" -gt 0 ] || ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1; then
  [ "${#missing[@]}" -gt 0 ] || missing=("${APT_PACKAGES[@]}")
  apt_install "${missing[@]}"
fi
command -v redis-server >/dev/null 2>&1 || { log "ERROR: redis-server missing after install"; exit 1; }
command -v redis-cli >/dev/null 2>&1 || { log "ERROR: redis-cli missing after install"; exit 1; }
# Debian's package starts a system service on 6379; the tests never use it (each starts its own).
log "$(redis-server --version | awk '{print $1, $2, $3}') present"
