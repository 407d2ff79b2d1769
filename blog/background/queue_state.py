"""How the background queue stands: what waits, runs and failed, and which workers are seen, on
which host, and whether each holds a current lease (``manage.py tasks``, the admin's queue page,
its no-worker notice)."""

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count, Max, Min, Q
from django.utils import timezone
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult, get_date_max

from blog.background.lease import lease
from blog.models import WorkerHeartbeat

FAILED_WITHIN = timedelta(hours=24)  # the failures the summary counts
MAX_WORKERS_SHOWN = 20


def last_worker_seen():
    """When a worker last wrote its heartbeat (None: no worker's row)."""
    return WorkerHeartbeat.objects.aggregate(last=Max("last_seen"))["last"]


@dataclass
class QueueState:
    now: datetime
    ready: int  # due now, waiting for a worker
    retrying: int  # failed a run, waiting for the next after the backoff
    scheduled: int  # due later (a note's email at its publication time)
    running: int
    failed: int  # in the last FAILED_WITHIN
    oldest_ready_since: datetime | None  # when the longest-waiting due task became due
    # WorkerHeartbeat rows, the latest first, each with ``lease_current``: written within the
    # lease, so the task it runs is its own (:mod:`.lease`)
    workers: list = field(default_factory=list)

    failed_within = FAILED_WITHIN

    @property
    def oldest_wait(self):
        return self.now - self.oldest_ready_since if self.oldest_ready_since else None

    @property
    def worker_seen(self):
        missing_after = timedelta(seconds=settings.BIJI_WORKER_MISSING_AFTER)
        return any(self.now - worker.last_seen <= missing_after for worker in self.workers)


def queue_state():
    """The counts and the oldest wait in one query, the workers in another."""
    now = timezone.now()
    never = get_date_max()  # the run_after of a task due as soon as it is queued
    ready = Q(status=TaskResultStatus.READY)
    due_at_once = ready & Q(run_after=never)
    due_since = ready & Q(run_after__lte=now)
    later = ready & Q(run_after__gt=now) & ~Q(run_after=never)
    state = DBTaskResult.objects.aggregate(
        ready=Count("pk", filter=due_at_once | due_since),
        retrying=Count("pk", filter=later & ~Q(traceback="")),  # a retry keeps its error
        scheduled=Count("pk", filter=later & Q(traceback="")),
        running=Count("pk", filter=Q(status=TaskResultStatus.RUNNING)),
        failed=Count(
            "pk",
            filter=Q(status=TaskResultStatus.FAILED, finished_at__gte=now - FAILED_WITHIN),
        ),
        queued_since=Min("enqueued_at", filter=due_at_once),
        due_since=Min("run_after", filter=due_since),
    )
    waits = [state.pop("queued_since"), state.pop("due_since")]
    workers = list(WorkerHeartbeat.objects.order_by("-last_seen")[:MAX_WORKERS_SHOWN])
    for worker in workers:
        worker.lease_current = now - worker.last_seen <= lease()
    return QueueState(
        now=now,
        oldest_ready_since=min((when for when in waits if when is not None), default=None),
        workers=workers,
        **state,
    )
