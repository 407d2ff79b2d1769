"""Tasks for the worker's resilience tests (tests/test_worker_resilience.py), run by a worker in
this process or in another: each writes what it did into a file of the folder it is given."""

import os
import time
from pathlib import Path

from django_tasks import task

from tests.background import _append


@task()
def says_who_ran_it(folder, name="ran"):
    """Writes the worker's process id to ``folder/name``."""
    _append(Path(folder) / name, os.getpid())
    return os.getpid()


@task()
def imports_something(folder):
    _append(Path(folder) / "imported", os.getpid())


@task(time_limit=0.5)
def overstays(folder):
    """Runs past its half-second limit, swallowing the ordinary exceptions on the way."""
    _append(Path(folder) / "started", os.getpid())
    try:
        time.sleep(30)
    except Exception:  # noqa: S110 (a task that swallows errors must still be stopped)
        pass
    _append(Path(folder) / "survived", os.getpid())


@task()
def overstays_the_backends_limit(folder):
    _append(Path(folder) / "started", os.getpid())
    time.sleep(30)
    _append(Path(folder) / "survived", os.getpid())
