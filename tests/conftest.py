import copy
import os
import secrets

import pytest
from django.conf import settings as django_settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.core.management import call_command
from django.test import override_settings

from tests.factories import make_staff

# The test session's own cache key space. `make test-postgres` points REDIS_URL at a shared
# server's database 0, where a developer's site (or anything else) may keep its keys: the tests
# write every key under this prefix and delete only keys under it, never FLUSHDB.
TEST_KEY_PREFIX = f"biji-test-{os.getpid()}-{secrets.token_hex(4)}"


def clear_test_cache():
    """Empty the cache for the next test without touching data the tests did not write.

    On Redis, delete the keys under the session's prefix (all writes go to the first server
    of ``LOCATION``, so that is where to look); a cache a test configured with a prefix of
    its own is left to that test. Other backends (local memory, per process) are cleared.
    """
    for alias in django_settings.CACHES:
        backend = caches[alias]
        if isinstance(backend, RedisCache):
            if not backend.key_prefix.startswith(TEST_KEY_PREFIX):
                continue
            client = backend._cache.get_client(write=True)
            keys = list(client.scan_iter(match=f"{backend.key_prefix}:*", count=1000))
            for start in range(0, len(keys), 500):
                client.delete(*keys[start : start + 500])
        else:
            backend.clear()


@pytest.fixture(scope="session", autouse=True)
def _test_cache_key_space():
    """Every configured cache gets the session's prefix before any test (or the test database
    setup) touches it."""
    configured = copy.deepcopy(django_settings.CACHES)
    for options in configured.values():
        options["KEY_PREFIX"] = TEST_KEY_PREFIX
    with override_settings(CACHES=configured):
        yield
        clear_test_cache()


@pytest.fixture(scope="session", autouse=True)
def _collected_static_files(tmp_path_factory):
    """Tests render templates with the production static storage (hashed names from a
    manifest), so a missing or misspelt static file fails a test instead of a deployment.

    Each test process collects into a folder of its own: parallel workers (pytest-xdist)
    collecting into one folder would replace files under each other's feet."""
    with override_settings(STATIC_ROOT=tmp_path_factory.mktemp("static")):
        call_command("collectstatic", interactive=False, verbosity=0)
        yield


@pytest.fixture(autouse=True)
def _isolated(settings, tmp_path):
    """Each test gets its own media folder and starts and ends with an empty cache (its own
    key space: see clear_test_cache)."""
    settings.MEDIA_ROOT = tmp_path / "media"
    clear_test_cache()
    yield
    clear_test_cache()


@pytest.fixture
def staff_user(db):
    return make_staff()


@pytest.fixture
def staff_client(client, staff_user):
    client.force_login(staff_user)
    return client
