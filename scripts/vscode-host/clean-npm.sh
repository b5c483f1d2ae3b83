# Sourced by setup.sh (and by its test). `clean_npm_run CMD...` runs CMD with none of the
# environment an outer npm leaves behind: under `npm test`, npm exports its own configuration
# (npm_config_*, among them npm_config_user_agent naming the outer Node), npm_lifecycle_*,
# npm_package_*, INIT_CWD and NODE_OPTIONS, and a nested npm reads every npm_config_* variable
# as its own configuration. code-server's postinstall reads the Node version from
# npm_config_user_agent, so an inherited one makes an install under Node 24 report Node 20.
# The setup must behave the same under `npm test`, under .ci/run and by hand.

# The names to drop, one per line, from the current environment. npm reads its variables
# case-insensitively, so NPM_CONFIG_* goes too.
outer_npm_vars() {
  local name
  # compgen -e lists exported names only (a value with newlines cannot fake one).
  for name in $(compgen -e); do
    case "$name" in
      npm_config_* | NPM_CONFIG_* | npm_lifecycle_* | npm_package_* | npm_execpath | npm_node_execpath \
        | npm_command | INIT_CWD | NODE_OPTIONS)
        echo "$name" ;;
    esac
  done
}

clean_npm_run() {
  local args=() name
  while read -r name; do
    [ -n "$name" ] && args+=(-u "$name")
  done < <(outer_npm_vars)
  env "${args[@]}" "$@"
}

# `host_npm_install DIR NODE NPM_CLI`: `npm install` of DIR's package.json with npm-cli.js run
# under NODE, in a clean npm environment. Everything the install needs is given as flags, after
# the outer environment is gone.
host_npm_install() {
  local dir="$1" node="$2" npm_cli="$3" node_dir
  node_dir="$(cd "$(dirname "$node")/.." && pwd)"
  (
    cd "$dir"
    # Native addons (node-pty, spdlog, kerberos, argon2, ...) dominate the time: use every core.
    # Chromium comes from apt: never let anything try to download a browser.
    # --nodedir: the machine's npmrc points node-gyp at Node 20's headers; use NODE's own.
    clean_npm_run env PATH="$node_dir/bin:$PATH" JOBS=max PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
      "$node" "$npm_cli" install --no-save --no-package-lock --loglevel=warn \
      --nodedir="$node_dir" --update-notifier=false --fund=false --audit=false
  )
}
