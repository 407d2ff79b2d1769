"""Tasks a lost worker left RUNNING go back to the queue, or fail once their attempts are spent.
A worker is lost when it is a process of this host that no longer runs (the fast path), or when it
let its lease run out (:mod:`.lease`), on any host. django-tasks-db has neither; every ``db_worker``
sweeps as it starts and every half lease while it runs, and never touches a task held under a
current lease."""

import logging

from django.db import transaction
from django.utils import timezone
from django_tasks.base import TaskResultStatus
from django_tasks.signals import task_finished
from django_tasks_db.models import DBTaskResult

from blog.background.lease import holds, lease, may_be_lost, with_lease
from blog.background.workers import host, is_dead, is_here

logger = logging.getLogger(__name__)


class WorkerLost(Exception):  # noqa: N818 (what happened, as the task's recorded error)
    """The worker running the task stopped without finishing it (killed, crashed, or cut off
    from the database past its lease)."""


def sweep(backend_name=None):
    """Re-queue or fail the tasks of lost workers; returns [(task id, new status)]. One query
    when no task is lost."""
    swept = []
    now = timezone.now()
    running = DBTaskResult.objects.running()
    if backend_name:
        running = running.filter(backend_name=backend_name)
    candidates = with_lease(running, now).filter(may_be_lost(host(), now))
    for candidate in candidates.only("id", "worker_ids", "started_at"):
        if how_lost(candidate, now):
            status = _sweep_one(candidate.pk, candidate.worker_ids)
            if status:
                swept.append((str(candidate.pk), status))
    return swept


def how_lost(task, now=None):
    """Why ``task`` (annotated by :func:`.lease.with_lease`) has lost its worker, in words; None
    while the worker holds it."""
    if not task.worker_ids:
        return None
    worker = task.worker_ids[-1]
    if is_dead(worker):
        return "stopped"
    # A process of this host that runs is judged by its process, never by its lease: one cut off
    # from the database stops its run itself (.lease_guard) and puts the task back.
    if is_here(worker):
        return None
    if not holds(task, now):
        return f"let its lease of {lease().total_seconds():g} s run out"
    return None


def _sweep_one(pk, worker_ids):
    with transaction.atomic():
        locked = DBTaskResult.objects.select_for_update().filter(pk=pk)
        result = with_lease(locked).first()
        # Another sweep may have been first, the task was claimed again since, or its worker
        # renewed its lease meanwhile.
        if result is None or result.status != TaskResultStatus.RUNNING:
            return None
        how = how_lost(result)
        if result.worker_ids != worker_ids or how is None:
            return None
        attempts = len(result.worker_ids)
        lost = WorkerLost(f"worker {worker_ids[-1]} {how} during attempt {attempts}")
        try:
            task = result.task
            give_up = attempts >= task.attempts_allowed()
        except (ImportError, AttributeError):
            task, give_up = None, True  # gone from the code, or not a biji task
        if give_up:
            result.set_failed(lost)
        else:
            result.status = TaskResultStatus.READY
            result.traceback = f"{lost}: put back in the queue by the sweep"
            result.save(update_fields=["status", "traceback"])
    logger.warning("task %s: %s; now %s", pk, lost, result.status)
    if give_up and task is not None:
        task_finished.send(sender=type(task.get_backend()), task_result=result.task_result)
    return result.status


def put_back_claims_of(worker_id, backend_name=None):
    """Put back the tasks RUNNING under ``worker_id``, a live worker between two tasks; the claim
    counts as no attempt. Returns their ids."""
    put_back = []
    running = DBTaskResult.objects.running()
    if backend_name:
        running = running.filter(backend_name=backend_name)
    for candidate in running.only("id", "worker_ids"):
        if not candidate.worker_ids or candidate.worker_ids[-1] != worker_id:
            continue
        with transaction.atomic():
            result = DBTaskResult.objects.select_for_update().filter(pk=candidate.pk).first()
            if result is None or result.status != TaskResultStatus.RUNNING:
                continue
            if result.worker_ids != candidate.worker_ids:
                continue
            result.status, result.worker_ids = TaskResultStatus.READY, result.worker_ids[:-1]
            result.save(update_fields=["status", "worker_ids"])
        logger.warning("task %s: claimed unseen by this worker, back in the queue", result.pk)
        put_back.append(str(result.pk))
    return put_back
