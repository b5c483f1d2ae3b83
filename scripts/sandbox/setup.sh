#!/usr/bin/env bash
# Make sure bubblewrap is installed: the mechanism of the upstream sandbox (docs/security.md "The
# upstream sandbox"), which test/upstream/sandbox.test.ts runs for real. Idempotent and quick when installed;
# installs from apt only (Debian), as root or through sudo -n. Nothing is downloaded at run time.
set -euo pipefail

APT_PACKAGES=(bubblewrap)

log() { echo "[sandbox setup] $*"; }

# shellcheck source=../lib/apt.sh
. "$(dirname "$0")/../lib/apt.sh"
mapfile -t missing < <(apt_missing "${APT_PACKAGES[@]}")
if [ "${#missing[@]}" -gt 0 ] || ! command -v bwrap >/dev/null 2>&1; then
  [ "${#missing[@]}" -gt 0 ] || missing=("${APT_PACKAGES[@]}")
  apt_install "${missing[@]}"
fi
command -v bwrap >/dev/null 2>&1 || { log "ERROR: bwrap missing after install"; exit 1; }
# A sandbox this machine can make (user and network namespaces): said here, not at the first test.
if ! err=$(bwrap --ro-bind / / --unshare-net --unshare-pid --die-with-parent true 2>&1); then
  log "ERROR: bubblewrap cannot make a sandbox here: $err"; exit 1
fi
log "bubblewrap $(bwrap --version | awk '{print $2}') present and working"
