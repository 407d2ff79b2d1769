"""Settings come from the environment, with safe defaults."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Settings read in a process of the test's own, from variables the test sets, none from the
# run's database or cache (tests/backend_guard.py): not run again on PostgreSQL.
backend_independent = pytest.mark.backend_independent


def run_manage(*args, env):
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def settings_value(expression, env):
    """``expression`` evaluated on a fresh import of config.settings under ``env`` alone (no
    DJANGO_*/DATABASE_* variables from the calling environment; pytest-django's own DEBUG
    override does not reach a subprocess)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_"))}
    result = subprocess.run(
        [sys.executable, "-c", f"from django.conf import settings; print({expression})"],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@backend_independent
def test_debug_is_off_by_default():
    key = {"DJANGO_SECRET_KEY": "test-only"}
    assert settings_value("settings.DEBUG", key) == "False"
    assert settings_value("settings.DEBUG", {**key, "DJANGO_DEBUG": ""}) == "False"
    assert settings_value("settings.DEBUG", {**key, "DJANGO_DEBUG": "0"}) == "False"
    assert settings_value("settings.DEBUG", {**key, "DJANGO_DEBUG": "1"}) == "True"


@pytest.mark.slow
def test_check_deploy_is_clean_with_production_settings(tmp_path):
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        env={
            "DJANGO_SECRET_KEY": "x" * 30 + "a-long-random-production-key-0123456789",
            "DJANGO_ALLOWED_HOSTS": "blog.example",
            "SITE_URL": "https://blog.example",
            "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        },
    )
    assert result.returncode == 0, result.stdout + result.stderr


@backend_independent
@pytest.mark.slow
def test_database_url_selects_postgresql_and_redis_url_the_redis_cache():
    code = (
        "from django.conf import settings as s;"
        "print(s.DATABASES['default']['ENGINE']);"
        "print(s.CACHES['default']['BACKEND'])"
    )
    result = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DJANGO_SECRET_KEY": "k",
            "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/test",
            "REDIS_URL": "redis://127.0.0.1:6379/0",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.split() == [
        "django.db.backends.postgresql",
        "django.core.cache.backends.redis.RedisCache",
    ], result.stderr


@backend_independent
def test_the_embedded_cache_holds_a_whole_blog_and_its_bound_is_a_setting():
    """Without REDIS_URL, each worker's memory cache holds 20,000 entries (Django's default of
    300 held a few pages of a blog of a few hundred notes); BIJI_CACHE_MAX_ENTRIES sets it."""
    entries = "settings.CACHES['default']['OPTIONS']['MAX_ENTRIES']"
    env = {"DJANGO_SECRET_KEY": "k", "REDIS_URL": ""}
    assert settings_value(entries, env) == "20000"
    assert settings_value(entries, {**env, "BIJI_CACHE_MAX_ENTRIES": "500"}) == "500"
