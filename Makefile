# `make demo`: index your Continue store (or the sample one) and show what Deja answers.
# `make test`: install what the tests need, then lint, type-check and run every test.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test lint typecheck pytest editor-test bench bench-tiny tools clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m deja.demo
	@vsix="$$(bash editor-extension/scripts/package.sh)" && \
	  echo && echo "VS Code extension: code --install-extension $$vsix" && \
	  echo "  (then set deja.server.python to $(CURDIR)/$(PY))"

lint: $(STAMP)
	$(VENV)/bin/ruff check server tests bench fixtures
	$(VENV)/bin/ruff format --check server tests bench fixtures

typecheck: $(STAMP)
	$(VENV)/bin/mypy

pytest: $(STAMP) tools
	$(PY) -m pytest

# Debian packages the tests and the bench use: ripgrep to compare against, tmux to drive cn's TUI
# (we are root on CI's machine).
tools:
	command -v rg >/dev/null || { apt-get update -qq && apt-get install -y -qq ripgrep; }
	command -v tmux >/dev/null || { apt-get update -qq && apt-get install -y -qq tmux; }

test: lint typecheck pytest editor-test bench-tiny

# The VS Code extension: lint, unit tests, and end to end in a real VS Code (code-server).
editor-test: $(STAMP)
	bash editor-extension/scripts/test-all.sh

# The bench on a tiny store, so it cannot rot; `make bench` gives the figures in bench/RESULTS.md.
bench-tiny: $(STAMP) tools
	$(PY) bench/run.py --size 4M --quick
	$(PY) bench/recall/run.py --quick

bench: $(STAMP) tools
	$(PY) bench/run.py --size 1G
	$(PY) bench/recall/run.py --candidates
	$(PY) bench/recall/costs.py --size 1G

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
