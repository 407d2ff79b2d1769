"""Several hosts on one database: a host killed mid-task leaves its task to a worker of another
host, which cannot see the dead host's processes and so goes by the lease alone; the task then
completes once. Two hosts are two BIJI_HOST_ID values on this machine, as two containers would
be; the lease is 2 s so that the case takes a few seconds.

`make test-interop` (BIJI_TEST_INTEROP=1) also runs two whole hosts, gunicorn and a worker each,
on one database (a throwaway PostgreSQL one in a PostgreSQL run, else a SQLite file), one Redis
and one S3 bucket (moto's server): an edit made on one is served at once by both, a cover stored
by one is served from the bucket by the other, and when one host dies its task completes once on
the other."""

import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request

import pytest
from django.db import connection

from tests import s3_server
from tests.background import lines
from tests.processes import (
    ROOT,
    gunicorn,
    manage,
    migrate,
    queue_wait_for_release,
    site_env,
)
from tests.redis_server import free_port, redis_server  # noqa: F401 (a fixture)

LEASE = 2


def wait_for(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while not (found := condition()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)
    return found


def start_worker(env, host, log):
    return subprocess.Popen(
        [sys.executable, "manage.py", "db_worker", "--no-startup-delay", "--interval", "0.1"],
        cwd=ROOT,
        env={**env, "BIJI_HOST_ID": host},
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
        start_new_session=True,  # its own process group, as a host's processes
    )


def task_row(database, task_id):
    with sqlite3.connect(database) as db:
        return db.execute(
            "SELECT status, worker_ids, return_value FROM django_tasks_database_dbtaskresult "
            "WHERE id = ?",
            (task_id.replace("-", ""),),
        ).fetchone()


@pytest.mark.slow
def test_a_task_of_a_host_killed_mid_task_is_taken_over_by_another_and_completes_once(
    tmp_path,
):
    database = tmp_path / "db.sqlite3"
    env = site_env(
        f"sqlite:///{database}", tmp_path / "media", BIJI_WORKER_LEASE_SECONDS=str(LEASE)
    )
    migrate(env)
    folder = tmp_path / "task"
    folder.mkdir()
    workers = {
        host: start_worker(env, host, tmp_path / f"{host}.log") for host in ("host-a", "host-b")
    }
    try:
        task_id = queue_wait_for_release(env, folder)  # while the workers start
        # Whichever host claims the task first plays host A; it dies without a word.
        first_pid = int(wait_for(lambda: lines(folder / "started"), 30, "a worker to start it")[0])
        killed = next(host for host, worker in workers.items() if worker.pid == first_pid)
        other = next(host for host in workers if host != killed)
        os.kill(first_pid, signal.SIGKILL)
        workers[killed].wait(timeout=10)
        killed_at = time.monotonic()
        (folder / "release").touch()  # the next run goes to its end at once

        wait_for(lambda: lines(folder / "done"), 10, f"{other} to take the task over")
        taken_over_after = time.monotonic() - killed_at
        status, worker_ids, value = wait_for(
            lambda: (row := task_row(database, task_id))[0] == "SUCCESSFUL" and row,
            10,
            "the result",
        )
    finally:
        for worker in workers.values():
            if worker.poll() is None:
                worker.terminate()
                worker.wait(timeout=10)

    # Run twice (the killed run, then the one taken over), done once, recorded once.
    assert lines(folder / "started") == [str(first_pid), str(workers[other].pid)]
    assert lines(folder / "done") == [str(workers[other].pid)]
    assert [worker.split(":")[0] for worker in json.loads(worker_ids)] == [killed, other]
    assert json.loads(value) == "released"
    # By the lease (a lease and a half at most: a sweep every half lease), not by a process id.
    assert taken_over_after < 1.5 * LEASE + 2
    assert f"let its lease of {LEASE} s run out during attempt 1" in (
        (tmp_path / f"{other}.log").read_text()
    )


# --- two whole hosts on one database and Redis (make test-interop) --------------------------


def serve(env):
    port = free_port()
    # Its own process group: the host dies with all its processes.
    process = gunicorn(env, port, workers=2, start_new_session=True)
    wait_for(lambda: probe(port)[0] == 200, 30, "gunicorn to start")
    return process, port


def probe(port, path="/healthz"):
    """(status, body) of ``path``, asked by address as a load balancer does."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Host": "10.0.0.7"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 (ours: http)
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
    except OSError:
        return None, ""


def page(port, path="/"):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
        return response.read().decode()


def task_status(env, task_id):
    return manage(
        env,
        "shell",
        "-v",
        "0",
        "-c",
        "from django_tasks_db.models import DBTaskResult; "
        f"r = DBTaskResult.objects.get(pk='{task_id}'); "
        "print(r.status, ' '.join(w.split(':')[0] for w in r.worker_ids))",
    ).split()


@pytest.fixture
def shared_database(request, tmp_path):
    """The URL of an empty database for the hosts: PostgreSQL in a PostgreSQL run."""
    if connection.vendor == "postgresql":
        return request.getfixturevalue("throwaway_postgresql")("biji_hosts")
    return f"sqlite:///{tmp_path / 'db.sqlite3'}"


@pytest.mark.skipif(not os.environ.get("BIJI_TEST_INTEROP"), reason="make test-interop runs it")
@pytest.mark.slow
def test_two_hosts_on_one_database_and_redis_serve_one_site_and_outlive_each_other(
    tmp_path,
    shared_database,
    redis_server,  # noqa: F811 (the fixture)
):
    with contextlib.ExitStack() as stack:
        two_hosts(tmp_path, shared_database, redis_server, stack)


def two_hosts(tmp_path, shared_database, redis_server, stack):  # noqa: F811 (the fixture)
    bucket = stack.enter_context(s3_server.bucket())  # the hosts' one media store
    shared = site_env(
        shared_database,
        tmp_path / "media",  # unused: every file goes to the bucket
        REDIS_URL=redis_server.url,
        BIJI_WORKER_LEASE_SECONDS=str(LEASE),
        DJANGO_CONN_MAX_AGE="60",
        **s3_server.site_environment(bucket),
    )
    migrate(shared)
    manage(
        shared,
        "shell",
        "-c",
        "from blog.models import SiteSettings; SiteSettings.objects.create(title='Old title')",
    )
    hosts = {name: {**shared, "BIJI_HOST_ID": name} for name in ("host-a", "host-b")}
    processes = {}
    try:
        for name, env in hosts.items():
            processes[name] = [serve(env), start_worker(env, name, tmp_path / f"{name}.log")]
        ports = {name: server[1] for name, (server, _worker) in processes.items()}
        for port in ports.values():
            status, body = probe(port)
            assert status == 200 and json.loads(body)["cache"] == "ok"
            for _ in range(4):  # every gunicorn process keeps its copies
                assert "Old title" in page(port) and "Old title" in page(port, "/en/")

        manage(
            hosts["host-a"],
            "shell",
            "-c",
            "from blog.models import SiteSettings; "
            "s = SiteSettings.objects.get(); s.title = 'New title'; s.save()",
        )
        pages = [page(port, path) for port in ports.values() for path in ("/", "/en/") * 4]
        assert all("New title" in text and "Old title" not in text for text in pages)

        # A cover stored by host A, its variants made by either host's worker, served by B.
        manage(
            hosts["host-a"],
            "shell",
            "-c",
            "from django.core.files.base import ContentFile\n"
            "from tests.factories import make_note\nfrom tests.test_object_storage import jpeg\n"
            "make_note('Shared cover', slug='cover', "
            "cover=ContentFile(jpeg(800, 600), name='cover.jpg'))",
        )
        store = f"{s3_server.endpoint()}/{bucket}/"
        variant = wait_for(
            lambda: re.search(
                f'srcset="({re.escape(store)}variants/[^ "]+)',
                page(ports["host-b"], "/notes/cover/"),
            ),
            30,
            "the cover's variants on host B's page",
        )[1]
        assert variant.removeprefix(store) in s3_server.keys(bucket, "variants/")

        folder = tmp_path / "task"
        folder.mkdir()
        task_id = queue_wait_for_release(hosts["host-a"], folder)
        first_pid = int(wait_for(lambda: lines(folder / "started"), 30, "a worker to start it")[0])
        dead = next(name for name, (_s, worker) in processes.items() if worker.pid == first_pid)
        alive = next(name for name in hosts if name != dead)
        for process in (processes[dead][0][0], processes[dead][1]):  # the whole host
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        (folder / "release").touch()
        assert probe(ports[dead]) == (None, "") and probe(ports[alive])[0] == 200

        wait_for(lambda: lines(folder / "done"), 15, f"{alive} to take the task over")
        assert lines(folder / "done") == [str(processes[alive][1].pid)]
        assert wait_for(
            lambda: (state := task_status(shared, task_id))[0] == "SUCCESSFUL" and state,
            10,
            "the result",
        ) == ["SUCCESSFUL", dead, alive]
    finally:
        for (server, _port), worker in processes.values():
            for process in (server, worker):
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGTERM)
                    process.wait(timeout=10)
