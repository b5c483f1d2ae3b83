#!/usr/bin/env bash
# Make sure an OpenSSH server and client are installed (test/shim/shim-ssh.test.ts runs a real sshd on
# loopback, as the current user, for `mcpx serve --transport stdio --connect ssh://...`).
# Idempotent and quick when installed; installs from apt only (Debian), as root or through sudo -n.
set -euo pipefail

APT_PACKAGES=(openssh-server openssh-client)

T0=$(date +%s)
log() { echo "[ssh-test setup] $*"; }

# shellcheck source=../lib/apt.sh
. "$(dirname "$0")/../lib/apt.sh"
mapfile -t missing < <(apt_missing "${APT_PACKAGES[@]}")
# sshd run as root wants its privilege separation directory, which only the system's service (systemd's
# RuntimeDirectory) makes, and /run is emptied at boot: made here. Run as another user sshd needs none.
privsep_dir() {
  if [ "$(id -u)" = 0 ]; then mkdir -p -m 0755 /run/sshd; fi
}
if [ "${#missing[@]}" -eq 0 ] && [ -x /usr/sbin/sshd ] && command -v ssh >/dev/null 2>&1 \
   && command -v ssh-keygen >/dev/null 2>&1; then
  privsep_dir
  log "openssh present"
  exit 0
fi
[ "${#missing[@]}" -gt 0 ] || missing=("${APT_PACKAGES[@]}")
# (Where an init system runs, the package also starts the system's sshd on port 22; the test never
# uses it: it runs its own, on another port, with its own keys and config.)
apt_install "${missing[@]}"
[ -x /usr/sbin/sshd ] || { log "ERROR: /usr/sbin/sshd missing after install"; exit 1; }
privsep_dir
log "installed in $(( $(date +%s) - T0 )) s"
