#!/usr/bin/env bash
# Fills bundled/ for the .vsix: libs/ holds Deja's server (a copy of server/deja) and the pure-Python
# packages of bundled-requirements.txt; with a TARGET (linux-x64, linux-arm64, darwin-x64,
# darwin-arm64, win32-x64), orjson/cpXY/ holds, for each CPython, the wheels with a compiled part
# (NATIVE: orjson, watchfiles for the store watcher's file notifications, ijson for streaming very
# large sessions), which the extension puts on PYTHONPATH for the interpreter it runs (the folder
# keeps orjson's name: the extension looks for it there). Without them Deja falls back to the
# standard library's json, polling the store, and parsing a large session whole. Wheels come from
# PyPI once and are cached under ${DEJA_TEST_CACHE:-~/.cache/deja-test}/bundle-wheels.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:-}"
PY="${DEJA_BUILD_PYTHON:-../.venv/bin/python}"
CACHE="${DEJA_TEST_CACHE:-$HOME/.cache/deja-test}/bundle-wheels"
NATIVE="orjson==3.13.0 watchfiles==1.3.0 ijson==3.6.0"
CPYTHONS="3.11 3.12 3.13 3.14"

pip_quiet() { "$PY" -m pip --disable-pip-version-check "$@" 2> >(grep -v '^WARNING: Location' >&2); }

mkdir -p "$CACHE/pure"
want="$(sha256sum bundled-requirements.txt | cut -d' ' -f1)"
if [ "$(cat "$CACHE/pure/.stamp" 2>/dev/null)" != "$want" ]; then
  pip_quiet download --quiet --no-deps --only-binary=:all: --implementation py --python-version 3.11 \
    -d "$CACHE/pure" -r bundled-requirements.txt
  echo "$want" >"$CACHE/pure/.stamp"
fi
rm -rf bundled
mkdir -p bundled/libs
pip_quiet install --quiet --no-index --find-links "$CACHE/pure" --target bundled/libs --no-deps \
  --no-compile --only-binary=:all: --implementation py --python-version 3.11 -r bundled-requirements.txt
cp -r ../server/deja bundled/libs/deja
find bundled -name __pycache__ -prune -exec rm -rf {} +
rm -rf bundled/libs/bin

platform_of() {
  case "$1" in
    linux-x64) echo manylinux_2_17_x86_64 ;;
    linux-arm64) echo manylinux_2_17_aarch64 ;;
    darwin-x64) echo macosx_10_15_x86_64 ;;
    darwin-arm64) echo macosx_11_0_arm64 ;;
    win32-x64) echo win_amd64 ;;
    *) echo "bundle.sh: unknown target $1" >&2; return 1 ;;
  esac
}

if [ -n "$target" ]; then
  platform="$(platform_of "$target")"
  for version in $CPYTHONS; do
    tag="cp${version/./}"
    for wanted in $NATIVE; do
      name="${wanted%%==*}"
      folder="$CACHE/$name/$platform-$tag"
      if ! ls "$folder"/"$name"-*.whl >/dev/null 2>&1; then
        mkdir -p "$folder"
        pip_quiet download --quiet --no-deps --only-binary=:all: --implementation cp --platform "$platform" \
          --python-version "$version" -d "$folder" "$wanted"
      fi
      "$PY" -m zipfile -e "$(ls "$folder"/"$name"-*.whl | head -1)" "bundled/orjson/$tag"
    done
  done
  find bundled/orjson -name __pycache__ -prune -exec rm -rf {} +
fi
echo "bundled/: $(du -sh bundled | cut -f1)${target:+ for $target}" >&2
