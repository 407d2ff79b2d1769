"""The background runner in tests: the real worker loop, in this process, and tasks to run.

:func:`run_queued_tasks` is ``manage.py db_worker --batch`` without the process: biji's
worker (django-tasks-db's loop with retries) runs every task that is due, then returns.
The loop closes obsolete database connections between tasks, which inside a test's
transaction would close the test's own: tests that use it need
``@pytest.mark.django_db(transaction=True)``.

The tasks below write what they did into files of a folder the test gives them, so a
test, or a worker in another process, can see how often each ran.
"""

import os
import time
from pathlib import Path

from django.db import OperationalError
from django_tasks import task

from blog.background.worker import Worker
from blog.background.workers import current_worker_id


def run_queued_tasks():
    Worker(
        queue_names=["*"],  # every queue, as db_worker
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id=current_worker_id(),
        excluded_queue_names=[],
    ).run()


def _append(path, line):
    with open(path, "a") as out:
        out.write(f"{line}\n")


def lines(path):
    path = Path(path)
    return path.read_text().splitlines() if path.exists() else []


@task()
def wait_for_release(folder):
    """Says it started, waits (at most a minute) for a file named ``release``, says it ended."""
    folder = Path(folder)
    _append(folder / "started", os.getpid())
    deadline = time.monotonic() + 60
    while not (folder / "release").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    _append(folder / "done", os.getpid())
    return "released"


@task()
def fails_until(folder, succeeding_run, error="database is locked"):
    """Raises OperationalError (a "try again" error) until its ``succeeding_run``-th run."""
    _append(Path(folder) / "runs", os.getpid())
    if len(lines(Path(folder) / "runs")) < succeeding_run:
        raise OperationalError(error)
    return "done"


@task()
def fails_with_a_bug(folder):
    _append(Path(folder) / "runs", os.getpid())
    raise ValueError("a bug: retrying would fail the same way")


@task(max_attempts=5)
def fails_often(folder):
    _append(Path(folder) / "runs", os.getpid())
    raise OperationalError("database is locked")
