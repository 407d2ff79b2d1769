# biji: `make run` serves the demo blog on http://127.0.0.1:8000; `make test` runs every test.
# Both set up what they need themselves (a virtualenv; for tests also Debian's chromium,
# fonts-noto-cjk, axe-core from npm, and the local PostgreSQL and Redis servers).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
POSTGRES_URL ?= postgres://postgres@127.0.0.1:5432/test
# Database 0 of a shared Redis on purpose (the documented URL): the tests write every key under a
# per-session KEY_PREFIX and delete only keys under it, never FLUSHDB (tests/conftest.py), so
# whatever else lives in that database survives a test run.
REDIS_TEST_URL ?= redis://127.0.0.1:6379/0
TEMPLATE_DIRS := templates $(wildcard blog/templates)
COVERAGE_ARGS := --cov=blog --cov=config --cov-report=term:skip-covered

.PHONY: run setup demo test test-sqlite test-postgres lint browser-deps services messages bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@

var/secret-key:
	mkdir -p var
	$(PYTHON) -c "import secrets; print(secrets.token_urlsafe(50))" > $@
	chmod 600 $@

setup: $(VENV)/.installed var/secret-key

# The demo runs as production would (DEBUG off, static files from whitenoise) on SQLite.
demo: setup
	DJANGO_SECRET_KEY="$$(cat var/secret-key)" $(PY) manage.py migrate --noinput
	DJANGO_SECRET_KEY="$$(cat var/secret-key)" $(PY) manage.py collectstatic --noinput --verbosity 0
	DJANGO_SECRET_KEY="$$(cat var/secret-key)" $(PY) manage.py load_demo

run: demo
	@echo "biji on http://$(HOST):$(PORT)/ (admin: make a user with 'manage.py createsuperuser')"
	DJANGO_SECRET_KEY="$$(cat var/secret-key)" $(PY) manage.py runserver $(HOST):$(PORT)

browser-deps:
	@bash scripts/install-browser-deps.sh

services:
	@bash scripts/start-services.sh

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
	DJANGO_SECRET_KEY=dev $(PY) manage.py makemessages -l zh_Hans -l en --no-obsolete
	DJANGO_SECRET_KEY=dev $(PY) manage.py compilemessages

bench: setup
	rm -f /tmp/biji-bench.sqlite3
	DATABASE_URL=sqlite:////tmp/biji-bench.sqlite3 DJANGO_SECRET_KEY=bench $(PY) manage.py migrate --noinput --verbosity 0
	DATABASE_URL=sqlite:////tmp/biji-bench.sqlite3 DJANGO_SECRET_KEY=bench $(PY) manage.py benchmark_search

clean:
	rm -rf $(VENV) staticfiles var/db.sqlite3* node_modules
