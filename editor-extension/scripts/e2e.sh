#!/usr/bin/env bash
# The end-to-end suite alone: installs what it needs (cached), expects dist/deja.vsix (npm run
# package) and the project's .venv. Extra arguments go to `node --test`.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/setup-e2e.sh)"
export DEJA_NODE24_BIN DEJA_CODE_SERVER DEJA_CHROMIUM
npx tsc -p tsconfig.test.json
rm -rf ../test-results/vscode-e2e
exec "$DEJA_NODE24_BIN/node" --test --test-concurrency=1 "$@" out/test/e2e/*.test.js
