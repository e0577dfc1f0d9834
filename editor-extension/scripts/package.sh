#!/usr/bin/env bash
# Builds the extension and packages it as a .vsix; prints the .vsix's absolute path (only that,
# on stdout). Install it with `code --install-extension <path>`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_node_modules
npm run --silent package >&2
echo "$(pwd)/dist/deja.vsix"
