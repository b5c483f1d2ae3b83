#!/usr/bin/env bash
# Make sure an OpenSSH server and client are installed (test/shim-ssh.test.ts runs a real sshd on
# loopback, as the current user, for `mcpx serve --transport stdio --connect ssh://...`).
# Idempotent and quick when installed; installs from apt only (Debian), as root or through sudo -n.
set -euo pipefail

APT_PACKAGES=(openssh-server openssh-client)

T0=$(date +%s)
log() { echo "[ssh-test setup] $*"; }

SUDO=()
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=(sudo -n); else SUDO=(); fi
fi
missing=()
for p in "${APT_PACKAGES[@]}"; do
  # (no `| grep -q` under pipefail: an early grep exit makes the pipeline fail by SIGPIPE)
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
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
if ! command -v apt-get >/dev/null 2>&1; then
  log "ERROR: need ${missing[*]} but apt-get is missing"; exit 1
fi
if [ "$(id -u)" != 0 ] && [ "${#SUDO[@]}" = 0 ]; then
  log "ERROR: need apt packages ${missing[*]} but am not root and sudo is missing"; exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Update the package lists only when a package has no install candidate (or install fails).
need_update=0
for p in "${missing[@]}"; do
  policy=$(apt-cache policy "$p" 2>/dev/null || true)
  [[ "$policy" == *"Candidate: "[0-9]* ]] || need_update=1
done
if [ "$need_update" = 1 ]; then "${SUDO[@]}" apt-get update -q; fi
log "apt-get install ${missing[*]}"
# (Where an init system runs, the package also starts the system's sshd on port 22; the test never
# uses it: it runs its own, on another port, with its own keys and config.)
if ! "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"; then
  [ "$need_update" = 1 ] && exit 1
  "${SUDO[@]}" apt-get update -q
  "${SUDO[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
[ -x /usr/sbin/sshd ] || { log "ERROR: /usr/sbin/sshd missing after install"; exit 1; }
privsep_dir
log "installed in $(( $(date +%s) - T0 )) s"
