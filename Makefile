# biji: `make run` serves the demo blog on http://127.0.0.1:8000; `make test` runs every test.
# Both set up what they need themselves (a virtualenv; for tests also Debian's chromium,
# fonts-noto-cjk, axe-core from npm, and the local PostgreSQL and Redis servers).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
# Canonical links, hreflang, feeds and the sitemap point at the server make runs.
SITE_URL ?= http://$(HOST):$(PORT)
# DEMO=0: serve without loading the demo blog (it is only ever loaded into an empty database).
DEMO ?= 1
MANAGE := DJANGO_SECRET_KEY="$$(cat var/secret-key)" SITE_URL=$(SITE_URL) $(PY) manage.py
POSTGRES_URL ?= postgres://postgres@127.0.0.1:5432/test
# Database 0 of a shared Redis on purpose (the documented URL): the tests write every key under a
# per-session KEY_PREFIX and delete only keys under it, never FLUSHDB (tests/conftest.py), so
# whatever else lives in that database survives a test run.
REDIS_TEST_URL ?= redis://127.0.0.1:6379/0
TEMPLATE_DIRS := templates $(wildcard blog/templates)
COVERAGE_ARGS := --cov=blog --cov=config --cov-report=term:skip-covered

.PHONY: run serve superuser setup demo test test-sqlite test-postgres lint format browser-deps \
	services messages bench bench-pages bench-mechanisms soak clean lock

$(VENV)/.installed: requirements-dev.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --require-hashes -r requirements-dev.lock
	$(PY) -m pip install --quiet --no-deps -e .
	touch $@

# Re-pin requirements.lock (runtime) and requirements-dev.lock (+ dev); LOCK_ARGS=--upgrade bumps.
lock: $(VENV)/.installed
	CUSTOM_COMPILE_COMMAND="make lock" $(VENV)/bin/pip-compile --quiet --generate-hashes --strip-extras \
		--allow-unsafe --no-emit-index-url --no-emit-find-links --no-emit-trusted-host $(LOCK_ARGS) \
		--output-file=requirements.lock pyproject.toml
	CUSTOM_COMPILE_COMMAND="make lock" $(VENV)/bin/pip-compile --quiet --generate-hashes --strip-extras \
		--allow-unsafe --no-emit-index-url --no-emit-find-links --no-emit-trusted-host $(LOCK_ARGS) \
		--extra=dev --output-file=requirements-dev.lock pyproject.toml

var/secret-key:
	mkdir -p var
	$(PYTHON) -c "import secrets; print(secrets.token_urlsafe(50))" > $@
	chmod 600 $@

setup: $(VENV)/.installed var/secret-key

# The site runs as production would (DEBUG off, static files from whitenoise) on SQLite. The
# demo blog goes only into an empty database: an author's notes, edits and deletions are never
# overwritten by a later `make run`.
demo: setup
	$(MANAGE) migrate --noinput
	$(MANAGE) collectstatic --noinput --verbosity 0
	@if [ "$(DEMO)" != "0" ]; then $(MANAGE) load_demo --if-empty; fi

run: demo
	@echo "biji on $(SITE_URL)/ (admin: $(SITE_URL)/admin/, make an account with 'make superuser')"
	BIJI_SERVE_MEDIA=1 $(MANAGE) runserver $(HOST):$(PORT)

# `make run` without the demo blog.
serve:
	@$(MAKE) --no-print-directory run DEMO=0

superuser: setup
	$(MANAGE) migrate --noinput --verbosity 0
	$(MANAGE) createsuperuser

browser-deps:
	@bash scripts/install-browser-deps.sh

services:
	@bash scripts/start-services.sh

format: $(VENV)/.installed
	$(PY) -m ruff check --fix .
	$(PY) -m ruff format .
	$(VENV)/bin/djhtml $(TEMPLATE_DIRS)

# The same checks as .pre-commit-config.yaml: lint, formatting, template indentation.
lint: $(VENV)/.installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(VENV)/bin/djhtml --check $(TEMPLATE_DIRS)

test: setup browser-deps services lint
	$(MAKE) --no-print-directory test-sqlite
	$(MAKE) --no-print-directory test-postgres

test-sqlite: $(VENV)/.installed
	@echo "== tests on SQLite, local-memory cache (with coverage of blog/ and config/) =="
	env -u DATABASE_URL -u REDIS_URL DJANGO_SECRET_KEY=test-only \
		$(PY) -m pytest $(COVERAGE_ARGS) $(PYTEST_ARGS)

test-postgres: $(VENV)/.installed
	@echo "== tests on PostgreSQL, Redis cache =="
	DATABASE_URL=$(POSTGRES_URL) REDIS_URL=$(REDIS_TEST_URL) DJANGO_SECRET_KEY=test-only \
		$(PY) -m pytest $(PYTEST_ARGS)

messages: $(VENV)/.installed
	DJANGO_SECRET_KEY=dev $(PY) manage.py makemessages -l zh_Hans -l en --no-obsolete \
		--ignore=node_modules --ignore=staticfiles
	DJANGO_SECRET_KEY=dev $(PY) manage.py compilemessages --ignore=.venv --ignore=node_modules

bench: setup
	rm -f /tmp/biji-bench.sqlite3
	DATABASE_URL=sqlite:////tmp/biji-bench.sqlite3 DJANGO_SECRET_KEY=bench $(PY) manage.py migrate --noinput --verbosity 0
	DATABASE_URL=sqlite:////tmp/biji-bench.sqlite3 DJANGO_SECRET_KEY=bench $(PY) manage.py benchmark_search

# Page speed at 10,000 generated notes: gunicorn (2 workers) and wrk, cold, warm and conditional,
# beside a static file of the note page's size. BENCH_ARGS="--notes 1000 --duration 3".
bench-pages: setup
	bash scripts/bench_pages.sh $(BENCH_ARGS)

# What each caching mechanism is worth: bench-pages with each one off in turn, against all on, on
# the same data (benchmarks/mechanisms.py; needs wrk). BENCH_ARGS="--pages home,note --duration 3".
bench-mechanisms: setup
	env -u REDIS_URL -u DJANGO_DEBUG \
		DATABASE_URL=sqlite:///$(or $(BENCH_DB),/tmp/biji-pages-bench.sqlite3) \
		STATIC_ROOT=/tmp/biji-pages-bench-static DJANGO_SECRET_KEY=bench-only \
		DJANGO_ALLOWED_HOSTS=127.0.0.1,localhost DJANGO_LOG_LEVEL=ERROR \
		timeout 7200 $(PY) -m benchmarks mechanisms $(BENCH_ARGS)

# Load and faults: gunicorn x3 and wrk at 64 connections while a worker is killed, the cache
# server stops and starts, and 20 threads save notes. SOAK_SECONDS=60 by default.
soak: setup
	$(PY) scripts/soak.py --duration $(or $(SOAK_SECONDS),60)

clean:
	rm -rf $(VENV) staticfiles var/db.sqlite3* node_modules
