# unokit: build and test entry points. Everything runs from the project's own .venv,
# installed from the hashed lock in requirements/lock.txt.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.stamp

# Lint whichever of these folders exist (git does not keep empty folders).
LINT_PATHS := $(wildcard src tests benchmarks examples)

export PIP_DISABLE_PIP_VERSION_CHECK := 1

# pytest runs beside a throwaway PostgreSQL server of its own (scripts/pg_test_server.sh
# run), unless UNOKIT_TEST_POSTGRES_URL already names one, and beside a throwaway Redis
# (scripts/redis_test_server.sh run) unless UNOKIT_TEST_REDIS_URL names one; without
# them installed the scripts say how to install them, and their tests fail.
PYTEST := bash scripts/pg_test_server.sh run bash scripts/redis_test_server.sh run \
	$(BIN)/python -m pytest -n 2

.PHONY: venv run play test lint typecheck pytest lock catalogues clean cluster cluster-stop

venv: $(STAMP)

$(STAMP): requirements/lock.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --require-hashes -r requirements/lock.txt
	$(BIN)/pip install --no-deps --no-build-isolation -e .
	touch $@

# Serve the game (SQLite in ./unokit-data) and print the address to open in a browser.
run: venv
	$(BIN)/unokit serve

# The terminal game against bots.
play: venv
	$(BIN)/unokit play

test: venv
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/mypy
	bash scripts/install_postgres.sh
	bash scripts/install_redis.sh
	bash scripts/install_nginx.sh
	bash scripts/install_pgbouncer.sh
	bash scripts/install_browser.sh
	bash scripts/install_web_tools.sh
	$(PYTEST)

# A cluster on this machine: PostgreSQL, Redis, 3 servers and nginx in front
# (scripts/cluster.sh; docs/deploy.md, "Several processes").
cluster: venv
	bash scripts/install_postgres.sh
	bash scripts/install_redis.sh
	bash scripts/install_nginx.sh
	bash scripts/cluster.sh start

cluster-stop:
	bash scripts/cluster.sh stop

lint: venv
	$(BIN)/ruff check $(LINT_PATHS)

typecheck: venv
	$(BIN)/mypy

pytest: venv
	bash scripts/install_postgres.sh
	bash scripts/install_redis.sh
	bash scripts/install_nginx.sh
	bash scripts/install_pgbouncer.sh
	bash scripts/install_browser.sh
	bash scripts/install_web_tools.sh
	$(PYTEST)

# Regenerate requirements/lock.txt from requirements/lock.in with a throwaway uv.
# The lock holds names, versions and hashes only: no index addresses.
lock:
	set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(PYTHON) -m venv "$$tmp/venv"; \
	"$$tmp/venv/bin/pip" install --quiet uv; \
	"$$tmp/venv/bin/uv" pip compile --quiet --universal --python-version 3.11 --generate-hashes \
		--custom-compile-command 'make lock' requirements/lock.in -o requirements/lock.txt; \
	if grep -nE 'https?://' requirements/lock.txt; then \
		echo 'requirements/lock.txt names an address; remove it' >&2; exit 1; fi

# Extract the messages, merge them into every language's catalogue, compile the .mo files.
catalogues: venv
	bash scripts/catalogues.sh

clean:
	rm -rf $(VENV) build dist .mypy_cache .ruff_cache .pytest_cache .hypothesis
	rm -rf src/*.egg-info
	find . -name __pycache__ -type d -not -path './.git/*' -prune -exec rm -rf {} +
