"""A host killed mid-task: its task completes once on the other host (issue 36's goal).

    python -m benchmarks takeover                      # the production lease, 30 s; 3 runs
    python -m benchmarks takeover --lease 3 --runs 2   # the same in a few seconds a run

On a scratch SQLite site of its own (a temporary folder, migrated once; each run gets a fresh
copy), never the database of ``DATABASE_URL``, each run:

1. starts two ``manage.py db_worker`` processes as two hosts (``BIJI_HOST_ID`` host-a and
   host-b, ``BIJI_WORKER_LEASE_SECONDS`` = ``--lease``) and waits for both heartbeats;
2. enqueues :func:`hold_until_released`, which writes its process id and the time into
   ``started``, waits for a file ``release``, then writes them into ``done``;
3. ``--kill-after`` seconds after a worker starts it (by default one lease: the task has then
   run past its claim's lease, so only the heartbeat keeps it, and the other host must not
   have started it meanwhile), plus a random part of a third of a lease, kills that worker
   with SIGKILL, and writes ``release``, so that the next run of the task goes to its end at
   once;
4. measures, from the kill: when the other host's worker started the task (the time it
   wrote), when the task was recorded SUCCESSFUL (``finished_at``); and how many runs
   completed (must be 1), the final status and ``worker_ids``.

biji's rules (blog/background/lease.py): a heartbeat every third of the lease, a sweep every
half lease on every worker, a task taken over once its claim and its worker's heartbeat are
both older than the lease. The last beat is at most a third of a lease before the kill, so the
take-over comes 2/3 to 1.5 leases after it, plus the worker's poll ``--interval``: the table
prints that bound beside each figure. Where in that range a run lands depends on when the dead
host's last beat was against the other host's sweeps, both counted from their workers' start:
the second host starts a random 0 to 1/2 lease after the first (``--seed``), as hosts started
at unrelated moments, so that the runs sample the range rather than repeat one point of it.

Prints a markdown table with the date, machine and load average. Not a test:
tests/test_hosts_takeover.py is the gate's.

The helpers for scratch sites (:func:`site_environment`, :func:`manage`,
:func:`migrated_copy`) are :mod:`benchmarks.object_store`'s too.
"""

import json
import os
import platform
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django_tasks import task

from benchmarks.pages import _cpu_name
from benchmarks.traffic import _load

HOSTS = ("host-a", "host-b")
HOLD_AT_MOST = 600  # seconds a run of the task waits for ``release``
TASKS_TABLE = "django_tasks_database_dbtaskresult"
# Variables of the caller's environment a scratch site must not inherit.
NOT_INHERITED = (
    "DATABASE_URL",
    "REDIS_URL",
    "DJANGO_SETTINGS_MODULE",
    "DJANGO_DEBUG",
    "MEDIA_ROOT",
    "BIJI_PRIVATE_ROOT",
    "BIJI_HOST_ID",
    "BIJI_WORKER_LEASE_SECONDS",
)


# --- the task ------------------------------------------------------------------------------


def _note(path):
    with open(path, "a") as out:
        out.write(f"{os.getpid()} {time.time():.6f}\n")


def _notes(path):
    """[(pid, time)] written into ``path`` by :func:`_note`."""
    path = Path(path)
    if not path.exists():
        return []
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    return [(int(pid), float(when)) for pid, when in rows]


@task()
def hold_until_released(folder):
    """Writes that it started, waits (at most :data:`HOLD_AT_MOST` s) for ``folder/release``,
    writes that it ended."""
    folder = Path(folder)
    _note(folder / "started")
    deadline = time.monotonic() + HOLD_AT_MOST
    while not (folder / "release").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    _note(folder / "done")
    return "released"


# --- scratch sites -------------------------------------------------------------------------


def site_environment(database, media, **more):
    """The environment of a scratch site on the SQLite file ``database`` with its media folder
    ``media`` (unless ``more`` puts them on an object store) and its private folder beside it;
    ``more``: more variables."""
    env = {key: value for key, value in os.environ.items() if key not in NOT_INHERITED}
    env.update(
        DATABASE_URL=f"sqlite:///{database}",
        MEDIA_ROOT=str(media),
        BIJI_PRIVATE_ROOT=str(Path(media).parent / "private"),
        DJANGO_SECRET_KEY=os.environ.get("DJANGO_SECRET_KEY") or "bench-only",
        DJANGO_ALLOWED_HOSTS="testserver,127.0.0.1,localhost",
    )
    env.update(more)
    return env


def manage(env, *args, timeout=300):
    """``manage.py args`` in ``env``, from the repository's root; its output, or CommandError."""
    try:
        done = subprocess.run(  # noqa: S603 (this interpreter, fixed arguments)
            [sys.executable, "manage.py", *args],
            cwd=settings.BASE_DIR,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as error:
        raise CommandError(f"manage.py {args[0]} took more than {timeout} s") from error
    if done.returncode != 0:
        raise CommandError(f"manage.py {' '.join(args)[:80]} failed:\n{done.stderr[-3000:]}")
    return done.stdout


def migrated_copy(template, target):
    """A copy of the migrated SQLite file ``template`` at ``target`` (SQLite's backup API)."""
    reading, writing = sqlite3.connect(template), sqlite3.connect(target)
    try:
        reading.backup(writing)
    finally:
        writing.close()
        reading.close()
    Path(target).chmod(0o600)


def migrate_template(folder):
    """A migrated, empty site database in ``folder``: ``manage.py migrate`` once."""
    template = Path(folder) / "migrated.sqlite3"
    manage(site_environment(template, Path(folder) / "template-media"), "migrate", "--noinput")
    return template


def wait_for(condition, seconds, what):
    """``condition()``'s first true value, asked every 20 ms; CommandError after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not (found := condition()):
        if time.monotonic() > deadline:
            raise CommandError(f"timed out after {seconds:g} s waiting for {what}")
        time.sleep(0.02)
    return found


def query(database, sql, *params):
    with sqlite3.connect(database, timeout=10) as db:
        return db.execute(sql, params).fetchall()


def _utc(text):
    moment = datetime.fromisoformat(text)
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


# --- the benchmark -------------------------------------------------------------------------


class Command(BaseCommand):
    help = "A host killed mid-task: how long until the other host runs it, and that it ends once."

    def add_arguments(self, parser):
        parser.add_argument(
            "--lease",
            type=float,
            default=30.0,
            help="BIJI_WORKER_LEASE_SECONDS of both hosts (default: the production default, 30)",
        )
        parser.add_argument("--runs", type=int, default=3)
        parser.add_argument(
            "--kill-after",
            type=float,
            default=None,
            help="seconds the task runs before its worker is killed (default: one lease)",
        )
        parser.add_argument(
            "--interval",
            type=float,
            default=1.0,
            help="db_worker --interval, its poll when idle (default: db_worker's, 1 s)",
        )
        parser.add_argument("--seed", type=int, default=36, help="of the random offsets")

    def handle(self, *args, **options):
        lease, interval = options["lease"], options["interval"]
        kill_after = lease if options["kill_after"] is None else options["kill_after"]
        load_before = _load()
        folder = Path(tempfile.mkdtemp(prefix="biji-takeover-"))
        rows, rng = [], random.Random(options["seed"])
        try:
            template = migrate_template(folder)
            for number in range(1, options["runs"] + 1):
                self.stdout.write(f"run {number} of {options['runs']}…")
                run_folder = folder / f"run-{number}"
                run_folder.mkdir()
                run = Run(run_folder, template, lease, interval, kill_after, rng)
                rows.append(run.measure())
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        self._report(rows, lease, interval, kill_after, load_before)

    def _report(self, rows, lease, interval, kill_after, load_before):
        out = self.stdout.write
        bound = 1.5 * lease + interval
        out(
            f"\n{datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {_cpu_name()}, {os.cpu_count()} CPUs, "
            f"{platform.system()} {platform.release()} · Python {platform.python_version()} · "
            f"a scratch SQLite site (one task) · two db_worker processes as host-a and host-b, "
            f"--interval {interval:g} · lease {lease:g} s (heartbeat every {lease / 3:.3g} s, "
            f"sweep every {lease / 2:.3g} s) · killed {kill_after:g} s + a random 0 to "
            f"{lease / 3:.3g} s into the task · {len(rows)} runs · load "
            f"average {load_before} before, {_load()} after\n"
        )
        out(
            "| run | hosts started apart (s) | killed (SIGKILL) | s into the task | taken over "
            "by | kill → started on the other host (s) | kill → recorded SUCCESSFUL (s) | runs "
            "started | runs completed | final status | worker_ids (hosts) | taken over by the "
            "lease (log) |"
        )
        out("|---:|---:|---|---:|---|---:|---:|---:|---:|---|---|---|")
        for number, row in enumerate(rows, 1):
            out(
                f"| {number} | {row['apart']:.1f} | {row['killed']} | {row['into']:.1f} | "
                f"{row['other']} | {row['takeover']:.2f} | "
                f"{row['completed']:.2f} | {row['started']} | {row['done']} | {row['status']} | "
                f"{' → '.join(row['hosts'])} | {'yes' if row['by_lease'] else 'no'} |"
            )
        slowest = max(rows, key=lambda row: row["takeover"])
        slowest_done = max(rows, key=lambda row: row["completed"])
        once = all(row["done"] == 1 and row["status"] == "SUCCESSFUL" for row in rows)
        out(
            f"\nSlowest take-over: {slowest['takeover']:.2f} s (bound: 2/3 × lease to 1.5 × lease "
            f"+ interval = {2 * lease / 3:.2f} .. {bound:.2f} s; "
            f"{'within' if slowest['takeover'] <= bound else 'OVER'} the bound). Slowest "
            f"completion: {slowest_done['completed']:.2f} s after the kill. Completed exactly "
            f"once, SUCCESSFUL, in every run: {'yes' if once else 'NO'}."
        )


class Run:
    """One run: two hosts, one task, one kill."""

    def __init__(self, folder, template, lease, interval, kill_after, rng):
        self.folder, self.lease, self.interval = folder, lease, interval
        self.kill_after = kill_after + rng.uniform(0, lease / 3)
        self.apart = rng.uniform(0, lease / 2)
        self.hosts = rng.sample(HOSTS, 2)  # which starts first
        self.database = folder / "db.sqlite3"
        migrated_copy(template, self.database)
        self.env = site_environment(
            self.database, folder / "media", BIJI_WORKER_LEASE_SECONDS=f"{lease:g}"
        )
        self.task_folder = folder / "task"
        self.task_folder.mkdir()
        self.workers = {}

    def start_worker(self, host):
        log = (self.folder / f"{host}.log").open("w")
        try:
            return subprocess.Popen(  # noqa: S603 (this interpreter, fixed arguments)
                [sys.executable, "manage.py", "db_worker", "--verbosity", "1", "--no-reload"]
                + ["--no-startup-delay", "--interval", f"{self.interval:g}"],
                cwd=settings.BASE_DIR,
                env={**self.env, "BIJI_HOST_ID": host},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a process group of its own, as a host's processes
            )
        finally:
            log.close()  # the child has its own descriptor

    def measure(self):
        try:
            for host in self.hosts:
                if self.workers:
                    time.sleep(self.apart)
                self.workers[host] = self.start_worker(host)
            wait_for(self.both_beating, 60, "both workers' heartbeats")
            return self._measure()
        finally:
            self.stop_workers()

    def both_beating(self):
        for host, worker in self.workers.items():
            if worker.poll() is not None:
                log = (self.folder / f"{host}.log").read_text()[-2000:]
                raise CommandError(f"the worker of {host} exited:\n{log}")
        hosts = query(self.database, "SELECT DISTINCT host FROM blog_workerheartbeat")
        return {row[0] for row in hosts} >= set(HOSTS)

    def _measure(self):
        task_id = manage(
            self.env,
            "shell",
            "-v",
            "0",
            "-c",
            "from benchmarks.takeover import hold_until_released; "
            f"print(hold_until_released.enqueue({str(self.task_folder)!r}).id)",
            timeout=120,
        ).strip()
        started = self.task_folder / "started"
        first_pid, first_at = wait_for(lambda: _notes(started), 60, "a worker to start it")[0]
        killed = next(host for host, worker in self.workers.items() if worker.pid == first_pid)
        other = next(host for host in HOSTS if host != killed)
        # Mid-task: past its claim's lease, the heartbeat alone keeps it; nobody else runs it.
        deadline = time.monotonic() + self.kill_after
        while time.monotonic() < deadline:
            if len(_notes(started)) > 1:
                raise CommandError(f"{other} started the task while {killed} still ran it")
            time.sleep(0.05)
        os.kill(first_pid, signal.SIGKILL)
        killed_at = time.time()
        self.workers[killed].wait(timeout=10)
        (self.task_folder / "release").touch()

        bound = 1.5 * self.lease + self.interval
        second = wait_for(
            lambda: _notes(started)[1:], bound + 30, f"{other} to take the task over"
        )[0]
        status, worker_ids, finished_at = wait_for(
            lambda: self.task_row(task_id, final=True), 60, "the task's result"
        )
        time.sleep(max(1.0, 2 * self.interval))  # a second completion would show by now
        done = _notes(self.task_folder / "done")
        hosts = [worker.split(":")[0] for worker in json.loads(worker_ids)]
        log = (self.folder / f"{other}.log").read_text()
        return {
            "apart": self.apart,
            "into": killed_at - first_at,
            "killed": killed,
            "other": other + ("" if second[0] == self.workers[other].pid else " (?)"),
            "takeover": second[1] - killed_at,
            "completed": _utc(finished_at) - killed_at if finished_at else float("nan"),
            "started": len(_notes(started)),
            "done": len(done),
            "status": status,
            "hosts": hosts,
            "by_lease": f"let its lease of {self.lease:g} s run out" in log,
        }

    def task_row(self, task_id, final=False):
        rows = query(
            self.database,
            f"SELECT status, worker_ids, finished_at FROM {TASKS_TABLE} WHERE id = ?",  # noqa: S608
            task_id.replace("-", ""),
        )
        if not rows:
            return None
        if final and rows[0][0] not in ("SUCCESSFUL", "FAILED"):
            return None
        return rows[0]

    def stop_workers(self):
        for worker in self.workers.values():
            if worker.poll() is None:
                os.killpg(worker.pid, signal.SIGTERM)
        for worker in self.workers.values():
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, signal.SIGKILL)
                worker.wait(timeout=10)
