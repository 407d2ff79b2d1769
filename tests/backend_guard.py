"""The ``backend_independent`` marker: tests that touch neither the database nor the cache.

``make test`` runs the non-browser suite twice, on SQLite with the local-memory cache and on
PostgreSQL with Redis. A test whose outcome cannot depend on either (Markdown in, HTML out; a
slug from a title; a merge of two texts) runs only in the first: the PostgreSQL run leaves
``-m backend_independent`` out. What makes the marker true is checked on every run that
includes the test, so a test that starts using the database or the cache fails instead of
silently losing its PostgreSQL run:

* collection refuses a marked test that asks for the database (``django_db``, ``db``,
  ``transactional_db``, ``live_server``), and pytest-django refuses any query from a test that
  did not ask for it;
* while a marked test runs, every cache is :class:`UnusedCache`, which records and refuses
  every call; a call fails the test (in its teardown if the code under test swallowed the
  error).

A marked test that starts processes must give them an environment without the run's
``DATABASE_URL`` and ``REDIS_URL`` (``tests.processes.site_env``) or start no Django at all.
"""

import pytest
from django.core.cache.backends.base import BaseCache

MARKER = "backend_independent"
DATABASE_FIXTURES = {
    "db",
    "transactional_db",
    "live_server",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
}


def check_collected(items):
    for item in items:
        if item.get_closest_marker(MARKER) is None:
            continue
        asks = sorted(DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())))
        if item.get_closest_marker("django_db") is not None:
            asks.append("the django_db mark")
        if asks:
            raise pytest.UsageError(
                f"{item.nodeid} is marked {MARKER} but uses the database ({', '.join(asks)}): "
                "the PostgreSQL run would leave it out. Remove the mark."
            )


class UnusedCache(BaseCache):
    """A cache for a test marked ``backend_independent``: any use is recorded and refused."""

    calls = []

    def __init__(self, location, params):
        super().__init__(params)


# Every operation of Django's cache API (the async ones call these).
OPERATIONS = (
    "add", "get", "set", "touch", "delete", "get_many", "set_many", "delete_many", "has_key",
    "incr", "decr", "clear",
)  # fmt: skip


def _refusing(operation):
    def refuse(self, *args, **kwargs):
        UnusedCache.calls.append(operation)
        raise AssertionError(f"cache.{operation}() in a test marked {MARKER}: remove the mark")

    refuse.__name__ = operation
    return refuse


for _operation in OPERATIONS:
    setattr(UnusedCache, _operation, _refusing(_operation))


def guard_caches(settings):
    """Every configured cache replaced by :class:`UnusedCache` for this test (``settings`` is
    pytest-django's fixture, which puts the real ones back). Returns a check for the end."""
    settings.CACHES = {
        alias: {"BACKEND": "tests.backend_guard.UnusedCache"} for alias in settings.CACHES
    }
    UnusedCache.calls.clear()

    def check():
        calls, UnusedCache.calls[:] = list(UnusedCache.calls), []
        if calls:
            pytest.fail(
                f"a test marked {MARKER} used the cache ({', '.join(calls)}): remove the mark",
                pytrace=False,
            )

    return check
