import copy
import os
import secrets

import pytest
from django.conf import settings as django_settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.core.management import call_command
from django.test import override_settings
from django.utils import translation

from blog.caching import author as author_marker
from blog.caching import near
from blog.caching import store as safe_cache
from tests import backend_guard, engine_tests, shared_data
from tests.factories import make_staff

# PostgreSQL runs: commits do not wait for the server to flush its log to disk (~2-15 ms each
# here, hundreds of times a run: migrations, transactional tests, the flush after each). A test
# database is thrown away; what a commit makes visible, and when, is the same. libpq reads
# PGOPTIONS, so it holds for this process's connections and for the processes the tests start
# (manage.py, pg_dump, pg_restore), which inherit the environment.
if os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
    os.environ["PGOPTIONS"] = f"{os.environ.get('PGOPTIONS', '')} -c synchronous_commit=off".strip()

# A throwaway Redis server per test (``redis_server``), for the tests that stop and start it; the
# fediverse server of the run (``fediverse_peer``, started by the first test that asks for it).
pytest_plugins = [
    "tests.backed_up_demo",
    "tests.redis_server",
    "tests.smtp_server",
    "tests.fediverse_peer",
]

# The test session's own cache key space. `make test-postgres` points REDIS_URL at a shared
# server's database 0, where a developer's site (or anything else) may keep its keys: the tests
# write every key under this prefix and delete only keys under it, never FLUSHDB.
TEST_KEY_PREFIX = f"biji-test-{os.getpid()}-{secrets.token_hex(4)}"


def clear_test_cache():
    """Empty the cache for the next test without touching data the tests did not write.

    On Redis, delete the keys under the session's prefix (all writes go to the first server
    of ``LOCATION``, so that is where to look); a cache a test configured with a prefix of
    its own is left to that test. Other backends (local memory, per process) are cleared, and
    so are the worker's own copies of pages kept in front of Redis (blog/caching/near.py).
    """
    near.clear()
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
def _no_flushdb_on_the_shared_redis():
    """``cache.clear()`` on Redis is FLUSHDB: on the shared server (REDIS_URL) it would delete
    everybody's keys, so in the test session it raises instead. Tests empty their own keys
    with clear_test_cache(); a throwaway server (tests/redis_server.py) may still be cleared."""
    shared = os.environ.get("REDIS_URL")
    original = RedisCache.clear

    def clear(self):
        if shared and shared in self._servers:
            raise RuntimeError(
                "cache.clear() is FLUSHDB on the shared Redis server: use clear_test_cache()"
            )
        return original(self)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(RedisCache, "clear", clear)
        yield


@pytest.fixture(scope="session", autouse=True)
def _fast_password_hasher():
    """Passwords hashed with MD5 in the test session, as Django's testing guide advises.

    PBKDF2's deliberate slowness (a million iterations, ~0.5 s a hash here) is paid for every
    account a test makes (``make_staff``, ``create_user``): it was a fifth of the suite's time.
    No test is about the production hasher; checking a password works the same with either.
    Subprocesses (``manage.py`` in test_backup_restore.py…) keep the production settings."""
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


# Rows only ``migrate`` writes (its post_migrate step), never a test: kept by the flush after a
# transactional test, see _emptied_cheaply.
KEPT_BY_TEST_FLUSH = {"django_content_type", "auth_permission"}


@pytest.fixture(scope="session", autouse=True)
def _emptied_cheaply():
    """What empties the database after a transactional test (``django_db(transaction=True)``,
    Django's TransactionTestCase: a flush, then the post_migrate step that ``migrate`` runs)
    costs less, for the same database after it:

    * On PostgreSQL, one DELETE per table instead of Django's TRUNCATE of every table.
      TRUNCATE gives each of the ~40 tables and their indexes new files, ~0.7 s here, paid by
      each of the ~190 transactional tests of the PostgreSQL run; DELETE of the few rows a
      test wrote takes ~0.03 s. Every row is gone all the same (no table has a trigger on
      PostgreSQL, and Django's foreign keys are checked at the commit that ends the flush),
      and sequences stay where they were (TRUNCATE without RESTART IDENTITY leaves them too).
    * On both databases, the content types and permissions are left in place: post_migrate
      would write the same rows again (~100, a third of the flush's time on PostgreSQL) and
      now finds them there. Only ``migrate`` writes these tables; the rows that point at them
      (a user's permissions, an admin log entry, a tag's item) are emptied as before.

    A flush that resets sequences or cascades (``manage.py flush``, the browser tests' last
    step) is Django's own."""
    from django.db.backends.sqlite3.base import DatabaseWrapper as SQLite

    classes = [SQLite.ops_class]
    try:
        from django.db.backends.postgresql.base import DatabaseWrapper as PostgreSQL
    except ImportError:  # no psycopg: SQLite only
        pass
    else:
        classes.append(PostgreSQL.ops_class)

    def cheaper(original):
        def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
            if reset_sequences or allow_cascade or not tables:
                options = {"reset_sequences": reset_sequences, "allow_cascade": allow_cascade}
                return original(self, style, tables, **options)
            tables = [table for table in tables if table not in KEPT_BY_TEST_FLUSH]
            if self.connection.vendor == "postgresql":
                return [f"DELETE FROM {self.quote_name(table)};" for table in tables]  # noqa: S608
            return original(self, style, tables)

        return sql_flush

    with pytest.MonkeyPatch.context() as mp:
        for operations in classes:
            mp.setattr(operations, "sql_flush", cheaper(operations.sql_flush))
        yield


@pytest.fixture(scope="session", autouse=True)
def _static_files_scanned_once():
    """WhiteNoise reads the static folder once per configuration, as a server process does.

    Its middleware walks STATIC_ROOT and builds the headers of every file (its gzip and
    brotli variants, its immutability from the manifest) when it is created, and the test
    client creates the middleware afresh for every ``client``: ~560 scans of ~280 files, a
    fifth of the non-browser suite's time. The first scan of a configuration is kept and
    handed to later middlewares with the same one. The key is everything the scan reads:
    the folder and URL prefix, the middleware's own settings (max age, charset, index file,
    header and immutability functions, media types) and the settings behind the manifest's
    URLs, so a test that changes any of them gets a fresh scan. The files themselves do not
    change during a session (collected once, by ``_collected_static_files``)."""
    from whitenoise.base import WhiteNoise

    original = WhiteNoise.update_files_dictionary
    scans = {}

    def update_files_dictionary(self, root, prefix):
        key = (
            type(self),
            root,
            prefix,
            self.max_age,
            self.allow_all_origins,
            self.charset,
            self.add_headers_function,
            self.index_file,
            vars(self).get("immutable_file_test"),
            tuple(sorted(self.media_types.types_map.items())),
            getattr(self, "static_prefix", None),
            django_settings.STATIC_URL,
            django_settings.FORCE_SCRIPT_NAME,
            repr(django_settings.STORAGES),
        )
        if key not in scans:
            files, self.files = self.files, {}
            try:
                original(self, root, prefix)
                scans[key] = self.files
            finally:
                self.files = files
        self.files.update(scans[key])

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(WhiteNoise, "update_files_dictionary", update_files_dictionary)
        yield


@pytest.fixture(scope="session", autouse=True)
def _collected_static_files(tmp_path_factory):
    """Tests render templates with the production static storage (hashed names from a
    manifest), so a missing or misspelt static file fails a test instead of a deployment.

    Each test process collects into a folder of its own: parallel workers (pytest-xdist)
    collecting into one folder would replace files under each other's feet. The processes
    the tests start (``manage.py``, gunicorn) inherit the folder through STATIC_ROOT, so they
    do not depend on a ``staticfiles/`` left behind by ``make run``."""
    root = tmp_path_factory.mktemp("static")
    with override_settings(STATIC_ROOT=root), pytest.MonkeyPatch.context() as mp:
        call_command("collectstatic", interactive=False, verbosity=0)
        mp.setenv("STATIC_ROOT", str(root))
        yield


@pytest.fixture(autouse=True)
def _isolated(settings, tmp_path, request):
    """Each test gets its own media folder, starts and ends with an empty cache (its own
    key space: see clear_test_cache) and starts in no activated language, as in a fresh
    process (the default interface, LANGUAGE_CODE): a request to /en/ leaves English active
    in the thread, which would otherwise leak into whichever test the process runs next (the
    order differs from run to run with parallel workers). A test marked
    ``backend_independent`` gets a cache that refuses every use instead (backend_guard.py)."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.BIJI_PRIVATE_ROOT = tmp_path / "private"  # uploaded import archives
    translation.deactivate()
    if request.node.get_closest_marker(backend_guard.MARKER) is not None:
        check = backend_guard.guard_caches(settings)
        yield
        translation.deactivate()
        check()
        return
    clear_test_cache()
    safe_cache.reset()
    yield
    clear_test_cache()
    # A test that took the cache away (an outage, a server that is not there) leaves this
    # process's breaker open for a while: the next test would find every page a miss.
    safe_cache.reset()
    translation.deactivate()


@pytest.fixture(scope="session")
def throwaway_postgresql():
    """``make(prefix)`` creates an empty PostgreSQL database on the test database's server and
    returns its URL, for processes a test starts (PostgreSQL runs only: skips elsewhere).

    The databases are dropped when the session ends, not after each test: DROP DATABASE makes
    the server write every changed page of every database to disk first (a checkpoint), which
    took up to a minute in the middle of `make test` while the test databases were busy. A
    checkpoint at the end finds little left to write, and the next finds nothing."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL runs only (DATABASE_URL=postgres://…)")
    import psycopg

    params = connection.settings_dict
    password = f":{params['PASSWORD']}" if params.get("PASSWORD") else ""
    server = (
        f"postgres://{params.get('USER') or 'postgres'}{password}"
        f"@{params.get('HOST') or '127.0.0.1'}:{params.get('PORT') or 5432}"
    )
    created = []

    def make(prefix):
        name = f"{prefix}_{secrets.token_hex(5)}"
        with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        created.append(name)
        return f"{server}/{name}"

    try:
        yield make
    finally:
        if created:
            with psycopg.connect(f"{server}/postgres", autocommit=True) as admin:
                for name in created:
                    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def staff_user(db):
    return make_staff()


@pytest.fixture
def staff_client(client, staff_user):
    client.force_login(staff_user)
    # A browser logging in on the admin's page also gets the author's marker, which takes it
    # past the page cache (blog.caching.author); force_login sets the session cookie only.
    session_key = client.cookies[django_settings.SESSION_COOKIE_NAME].value
    client.cookies[author_marker.COOKIE] = author_marker.signed_marker(session_key)
    return client


# A key the tests did not write, on the shared Redis server, that must outlive the whole run:
# if any test (or the code under test) empties the server, the run fails and says so.
SENTINEL_KEY = f"not-biji-test:sentinel:{secrets.token_hex(6)}"


def _shared_redis(config):
    """The shared server, from the process that runs the session (the controller under xdist,
    so the key is set before any worker starts and checked after the last one ends)."""
    url = os.environ.get("REDIS_URL")
    if not url or hasattr(config, "workerinput"):
        return None
    import redis

    return redis.Redis.from_url(url)


def pytest_itemcollected(item):
    engine_tests.mark(item)  # before -m selects: the PostgreSQL run selects by it


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    backend_guard.check_collected(items)
    shared_data.order_items(items)
    _slow_first(items)


def _slow_first(items):
    """The modules holding tests marked ``slow`` (processes, seconds each) before the others,
    so that a run on two workers does not end with one of them on a 10-second test while the
    other core idles. Whole modules move, in their own order: module-scoped fixtures and module
    data (tests/shared_data.py) are set up once."""
    slow = {getattr(item, "module", None) for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: getattr(item, "module", None) not in slow)


def pytest_runtest_setup(item):
    shared_data.refuse_unexpected(item)


def pytest_sessionstart(session):
    server = _shared_redis(session.config)
    if server is not None:
        server.set(SENTINEL_KEY, "somebody else's data", ex=24 * 3600)


def pytest_sessionfinish(session, exitstatus):
    server = _shared_redis(session.config)
    if server is None:
        return
    if server.get(SENTINEL_KEY) is None:
        session.config.get_terminal_writer().line()
        session.config.get_terminal_writer().line(
            f"A key the tests did not write ({SENTINEL_KEY}) was deleted from the shared "
            "Redis server during the run: something emptied it (FLUSHDB?).",
            red=True,
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    server.delete(SENTINEL_KEY)
