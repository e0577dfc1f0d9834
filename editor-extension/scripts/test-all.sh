#!/usr/bin/env bash
# Everything for the VS Code extension, as `make test` runs it: installs what is needed (npm ci;
# Node 24, code-server 4.139.1 and chromium cached under ~/.cache/deja-test or $DEJA_TEST_CACHE),
# lint, type-check, build, package the .vsix, unit tests (node --test), then the end-to-end suite
# in code-server. Ends with exactly one line `N passed, M failed`; exits non-zero on any failure.
# A failed step that is not a test (install, lint, build…) counts as one failed test.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
REPORTS="$(mktemp -d)"
trap 'rm -rf "$REPORTS"' EXIT
passed=0
failed=0
start=$SECONDS

step() { # step NAME COMMAND...: a gate; its failure counts once
  local name="$1"
  shift
  echo "── $name" >&2
  if "$@"; then
    return 0
  fi
  echo "✖ $name failed" >&2
  failed=$((failed + 1))
  return 1
}

count() { # count TAPFILE: adds its `# pass N` / `# fail M`
  local tap="$1" p f
  p="$(grep -E '^# pass [0-9]+' "$tap" | tail -1 | awk '{print $3}')"
  f="$(grep -E '^# fail [0-9]+' "$tap" | tail -1 | awk '{print $3}')"
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-0}))
  if [ -z "$p" ] && [ -z "$f" ]; then
    return 1
  fi
}

node_tests() { # node_tests NODE NAME FILES...: spec on stdout, TAP counted
  local node="$1" name="$2"
  shift 2
  local tap="$REPORTS/$name.tap"
  echo "── $name" >&2
  "$node" --test --test-concurrency=1 \
    --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$tap" "$@"
  local status=$?
  if ! count "$tap"; then
    echo "✖ $name: no test ran (exit $status)" >&2
    failed=$((failed + 1))
  elif [ "$status" -ne 0 ] && ! grep -qE '^# fail [1-9]' "$tap"; then
    echo "✖ $name: the runner failed (exit $status)" >&2
    failed=$((failed + 1))
  fi
}

if step "npm ci" ensure_node_modules; then
  step "eslint" npx eslint src test
  step "typecheck" npx tsc -p tsconfig.json --noEmit
  if step "compile tests" npx tsc -p tsconfig.test.json; then
    node_tests node unit out/test/unit/*.test.js
  fi
  if step "package the .vsix" npm run --silent package; then
    if SETUP="$(bash scripts/setup-e2e.sh)"; then
      eval "$SETUP"
      export DEJA_NODE24_BIN DEJA_CODE_SERVER DEJA_CHROMIUM
      PY="${DEJA_TEST_PYTHON:-$(cd .. && pwd)/.venv/bin/python}"
      if [ -x "$PY" ] && "$PY" -c 'import deja.lsp.server' 2>/dev/null; then
        rm -rf ../test-results/vscode-e2e
        node_tests "$DEJA_NODE24_BIN/node" e2e out/test/e2e/*.test.js
      else
        echo "✖ e2e: $PY cannot run Deja's server (make test creates .venv first)" >&2
        failed=$((failed + 1))
      fi
    else
      echo "✖ e2e setup failed" >&2
      failed=$((failed + 1))
    fi
  fi
fi

echo "editor-extension: $((SECONDS - start)) s; screenshots in test-results/vscode-e2e/" >&2
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
