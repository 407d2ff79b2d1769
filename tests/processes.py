"""biji as its own processes in tests: a site's environment and ``manage.py`` commands.

What only a fresh process shows (settings read at start-up, a worker killed -9, two servers on
one database, backup and restore) is tested with an environment of the test's own: a database
and folders the test made, never the run's DATABASE_URL or REDIS_URL, so these tests do the
same on every database (``SAME_ON_EVERY_DATABASE`` in the Makefile runs them once).
"""

import atexit
import contextlib
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def site_env(database_url, media, **settings):
    """The environment of a site on ``database_url`` with its media under ``media`` and its
    private folder beside it; ``settings`` are more environment variables."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(
        DATABASE_URL=database_url,
        MEDIA_ROOT=str(media),
        BIJI_PRIVATE_ROOT=str(Path(media).parent / "private"),
        DJANGO_SECRET_KEY="test-only",
        DJANGO_ALLOWED_HOSTS="testserver,127.0.0.1",
        DJANGO_LOG_LEVEL="ERROR",
        DJANGO_CONN_MAX_AGE="0",
        BIJI_TASK_RETRY_DELAY="0",
    )
    env.update(settings)
    return env


def manage(env, *args, stdin=None, timeout=600):
    """``manage.py args`` in ``env``; its output, or an AssertionError with its errors."""
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        input=stdin,
        timeout=timeout,
    )
    if result.returncode != 0:
        raise AssertionError(f"manage.py {' '.join(args)} failed:\n{result.stderr[-3000:]}")
    return result.stdout


_migrated_template = None


def migrate(env):
    """``manage.py migrate`` for the site of ``env``, in effect. A SQLite site gets a copy of
    a database migrated once per test process (SQLite's backup API: every table and row
    ``migrate`` writes, content types, permissions and the rows made after it), ~4 s of CPU
    less each time; a site on another database is migrated. For tests about what comes after
    ``migrate`` (backups, workers, servers); the tests of the migrations run them."""
    global _migrated_template
    url = env["DATABASE_URL"]
    if not url.startswith("sqlite:///"):
        manage(env, "migrate", "--noinput")
        return
    if _migrated_template is None:
        folder = Path(tempfile.mkdtemp(prefix="biji-migrated-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        template = folder / "db.sqlite3"
        manage(site_env(f"sqlite:///{template}", folder / "media"), "migrate", "--noinput")
        _migrated_template = template
    copy_sqlite(_migrated_template, Path(url.removeprefix("sqlite:///")))


def copy_sqlite(source, target):
    """A copy of the SQLite database file ``source`` at ``target`` (SQLite's backup API: a
    consistent copy even while another process writes)."""
    reading, writing = sqlite3.connect(source), sqlite3.connect(target)
    try:
        reading.backup(writing)
    finally:
        writing.close()
        reading.close()
    Path(target).chmod(0o600)  # as the site makes its database file (config/settings.py)


def queue_wait_for_release(env, folder):
    """Queue ``tests.background.wait_for_release`` on the site of ``env`` (it records its runs in
    ``folder``); the task's id."""
    code = (
        "from tests.background import wait_for_release; "
        f"print(wait_for_release.enqueue({str(folder)!r}).id)"
    )
    return manage(env, "shell", "-v", "0", "-c", code).strip()


@contextlib.contextmanager
def folder_server(folder, port):
    """``python -m http.server`` serving ``folder`` on ``port`` (a static host with no rules)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            assert time.monotonic() < deadline, "http.server did not start"
            time.sleep(0.02)
        yield
    finally:
        process.terminate()
        process.wait(5)


def gunicorn(env, port, workers=1, options=(), **popen):
    """gunicorn serving the site of ``env`` on 127.0.0.1:``port`` (not waited for); ``options``
    are more of gunicorn's (``--certfile``…), ``popen`` more of Popen's (``stderr``…)."""
    popen = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, **popen}
    return subprocess.Popen(
        [BIN / "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{port}"]
        + ["--workers", str(workers), "--log-level", "warning", *options],
        cwd=ROOT,
        env=env,
        **popen,
    )
