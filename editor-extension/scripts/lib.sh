# Shared by the scripts: `npm ci` only when the lockfile changed since the last install.
ensure_node_modules() {
  local stamp=node_modules/.deja-lock.sha256
  local want
  want="$(sha256sum package-lock.json | cut -d' ' -f1)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "editor-extension: npm ci" >&2
    npm ci --no-audit --no-fund >&2
    echo "$want" >"$stamp"
  fi
}
