#!/usr/bin/env bash
# `make dist`: dist/deja-<version>-py3-none-any.whl (pipx / uv tool / pip), the universal
# dist/deja-<version>.vsix (standard library json) and one .vsix per platform carrying orjson's
# wheels for CPython 3.11–3.14: dist/deja-<version>-<target>.vsix.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY="${DEJA_BUILD_PYTHON:-$(pwd)/.venv/bin/python}"
TARGETS="linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64"
version="$("$PY" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')"
mkdir -p dist
rm -f dist/deja-*.whl dist/deja-*.vsix
"$PY" -m pip wheel --quiet --no-deps -w dist . 2> >(grep -v '^WARNING: Location' >&2)
rm -rf build
cd editor-extension
source scripts/lib.sh
ensure_node_modules
npm run --silent typecheck
npm run --silent build -- --production
vsce=node_modules/.bin/vsce
for target in $TARGETS; do
  DEJA_BUILD_PYTHON="$PY" bash scripts/bundle.sh "$target"
  "$vsce" package --no-dependencies --allow-missing-repository --skip-license --no-rewrite-relative-links --target "$target" --out "../dist/deja-$version-$target.vsix" >&2
done
DEJA_BUILD_PYTHON="$PY" bash scripts/bundle.sh
"$vsce" package --no-dependencies --allow-missing-repository --skip-license --no-rewrite-relative-links --out "../dist/deja-$version.vsix" >&2
cd ..
ls -l dist/deja-"$version"* >&2
