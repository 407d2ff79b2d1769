"""A worker's lease on the task it runs, so that a worker of any host can take over the task of a
host that died, whose processes nobody else can see.

A worker holds its task while the database says so: its claim (``started_at``) is younger than
the lease, or its heartbeat row, written within the lease, names the task. The heartbeat renews
the lease every third of it (:func:`beat_every`), so two beats lost to a slow or busy database
still keep it; every worker sweeps every half lease (:func:`sweep_every`), so a task waits at most
a lease and a half to be taken over. The hosts' clocks must agree to well within the lease (NTP):
a worker's clock writes ``last_seen``, another's compares it.
"""

from datetime import timedelta

from django.conf import settings
from django.db.models import CharField, Func, OuterRef, Q, Subquery
from django.utils import timezone

from blog.models import WorkerHeartbeat


def lease():
    return timedelta(seconds=settings.BIJI_WORKER_LEASE_SECONDS)


def beat_every():
    """Seconds between two heartbeats: a third of the lease."""
    return settings.BIJI_WORKER_LEASE_SECONDS / 3


def sweep_every():
    """Seconds between two sweeps of a running worker: half the lease."""
    return settings.BIJI_WORKER_LEASE_SECONDS / 2


class LastWorker(Func):
    """The last of a task's ``worker_ids``: the worker that claimed it last, in SQL."""

    output_field = CharField()

    def as_sqlite(self, compiler, connection, **extra):
        return self.as_sql(
            compiler, connection, template="json_extract(%(expressions)s, '$[#-1]')", **extra
        )

    def as_postgresql(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, template="(%(expressions)s ->> -1)", **extra)


def with_lease(running, now=None):
    """``running`` (DBTaskResult rows) with ``last_worker`` and ``beat_task_id``: the task the
    last worker's heartbeat names, if written within the lease (else None). One query."""
    expired = (now or timezone.now()) - lease()
    current_beat = WorkerHeartbeat.objects.filter(
        worker_id=OuterRef("last_worker"), last_seen__gte=expired
    )
    return running.annotate(
        last_worker=LastWorker("worker_ids"),
        # Compared with the task's id in Python (:func:`holds`): SQLite keeps a UUID as 32 hex
        # digits, PostgreSQL as a uuid, the heartbeat as text with hyphens.
        beat_task_id=Subquery(current_beat.order_by().values("task_id")[:1]),
    )


def holds(task, now=None):
    """Whether ``task`` (annotated by :func:`with_lease`) is still held under its worker's lease."""
    if task.started_at is not None and task.started_at >= (now or timezone.now()) - lease():
        return True  # claimed within the lease: its first beats may not be written yet
    return task.beat_task_id == str(task.pk)


def may_be_lost(host, now=None):
    """The filter of the running tasks a sweep on ``host`` looks at: this host's (judged by
    process), and any claimed longer ago than the lease (judged by the lease)."""
    expired = (now or timezone.now()) - lease()
    return Q(last_worker__startswith=f"{host}:") | Q(started_at__lt=expired)
