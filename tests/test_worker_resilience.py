"""The background worker never dies unseen: it waits out a database that is locked or away
(claiming, recording, closing connections) instead of exiting; a supervisor restarts it when
it is killed; a task past its time limit fails and the next one runs; and every running
worker's heartbeat says it is there, to ``manage.py tasks``, the admin's queue page and the
notice on every admin page when none is."""

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import InterfaceError, OperationalError, connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from blog.background import worker as worker_module
from blog.background.heartbeat import Heartbeat
from blog.background.outage import Outage
from blog.background.worker import Worker
from blog.background.workers import current_worker_id
from blog.management.commands.db_worker import Command as DbWorkerCommand
from blog.models import WorkerHeartbeat
from tests.background import lines, run_queued_tasks
from tests.factories import author_with
from tests.processes import ROOT, manage, migrate, site_env
from tests.worker_tasks import (
    imports_something,
    overstays,
    overstays_the_backends_limit,
    says_who_ran_it,
)

in_committed_transactions = pytest.mark.django_db(transaction=True)


def wait_for(condition, seconds=60, what="the condition"):
    deadline = time.monotonic() + seconds
    while not (value := condition()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
    return value


@pytest.fixture
def slept(monkeypatch):
    """The worker's pauses while the database is away, recorded instead of slept."""
    pauses = []
    monkeypatch.setattr(Outage, "sleep", staticmethod(pauses.append))
    return pauses


def failing(times, error, original=None):
    """A stand-in that raises ``error`` its first ``times`` calls, then calls ``original``."""
    calls = []

    def stand_in(*args, **kwargs):
        calls.append(args)
        if len(calls) <= times:
            raise error
        return original(*args, **kwargs) if original else None

    return stand_in


# --- the database away: waited out, never an exit ------------------------------------------


@in_committed_transactions
def test_database_errors_anywhere_in_the_loop_are_waited_out(tmp_path, slept, monkeypatch, caplog):
    result = says_who_ran_it.enqueue(str(tmp_path))
    real_begin = worker_module.exclusive_transaction

    @contextmanager
    def locked_twice(using):
        locked_twice.calls += 1
        if locked_twice.calls <= 2:  # at BEGIN, outside the library's try, as SQLite does
            raise OperationalError("database is locked")
        with real_begin(using):
            yield

    locked_twice.calls = 0
    monkeypatch.setattr(worker_module, "exclusive_transaction", locked_twice)
    monkeypatch.setattr(
        worker_module,
        "close_old_connections",
        failing(1, InterfaceError("connection already closed"), lambda: None),
    )
    monkeypatch.setattr(
        DBTaskResult,
        "set_successful",
        failing(2, OperationalError("server closed the connection"), DBTaskResult.set_successful),
    )
    with caplog.at_level("WARNING", logger="blog.background"):
        run_queued_tasks()

    result.refresh()
    assert result.status == TaskResultStatus.SUCCESSFUL and result.attempts == 1
    assert len(lines(tmp_path / "ran")) == 1
    # Closing, then BEGIN twice, waited out 1, 2, 4 s; then the record of its success, 1, 2 s.
    assert slept == [1, 2, 4, 1, 2]
    streaks = [r.getMessage() for r in caplog.records if "cannot use the database" in r.message]
    assert len(streaks) == 2  # logged once per streak, not per try
    assert "InterfaceError: connection already closed" in streaks[0]
    assert sum("uses the database again" in r.message for r in caplog.records) == 2


@in_committed_transactions
def test_the_sweep_at_start_waits_for_the_database_too(slept, monkeypatch):
    monkeypatch.setattr(
        worker_module, "sweep", failing(2, OperationalError("the database system is starting up"))
    )
    worker = Worker(
        queue_names=["*"],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id=current_worker_id(),
        excluded_queue_names=[],
    )
    assert worker.sweep() is None and slept == [1, 2]


@in_committed_transactions
def test_the_wait_grows_to_thirty_seconds_at_most(slept):
    outage = Outage("A worker")
    for _ in range(8):
        outage.wait(OperationalError("database is locked"))
    assert slept == [1, 2, 4, 8, 16, 30, 30, 30]


@in_committed_transactions
def test_a_claim_committed_unseen_is_put_back_and_runs_once(tmp_path, slept, monkeypatch):
    """The connection lost at COMMIT: the claim may have been written. The worker puts back
    what it holds before claiming again, so the task is not RUNNING under it for ever."""
    result = says_who_ran_it.enqueue(str(tmp_path))
    real_begin = worker_module.exclusive_transaction

    @contextmanager
    def lost_at_commit(using):
        with real_begin(using):
            yield
        lost_at_commit.calls += 1
        if lost_at_commit.calls == 1:
            raise OperationalError("server closed the connection unexpectedly")

    lost_at_commit.calls = 0
    monkeypatch.setattr(worker_module, "exclusive_transaction", lost_at_commit)
    run_queued_tasks()
    result.refresh()
    assert result.status == TaskResultStatus.SUCCESSFUL
    assert result.attempts == 1 and len(lines(tmp_path / "ran")) == 1
    assert slept == [1]


# --- time limits -----------------------------------------------------------------------------


@in_committed_transactions
def test_a_task_past_its_time_limit_fails_with_the_error_and_the_next_one_runs(tmp_path):
    over = overstays.enqueue(str(tmp_path))
    after = says_who_ran_it.enqueue(str(tmp_path))
    started = time.monotonic()
    run_queued_tasks()
    assert time.monotonic() - started < 10  # not the task's 30 s
    over.refresh()
    assert over.status == TaskResultStatus.FAILED
    assert over.attempts == 1  # not retried: it would take as long again
    error = over.errors[0]
    assert error.exception_class_path == "blog.background.time_limit.TimeLimitExceeded"
    assert "stopped after 0.5 s, the task's time limit" in error.traceback
    assert lines(tmp_path / "started") and not lines(tmp_path / "survived")
    after.refresh()
    assert after.status == TaskResultStatus.SUCCESSFUL


@in_committed_transactions
def test_the_backends_time_limit_holds_a_task_without_its_own(tmp_path, settings):
    options = {**settings.TASKS["default"]["OPTIONS"], "time_limit": 0.3}
    settings.TASKS = {"default": {**settings.TASKS["default"], "OPTIONS": options}}
    result = overstays_the_backends_limit.enqueue(str(tmp_path))
    run_queued_tasks()
    result.refresh()
    assert result.status == TaskResultStatus.FAILED and result.attempts == 1
    assert "stopped after 0.3 s" in result.errors[0].traceback


# --- queues ----------------------------------------------------------------------------------


def test_db_worker_takes_every_queue_unless_told_otherwise():
    parser = DbWorkerCommand().create_parser("manage.py", "db_worker")
    assert parser.parse_args([]).queue_name == "*"


@in_committed_transactions
def test_the_worker_for_everything_but_imports_leaves_imports_to_the_other(tmp_path):
    """What `make run` starts: one worker for `imports`, one for every other queue."""
    imported = imports_something.using(queue_name="imports").enqueue(str(tmp_path))
    other = says_who_ran_it.enqueue(str(tmp_path))

    def worker(**queues):
        return Worker(
            interval=0,
            batch=True,
            backend_name="default",
            startup_delay=False,
            max_tasks=None,
            worker_id=current_worker_id(),
            **queues,
        )

    worker(queue_names=["*"], excluded_queue_names=["imports"]).run()
    imported.refresh()
    other.refresh()
    assert other.status == TaskResultStatus.SUCCESSFUL
    assert imported.status == TaskResultStatus.READY
    worker(queue_names=["imports"], excluded_queue_names=[]).run()
    imported.refresh()
    assert imported.status == TaskResultStatus.SUCCESSFUL


# --- the heartbeat and what shows it ---------------------------------------------------------


@in_committed_transactions
def test_the_heartbeat_is_written_survives_a_refusal_and_goes_with_a_clean_stop(monkeypatch):
    beat = Heartbeat("host:1:1", "*")
    beat.task = ("a-task-id", "blog.images.card_tasks.make_card")
    beat.beat()
    row = WorkerHeartbeat.objects.get()
    assert row.worker_id == "host:1:1" and row.pid == os.getpid() and row.queues == "*"
    assert row.task_path == "blog.images.card_tasks.make_card"
    first_seen = row.last_seen

    refusing = failing(1, OperationalError("database is locked"))
    monkeypatch.setattr(WorkerHeartbeat.objects, "filter", refusing)
    beat.beat()  # refused: logged, not raised
    monkeypatch.undo()
    beat.task = ("", "")
    beat.beat()
    row.refresh_from_db()
    assert row.last_seen > first_seen and row.task_id == ""
    beat.stop()  # never started: only deletes the row
    assert not WorkerHeartbeat.objects.exists()


def seen(worker_id="vm:4242:99", ago=timedelta(seconds=3), task="", queues="*"):
    now = timezone.now()
    return WorkerHeartbeat.objects.create(
        worker_id=worker_id,
        host="vm",
        pid=4242,
        queues=queues,
        started_at=now - timedelta(hours=1),
        last_seen=now - ago,
        task_id=task and "0b8f",
        task_path=task,
    )


@in_committed_transactions
def test_the_tasks_command_starts_with_the_queue_and_its_workers(tmp_path, capsys):
    says_who_ran_it.enqueue(str(tmp_path))
    retried = says_who_ran_it.enqueue(str(tmp_path))
    DBTaskResult.objects.filter(pk=retried.id).update(
        run_after=timezone.now() + timedelta(minutes=5), traceback="OperationalError: locked"
    )
    call_command("tasks")
    out = capsys.readouterr().out
    assert "Waiting: 1 ready now, 1 to retry later, 0 scheduled. Running: 0." in out
    assert "Failed in the last 24 hours: 0." in out
    assert re.search(r"The oldest ready task has waited \d+ s\.", out)
    assert "no worker seen. Start one: `make run` does; else `manage.py db_worker`." in out

    seen(task="blog.porting.tasks.import_archive")
    call_command("tasks")
    out = capsys.readouterr().out
    assert "vm:4242:99  queues *  last seen 3 s ago  running blog.porting.tasks.import_archive" in (
        out
    )
    assert "no worker seen" not in out


NOTICE = "No background worker"


@pytest.mark.django_db
def test_every_admin_page_warns_when_no_worker_was_seen_lately(staff_client, settings):
    settings.BIJI_WORKER_MISSING_AFTER = 180
    index, notes = reverse("admin:index"), reverse("admin:blog_note_changelist")
    page = staff_client.get(index, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "No background worker is running: share cards, image variants, emails and imports" in (
        page
    )
    assert "<code>manage.py db_worker</code>" in page
    assert reverse("admin:blog_backgroundtask_changelist") in page

    seen(ago=timedelta(minutes=10))  # killed ten minutes ago
    page = staff_client.get(notes, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "No background worker has been seen for 10\xa0minutes" in page

    seen("vm:4243:99")  # a live one
    assert NOTICE not in staff_client.get(index, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert NOTICE not in staff_client.get(notes, HTTP_ACCEPT_LANGUAGE="en").content.decode()


@pytest.mark.django_db
def test_the_notice_is_for_staff_only_and_never_on_public_pages(staff_client):
    english = {"HTTP_ACCEPT_LANGUAGE": "en"}
    assert NOTICE in staff_client.get(reverse("admin:index"), **english).content.decode()
    login_page = Client().get(reverse("admin:login"), **english)
    assert login_page.status_code == 200 and NOTICE not in login_page.content.decode()
    assert NOTICE not in staff_client.get("/en/").content.decode()
    assert "后台进程" not in staff_client.get("/").content.decode()


@pytest.mark.django_db
def test_the_notice_speaks_the_admins_language_and_costs_one_query(staff_client):
    page = staff_client.get(reverse("admin:index"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "没有在运行的后台进程" in page.content.decode()
    with CaptureQueriesContext(connection) as queries:
        staff_client.get(reverse("admin:index"))
    assert sum("blog_workerheartbeat" in q["sql"] for q in queries.captured_queries) == 1


@pytest.mark.django_db
def test_the_queue_page_shows_the_summary_workers_and_tasks_to_those_allowed(
    staff_client, client, tmp_path
):
    failed = says_who_ran_it.enqueue(str(tmp_path))
    DBTaskResult.objects.filter(pk=failed.id).update(
        status=TaskResultStatus.FAILED,
        finished_at=timezone.now(),
        worker_ids=["vm:1:1", "vm:2:2"],
        traceback="Traceback …\nsmtplib.SMTPServerDisconnected: Connection unexpectedly closed",
    )
    seen(task="blog.mail.sending.send_deliveries", queues="*,-imports")
    url = reverse("admin:blog_backgroundtask_changelist")

    page = staff_client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    summary = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    assert "Failed in the last 24 hours 1" in summary
    assert "<h1>Background tasks</h1>" in page
    assert "vm:4242:99 every queue but imports" in summary
    assert "blog.mail.sending.send_deliveries" in summary
    assert "tests.worker_tasks.says_who_ran_it default Failed 2" in summary
    assert "smtplib.SMTPServerDisconnected: Connection unexpectedly closed" in summary
    assert url in staff_client.get(reverse("admin:index")).content.decode()  # on the index

    client.force_login(author_with("add_note", username="writer"))
    assert client.get(url).status_code == 403
    client.force_login(author_with("view_backgroundtask", username="operator"))
    assert client.get(url).status_code == 200
    client.logout()
    assert client.get(url).status_code == 302  # to the login page


# --- real processes: a lock past the busy timeout, kill -9 under the supervisor --------------

# `make soak-worker-lock` holds the lock 40 s against the real 20 s busy timeout.
LOCK_SECONDS = float(os.environ.get("BIJI_TEST_LOCK_SECONDS", "3"))
BUSY_TIMEOUT = os.environ.get("BIJI_TEST_SQLITE_TIMEOUT", "1")


def enqueue(env, *calls):
    """Queue ``calls`` (Python, on tests.worker_tasks) from a process of the site's own."""
    queue = "; ".join(f"t.{call}" for call in calls)
    manage(env, "shell", "-v", "0", "-c", f"from tests import worker_tasks as t; {queue}")


def log_of(path):
    return path.read_text() if path.exists() else ""


def met_the_lock(log):
    return "cannot use the database (OperationalError: database is locked)" in log_of(log)


@pytest.mark.slow
def test_the_worker_outlives_a_write_lock_held_past_its_busy_timeout(tmp_path):
    """Another process holds SQLite's write lock longer than the worker's busy timeout while
    the worker polls, idle: its BEGIN times out (the library's worker exits there)."""
    database = tmp_path / "db.sqlite3"
    env = site_env(
        f"sqlite:///{database}",
        tmp_path / "media",
        BIJI_SQLITE_TIMEOUT=BUSY_TIMEOUT,
        DJANGO_CONN_MAX_AGE="60",  # the production default: a kept connection
        DJANGO_LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
    )
    migrate(env)
    log = tmp_path / "worker.log"
    with open(log, "w") as out:
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "db_worker", "--no-startup-delay", "--interval", "0.1"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for(lambda: "Starting worker" in log_of(log), what="the worker to start")
        holder = sqlite3.connect(database, isolation_level=None, timeout=30)
        holder.execute("BEGIN IMMEDIATE")  # a slow admin save, say
        holder.execute("UPDATE django_migrations SET name = name WHERE id = 1")
        held_since = time.monotonic()
        # Held past the busy timeout, until the worker says it met the lock and waits.
        while time.monotonic() - held_since < LOCK_SECONDS or not met_the_lock(log):
            assert worker.poll() is None, f"the worker exited:\n{log_of(log)[-3000:]}"
            assert time.monotonic() - held_since < LOCK_SECONDS + 60, log_of(log)[-3000:]
            time.sleep(0.05)
        holder.execute("ROLLBACK")
        holder.close()

        folder = tmp_path / "task"
        folder.mkdir()
        enqueue(env, f"says_who_ran_it.enqueue({str(folder)!r})")
        wait_for(lambda: lines(folder / "ran") or worker.poll() is not None, what="the next task")
        assert worker.poll() is None, f"the worker exited:\n{log_of(log)[-3000:]}"
        assert lines(folder / "ran") == [str(worker.pid)]
        assert "uses the database again" in log_of(log)
    finally:
        worker.terminate()
        worker.wait(timeout=30)


def heartbeats(database):
    """(worker id, pid) of each heartbeat row, read as any process may."""
    with sqlite3.connect(database, timeout=30) as db:
        return db.execute("SELECT worker_id, pid FROM blog_workerheartbeat").fetchall()


def running(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    return status != "Z"


@pytest.mark.slow
def test_a_killed_worker_is_restarted_by_the_supervisor_and_runs_the_next_task(tmp_path):
    database = tmp_path / "db.sqlite3"
    env = site_env(f"sqlite:///{database}", tmp_path / "media", PYTHONUNBUFFERED="1")
    migrate(env)
    log = tmp_path / "supervisor.log"
    command = [sys.executable, "manage.py", "db_worker", "--no-startup-delay", "--interval", "0.1"]
    with open(log, "w") as out:
        supervisor = subprocess.Popen(
            [sys.executable, "scripts/supervise.py", "--name", "worker", "--", *command],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        [(first_id, first)] = wait_for(lambda: heartbeats(database), what="a heartbeat")
        listed = manage(env, "tasks")
        assert f"{first_id}  queues *  last seen" in listed and "idle" in listed

        os.kill(first, signal.SIGKILL)
        wait_for(lambda: "exited (killed by SIGKILL)" in log_of(log), what="the supervisor")
        assert "restarting in 1 s" in log_of(log)
        [(_, second)] = wait_for(
            lambda: [row for row in heartbeats(database) if row[1] != first],
            what="the new worker's heartbeat",
        )
        folder = tmp_path / "task"
        folder.mkdir()
        enqueue(
            env,
            f"says_who_ran_it.enqueue({str(folder)!r})",
            f"imports_something.using(queue_name='imports').enqueue({str(folder)!r})",
        )
        wait_for(lambda: lines(folder / "ran") and lines(folder / "imported"), what="the tasks")
        assert lines(folder / "ran") == lines(folder / "imported") == [str(second)]
        assert [pid for _, pid in heartbeats(database)] == [second]  # the dead one forgotten
    finally:
        supervisor.send_signal(signal.SIGINT)  # Ctrl-C
        assert supervisor.wait(timeout=30) == 0
    assert not running(second)  # stopped with it
    assert heartbeats(database) == []  # a clean stop takes its heartbeat with it


@pytest.mark.slow
def test_the_supervisor_waits_longer_each_time_the_command_dies_at_once(tmp_path):
    supervisor = subprocess.Popen(
        [
            sys.executable,
            "scripts/supervise.py",
            "--first-delay",
            "0.1",
            "--longest-delay",
            "0.4",
            "--",
            sys.executable,
            "-c",
            "raise SystemExit(3)",
        ],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    restarts = []
    while len(restarts) < 4:
        line = supervisor.stderr.readline()
        assert line, "the supervisor stopped"
        restarts += re.findall(
            r"exited \(status 3\) after [\d.]+ s; restarting in ([\d.]+) s", line
        )
    supervisor.send_signal(signal.SIGTERM)
    assert supervisor.wait(timeout=30) == 0
    assert restarts == ["0.1", "0.2", "0.4", "0.4"]
