"""biji's one background runner: django-tasks with its database backend, plus what the
backport lacks — retries with backoff on "try again" errors only, and a sweep that brings
back the task of a worker killed in the middle of it, which then completes exactly once."""

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from blog.background.sweep import sweep
from blog.background.workers import current_worker_id, host, is_dead
from tests.background import fails_often, fails_until, fails_with_a_bug, lines, run_queued_tasks
from tests.processes import ROOT, manage, migrate, queue_wait_for_release, site_env

in_committed_transactions = pytest.mark.django_db(transaction=True)


@pytest.fixture
def no_wait(settings):
    """Retries due at once (the backoff is tested on its own)."""
    settings.TASKS = {
        "default": {
            **settings.TASKS["default"],
            "OPTIONS": {"max_attempts": 3, "retry_delay": 0},
        }
    }


@in_committed_transactions
def test_a_try_again_error_is_retried_until_the_task_succeeds(tmp_path, no_wait):
    result = fails_until.enqueue(str(tmp_path), 3)
    run_queued_tasks()
    result.refresh()
    assert result.status == TaskResultStatus.SUCCESSFUL and result.return_value == "done"
    assert len(lines(tmp_path / "runs")) == 3 and result.attempts == 3


@in_committed_transactions
def test_retries_are_bounded_and_the_last_error_is_kept(tmp_path, no_wait):
    result = fails_until.enqueue(str(tmp_path), 10)
    run_queued_tasks()
    result.refresh()
    assert result.status == TaskResultStatus.FAILED
    assert len(lines(tmp_path / "runs")) == 3  # max_attempts from TASKS' OPTIONS
    assert result.errors[0].exception_class_path == "django.db.utils.OperationalError"
    assert "database is locked" in result.errors[0].traceback

    # A task may allow more runs than the backend's default.
    other = tmp_path / "other"
    other.mkdir()
    result = fails_often.enqueue(str(other))
    run_queued_tasks()
    result.refresh()
    assert result.status == TaskResultStatus.FAILED and len(lines(other / "runs")) == 5


@in_committed_transactions
def test_an_error_that_would_happen_again_is_not_retried(tmp_path, no_wait):
    result = fails_with_a_bug.enqueue(str(tmp_path))
    run_queued_tasks()
    result.refresh()
    assert result.status == TaskResultStatus.FAILED and len(lines(tmp_path / "runs")) == 1
    assert result.errors[0].exception_class_path == "builtins.ValueError"


@in_committed_transactions
def test_each_retry_waits_twice_as_long_as_the_last(tmp_path, settings):
    settings.TASKS = {"default": {**settings.TASKS["default"], "OPTIONS": {"retry_delay": 10}}}
    result = fails_until.enqueue(str(tmp_path), 10)
    waits = []
    for _ in range(2):
        before = timezone.now()
        run_queued_tasks()
        row = DBTaskResult.objects.get(pk=result.id)
        assert row.status == TaskResultStatus.READY  # not due yet: the batch ended
        assert "database is locked" in row.traceback  # why it waits, for the admin
        waits.append(row.run_after - before)
        row.run_after = timezone.now()  # time passes
        row.save(update_fields=["run_after"])
    assert timedelta(seconds=9) < waits[0] < timedelta(seconds=12)
    assert timedelta(seconds=19) < waits[1] < timedelta(seconds=22)
    run_queued_tasks()  # the third and last run
    assert DBTaskResult.objects.get(pk=result.id).status == TaskResultStatus.FAILED


def dead_worker_id():
    """The id a worker of this host had, whose process has ended."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return f"{host()}:{child.pid}:1"


@pytest.mark.django_db
def test_the_sweep_brings_back_a_dead_workers_task_and_leaves_a_live_ones(tmp_path):
    assert not is_dead(current_worker_id()) and is_dead(dead_worker_id())
    assert not is_dead(f"another-host:{os.getpid()}:1") and not is_dead("a-random-id")
    alive = fails_until.enqueue(str(tmp_path), 1)
    dead = fails_until.enqueue(str(tmp_path), 1)
    for result, worker in ((alive, current_worker_id()), (dead, dead_worker_id())):
        DBTaskResult.objects.filter(pk=result.id).first().claim(worker)
    assert sweep() == [(dead.id, TaskResultStatus.READY)]
    assert DBTaskResult.objects.get(pk=alive.id).status == TaskResultStatus.RUNNING
    assert DBTaskResult.objects.get(pk=dead.id).status == TaskResultStatus.READY


@pytest.mark.django_db
def test_a_task_whose_workers_keep_dying_fails_after_its_attempts(tmp_path):
    result = fails_until.enqueue(str(tmp_path), 1)
    row = DBTaskResult.objects.get(pk=result.id)
    for _ in range(3):
        row.claim(dead_worker_id())
        sweep()
        row.refresh_from_db()
    assert row.status == TaskResultStatus.FAILED
    assert row.exception_class_path == "blog.background.sweep.WorkerLost"
    assert "stopped during attempt 3" in row.traceback


@in_committed_transactions
def test_the_tasks_command_lists_and_retries_a_failed_task(tmp_path, no_wait, capsys):
    result = fails_with_a_bug.enqueue(str(tmp_path))
    run_queued_tasks()
    call_command("tasks", "--status", "FAILED")
    listed = capsys.readouterr().out
    assert result.id in listed and "ValueError: a bug" in listed
    call_command("tasks", "retry", result.id)
    assert DBTaskResult.objects.get(pk=result.id).status == TaskResultStatus.READY
    run_queued_tasks()
    assert len(lines(tmp_path / "runs")) == 2


# --- a real worker process, killed -9 in the middle of a task ------------------------------


def task_state(env, task_id):
    return manage(
        env,
        "shell",
        "-v",
        "0",
        "-c",
        "from django_tasks_db.models import DBTaskResult; "
        f"r = DBTaskResult.objects.get(pk='{task_id}'); print(r.status, len(r.worker_ids))",
    ).split()


def wait_for(condition, seconds=60):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


@pytest.fixture
def postgres_database(throwaway_postgresql):
    """A throwaway PostgreSQL database for the processes (PostgreSQL runs only; dropped when
    the session ends: conftest.py)."""
    return throwaway_postgresql("biji_tasks")


def killed_worker_task_completes_once(tmp_path, env):
    migrate(env)
    folder = tmp_path / "task"
    folder.mkdir()
    task_id = queue_wait_for_release(env, folder)
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "db_worker", "--no-startup-delay", "--interval", "0.1"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: lines(folder / "started"))
        assert lines(folder / "started") == [str(worker.pid)]
        # A sweep while the worker lives leaves its task alone.
        assert "0 tasks of dead workers swept" in manage(env, "tasks", "sweep")
        assert task_state(env, task_id) == ["RUNNING", "1"]
    finally:
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)
    assert task_state(env, task_id) == ["RUNNING", "1"]  # what the backport leaves
    (folder / "release").touch()
    # A new worker sweeps when it starts, then runs the task again: once, to its end.
    manage(env, "db_worker", "--batch", "--no-startup-delay")
    assert task_state(env, task_id) == ["SUCCESSFUL", "2"]
    assert len(lines(folder / "started")) == 2 and len(lines(folder / "done")) == 1


@pytest.mark.slow
def test_a_task_of_a_worker_killed_mid_task_completes_exactly_once(tmp_path):
    env = site_env(f"sqlite:///{tmp_path / 'db.sqlite3'}", tmp_path / "media")
    killed_worker_task_completes_once(tmp_path, env)


@pytest.mark.slow
def test_on_postgresql_too(tmp_path, postgres_database):
    killed_worker_task_completes_once(tmp_path, site_env(postgres_database, tmp_path / "media"))
