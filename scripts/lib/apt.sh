# Sourced by the test set-up scripts (scripts/vscode-host/setup.sh, scripts/ssh-test/setup.sh,
# scripts/windows/setup.sh): installs the Debian packages named that are not installed yet, from apt
# only, as root or through `sudo -n`.
# Needs a `log` function. Returns 0 when everything is installed; exits 1 when it cannot install.

# apt_missing PKG...: prints the packages not installed, one per line.
apt_missing() {
  local p status
  for p in "$@"; do
    # (no `| grep -q` under pipefail: an early grep exit makes the pipeline fail by SIGPIPE)
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [ "$status" = "install ok installed" ] || echo "$p"
  done
}

# apt_install PKG...: installs them (all given are taken as missing).
apt_install() {
  [ "$#" -gt 0 ] || return 0
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo=(sudo -n); else
      log "ERROR: need apt packages $* but am not root and sudo is missing"; exit 1
    fi
  fi
  if ! command -v apt-get >/dev/null 2>&1; then log "ERROR: need $* but apt-get is missing"; exit 1; fi
  export DEBIAN_FRONTEND=noninteractive
  # Another apt on the machine (another set-up script, the system's) holds the lock a while: wait for it.
  local lock=(-o DPkg::Lock::Timeout=300)
  # Update the package lists only when a package has no install candidate (or install fails).
  local need_update=0 p policy
  for p in "$@"; do
    policy=$(apt-cache policy "$p" 2>/dev/null || true)
    [[ "$policy" == *"Candidate: "[0-9]* ]] || need_update=1
  done
  if [ "$need_update" = 1 ]; then "${sudo[@]}" apt-get "${lock[@]}" update -q; fi
  log "apt-get install $*"
  if ! "${sudo[@]}" apt-get "${lock[@]}" install -y -q --no-install-recommends "$@"; then
    [ "$need_update" = 1 ] && exit 1
    "${sudo[@]}" apt-get "${lock[@]}" update -q
    "${sudo[@]}" apt-get "${lock[@]}" install -y -q --no-install-recommends "$@"
  fi
}
