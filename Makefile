# The two commands a newcomer needs: `make run` and `make test` (see README).
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run hall test test-thorough test-stock bench bench-smoke lint serve setup messages clean

# Re-install only when the dependency list changes.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e ".[dev]" --config-settings editable_mode=compat \
		|| $(BIN)/python -m pip install -q -e ".[dev]"
	@touch $(STAMP)

setup: $(STAMP)

# The time-driven jobs (GoRoD hints, failed levels, queued announcements) run inside the server
# on the embedded default; with REDIS_URL one clock process runs beside it and stops with it.
SERVE = if [ -n "$$REDIS_URL" ]; then trap 'kill $$clock 2>/dev/null' EXIT; \
	$(BIN)/python manage.py gorod_clock & clock=$$!; fi; \
	$(BIN)/python -m config.server --host $(HOST) --port $(PORT) --access-log

run: $(STAMP)
	$(BIN)/python manage.py migrate --noinput -v 0
	$(BIN)/python manage.py demo --host $(HOST) --port $(PORT)
	@$(SERVE)

# A night in the hall from this laptop (README, first section): every interface, plain HTTP,
# DEBUG off, a snapshot every minute; the demo only into a database with no users yet.
hall: HOST = 0.0.0.0
hall: export HALL = true
hall: $(STAMP)
	$(BIN)/python manage.py migrate --noinput -v 0
	$(BIN)/python manage.py demo --host $(HOST) --port $(PORT) --if-empty
	@$(SERVE)

# Serve without loading the demo (e.g. on PostgreSQL + Redis; see README: Deployment).
serve: $(STAMP)
	$(BIN)/python manage.py migrate --noinput -v 0
	@$(SERVE)

# Two workers: much of the suite waits on servers and Chromium, so two keep both CI cores busy.
# Each worker has its own test database, Redis database and key prefix (tests/parallel.py).
TEST_WORKERS ?= 2

test: $(STAMP)
	$(BIN)/python -m pytest -n $(TEST_WORKERS)

# Every Hypothesis property at its own full example count (`make test` runs at most 15 each;
# tests/properties.py), and the schema fuzz with schemathesis's coverage cases (`make test`
# sends its generated requests only). Bounded (about 4 minutes on one core): a search that
# outgrows its time fails instead of holding CI.
THOROUGH_TIMEOUT_S ?= 300

test-thorough: $(STAMP)
	HYPOTHESIS_PROFILE=thorough timeout --foreground $(THOROUGH_TIMEOUT_S) \
		$(BIN)/python -m pytest -n $(TEST_WORKERS) -m hypothesis

# The live and concurrency tests once more on Django's, Channels' and asgiref's stock parts
# (STOCK_INTERNALS=true, config.settings) instead of the overrides of their internals, so an
# upgrade that breaks an override shows which side broke. Tests of an override's own effect are
# marked fast_internals and left out. About 1.5 CPU-minutes on SQLite, 2.5 on PostgreSQL + Redis,
# over two workers; the bound only stops a hang.
STOCK_TESTS = tests/core/test_stock_internals.py tests/core/test_batch.py \
	tests/core/test_realtime.py tests/core/test_handlers.py tests/core/test_sqlite.py \
	tests/core/test_sqlite_default.py tests/*/test_live*.py tests/*/test_concurrency.py \
	tests/*/test_consumers.py tests/kingofhill/test_presence_workers.py
STOCK_TIMEOUT_S ?= 600

test-stock: $(STAMP)
	STOCK_INTERNALS=true timeout --foreground $(STOCK_TIMEOUT_S) \
		$(BIN)/python -m pytest -n $(TEST_WORKERS) -m "not bench and not fast_internals" \
		$(STOCK_TESTS)

# Starts and stops its own servers (SQLite; PostgreSQL + Redis, installed like .ci/run does);
# prints one table and writes bench/results.json. BENCH_QUICK=1: small counts, under 2 minutes.
bench: $(STAMP)
	$(BIN)/python -m bench

# The quick bench's table and JSON keep their shape (tests/core/test_bench.py, marked `bench`
# and left out of `make test`): about half a minute of its own servers.
bench-smoke: $(STAMP)
	$(BIN)/python -m pytest -p no:xdist -m bench tests/core/test_bench.py

lint: $(STAMP)
	$(BIN)/ruff check .

messages: $(STAMP)
	$(BIN)/python manage.py makemessages -l ru --ignore=.venv --ignore=tests --ignore=bench \
		--ignore=artifacts --ignore=staticfiles
	$(BIN)/python manage.py compilemessages --ignore=.venv

clean:
	rm -rf $(VENV) artifacts staticfiles
