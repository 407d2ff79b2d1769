"""Tasks a killed worker left RUNNING go back to the queue, or fail once their attempts are spent.
django-tasks-db has no lease; every ``db_worker`` sweeps as it starts, and never touches a task
whose worker is alive."""

import logging

from django.db import transaction
from django_tasks.base import TaskResultStatus
from django_tasks.signals import task_finished
from django_tasks_db.models import DBTaskResult

from blog.background.workers import is_dead

logger = logging.getLogger(__name__)


class WorkerLost(Exception):  # noqa: N818 (what happened, as the task's recorded error)
    """The worker running the task stopped without finishing it (killed or crashed)."""


def sweep(backend_name=None):
    """Re-queue or fail the tasks of dead workers; returns [(task id, new status)]."""
    swept = []
    running = DBTaskResult.objects.running()
    if backend_name:
        running = running.filter(backend_name=backend_name)
    for candidate in running.only("id", "worker_ids"):
        if candidate.worker_ids and is_dead(candidate.worker_ids[-1]):
            status = _sweep_one(candidate.pk, candidate.worker_ids)
            if status:
                swept.append((str(candidate.pk), status))
    return swept


def _sweep_one(pk, worker_ids):
    with transaction.atomic():
        result = DBTaskResult.objects.select_for_update().filter(pk=pk).first()
        # Another sweep may have been first, or the task was claimed again since.
        if result is None or result.status != TaskResultStatus.RUNNING:
            return None
        if result.worker_ids != worker_ids:
            return None
        attempts = len(result.worker_ids)
        lost = WorkerLost(f"worker {worker_ids[-1]} stopped during attempt {attempts}")
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
