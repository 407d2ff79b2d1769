"""A worker's lease on its task (blog.background.lease): the sweep takes over a task whose worker,
on any host, let its lease run out (its heartbeat old, or none and an old claim), never one held
under a current lease, in one query when nothing is lost; a worker that lost its task records
nothing over the new owner's result; and a worker cut off from the database stops its run before
another can take the task over (blog.background.lease_guard)."""

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from blog.background.lease_guard import SIGNAL, LeaseGuard, LeaseLost
from blog.background.sweep import sweep
from blog.background.worker import Worker
from blog.models import WorkerHeartbeat
from tests.background import fails_until, lines
from tests.processes import ROOT, manage, migrate, site_env

ELSEWHERE = "host-b:4242:99"  # a worker of another host: its process cannot be seen from here


@pytest.fixture
def lease(settings):
    settings.BIJI_WORKER_LEASE_SECONDS = 30
    return timedelta(seconds=30)


def running(tmp_path, worker=ELSEWHERE, claimed_ago=timedelta(seconds=60)):
    """A task RUNNING under ``worker``, claimed ``claimed_ago``."""
    result = fails_until.enqueue(str(tmp_path), 1)
    row = DBTaskResult.objects.get(pk=result.id)
    row.claim(worker)
    DBTaskResult.objects.filter(pk=row.pk).update(started_at=timezone.now() - claimed_ago)
    row.refresh_from_db()
    return row


def beat(worker=ELSEWHERE, ago=timedelta(seconds=1), task=None):
    """``worker``'s heartbeat row, written ``ago``, naming ``task``."""
    now = timezone.now()
    WorkerHeartbeat.objects.update_or_create(
        worker_id=worker,
        defaults={
            "host": worker.split(":")[0],
            "pid": int(worker.split(":")[1]),
            "queues": "*",
            "started_at": now - timedelta(hours=1),
            "last_seen": now - ago,
            "task_id": str(task.pk) if task else "",
            "task_path": task.task_path if task else "",
        },
    )


def status(row):
    row.refresh_from_db()
    return row.status


@pytest.mark.django_db
def test_a_task_under_a_current_heartbeat_stays_and_costs_one_query(tmp_path, lease):
    task = running(tmp_path)
    beat(task=task)
    young = running(tmp_path, "host-c:7:7", claimed_ago=timedelta(seconds=5))  # no beat yet
    with CaptureQueriesContext(connection) as queries:
        assert sweep() == []
    assert len(queries) == 1
    assert status(task) == status(young) == TaskResultStatus.RUNNING


@pytest.mark.django_db
def test_a_task_whose_heartbeat_is_older_than_the_lease_is_taken_over(tmp_path, lease):
    task = running(tmp_path)
    beat(task=task, ago=lease + timedelta(seconds=1))
    assert sweep() == [(str(task.pk), TaskResultStatus.READY)]
    task.refresh_from_db()
    assert task.status == TaskResultStatus.READY and len(task.worker_ids) == 1  # one attempt
    assert f"worker {ELSEWHERE} let its lease of 30 s run out during attempt 1" in task.traceback


@pytest.mark.django_db
def test_a_task_whose_worker_has_no_heartbeat_is_taken_over_once_its_claim_is_old(tmp_path, lease):
    old = running(tmp_path, claimed_ago=lease + timedelta(seconds=1))
    young = running(tmp_path, claimed_ago=lease - timedelta(seconds=5))
    assert sweep() == [(str(old.pk), TaskResultStatus.READY)]
    assert status(young) == TaskResultStatus.RUNNING


@pytest.mark.django_db
def test_a_current_heartbeat_naming_another_task_does_not_hold_this_one(tmp_path, lease):
    lost = running(tmp_path)
    moved_on_to = running(tmp_path, "host-b:9:9", claimed_ago=timedelta(seconds=1))
    beat(task=moved_on_to)  # the worker runs another task now: this one is not its
    assert sweep() == [(str(lost.pk), TaskResultStatus.READY)]


@pytest.mark.django_db
def test_a_task_taken_over_once_too_often_fails(tmp_path, lease):
    task = running(tmp_path)
    DBTaskResult.objects.filter(pk=task.pk).update(worker_ids=["a:1:1", "b:2:2", ELSEWHERE])
    assert sweep() == [(str(task.pk), TaskResultStatus.FAILED)]
    task.refresh_from_db()
    assert task.exception_class_path == "blog.background.sweep.WorkerLost"


def worker(worker_id):
    return Worker(
        queue_names=["*"],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id=worker_id,
        excluded_queue_names=[],
    )


@pytest.mark.django_db
def test_a_worker_that_lost_its_lease_records_nothing_over_the_new_owner(tmp_path, lease):
    first = running(tmp_path, "host-a:1:1", claimed_ago=lease + timedelta(seconds=1))
    assert sweep() == [(str(first.pk), TaskResultStatus.READY)]  # host-a went quiet
    taken_over = DBTaskResult.objects.get(pk=first.pk)
    taken_over.claim(ELSEWHERE)
    worker(ELSEWHERE).after_success(taken_over, taken_over.task, "the new owner's")

    worker("host-a:1:1").after_success(first, first.task, "the late one's")  # back, too late
    worker("host-a:1:1").after_error(first, first.task, ValueError("late"))
    first.refresh_from_db()
    assert first.status == TaskResultStatus.SUCCESSFUL
    assert first.return_value == "the new owner's" and first.traceback == ""
    assert first.worker_ids == ["host-a:1:1", ELSEWHERE]


@pytest.mark.django_db
def test_a_worker_still_holding_its_task_records_its_end(tmp_path, lease):
    task = running(tmp_path, ELSEWHERE, claimed_ago=timedelta(seconds=1))
    worker(ELSEWHERE).after_success(task, task.task, "done")
    task.refresh_from_db()
    assert task.status == TaskResultStatus.SUCCESSFUL and task.return_value == "done"


@pytest.mark.django_db
def test_a_run_stopped_for_its_lease_records_nothing_and_goes_to_the_next_sweep(tmp_path, lease):
    task = running(tmp_path, ELSEWHERE, claimed_ago=timedelta(seconds=25))
    worker(ELSEWHERE).after_error(task, task.task, LeaseLost("stopped"))
    assert status(task) == TaskResultStatus.RUNNING and task.traceback == ""
    DBTaskResult.objects.filter(pk=task.pk).update(started_at=timezone.now() - lease * 2)
    assert sweep() == [(str(task.pk), TaskResultStatus.READY)]


class Renewing:
    """A heartbeat stand-in, renewed every 10 ms while ``renewing`` is set."""

    worker_id = "host-a:1:1"

    def __init__(self):
        self.renewed_at = None
        self.renewing = threading.Event()
        threading.Thread(target=self._renew, daemon=True).start()

    def _renew(self):
        while True:
            if self.renewing.is_set():
                self.renewed_at = time.monotonic()
            time.sleep(0.01)


@pytest.fixture
def guard(settings):
    settings.BIJI_WORKER_LEASE_SECONDS = 0.3  # the run stops 0.2 s after the last renewal
    previous = signal.getsignal(SIGNAL)
    guard = LeaseGuard(Renewing())
    guard.start()
    yield guard
    guard.stop()
    signal.signal(SIGNAL, previous)


def test_a_run_is_stopped_once_the_lease_is_two_thirds_old_unrenewed(guard):
    started = time.monotonic()
    with pytest.raises(LeaseLost):
        with guard.guarding("task-1", claimed_at=started):
            time.sleep(5)  # cut off from the database: no heartbeat renews the lease
    assert 0.2 <= time.monotonic() - started < 0.5


def test_a_renewed_lease_lets_the_run_go_on(guard):
    guard.heartbeat.renewing.set()
    with guard.guarding("task-2", claimed_at=time.monotonic()):
        time.sleep(0.35)  # past the 0.2 s an unrenewed lease would last
    time.sleep(0.05)  # nor does anything come after the run


@pytest.mark.django_db
def test_the_queue_page_and_the_tasks_command_show_each_workers_host_and_lease(
    staff_client, lease, capsys
):
    beat("host-a:1:1", ago=lease + timedelta(seconds=5))
    beat(ELSEWHERE, ago=timedelta(seconds=2))
    url = reverse("admin:blog_backgroundtask_changelist")
    page = staff_client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    rows = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    assert f"host-b {ELSEWHERE} every queue" in rows and " current " in rows
    assert "host-a host-a:1:1 every queue" in rows
    assert "run out: its task goes to another worker" in rows

    call_command("tasks")
    out = capsys.readouterr().out
    assert f"{ELSEWHERE}  queues *  last seen 2 s ago  idle  (host host-b, lease current)" in out
    assert "(host host-a, lease run out)" in out


# --- a real worker cut off from its database (make test-interop) ---------------------------


@pytest.mark.skipif(not os.environ.get("BIJI_TEST_INTEROP"), reason="make test-interop runs it")
@pytest.mark.slow
def test_a_worker_that_cannot_renew_its_lease_stops_its_run_and_the_task_completes_once(
    tmp_path,
):
    database = tmp_path / "db.sqlite3"
    env = site_env(
        f"sqlite:///{database}",
        tmp_path / "media",
        BIJI_WORKER_LEASE_SECONDS="2",  # the run stops 1.3 s after the last renewal
        BIJI_SQLITE_TIMEOUT="0.3",
        BIJI_HOST_ID="host-a",
    )
    migrate(env)
    folder, log = tmp_path / "task", tmp_path / "worker.log"
    folder.mkdir()
    worker = subprocess.Popen(
        [sys.executable, "manage.py", "db_worker", "--no-startup-delay", "--interval", "0.1"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
    )
    try:
        manage(
            env,
            "shell",
            "-c",
            "from tests.background import wait_for_release; "
            f"wait_for_release.enqueue({str(folder)!r})",
        )
        until(lambda: lines(folder / "started"), 30)
        # The database refuses the worker every write (a lock held, as a lost network would):
        # no heartbeat renews the lease.
        holder = sqlite3.connect(database, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        try:
            until(lambda: "stopping the run" in log.read_text(), 10)
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        (folder / "release").touch()
        # Put back by the worker itself (no other host took it), claimed again, run to its end.
        until(lambda: lines(folder / "done"), 30)
    finally:
        worker.terminate()
        worker.wait(timeout=10)
    assert lines(folder / "started") == [str(worker.pid)] * 2
    assert lines(folder / "done") == [str(worker.pid)]
    with sqlite3.connect(database) as db:
        status, worker_ids = db.execute(
            "SELECT status, worker_ids FROM django_tasks_database_dbtaskresult"
        ).fetchone()
    assert status == "SUCCESSFUL" and len(json.loads(worker_ids)) == 1  # the stop: no attempt


def until(condition, seconds):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)
