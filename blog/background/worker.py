"""biji's worker loop: django-tasks-db's, never exiting on the database (:mod:`.outage`), with
retries (:mod:`.retrying`), time limits (:mod:`.time_limit`), a heartbeat (:mod:`.heartbeat`) that
keeps its lease on the task it runs (:mod:`.lease`, :mod:`.lease_guard`), and a sweep every half
lease (:mod:`.sweep`). A run's end is recorded only while the task is still its own."""

import logging
import random
import time
from contextlib import nullcontext
from traceback import format_exception

from django.core.exceptions import SuspiciousOperation
from django.db import close_old_connections, transaction
from django.utils import timezone
from django_tasks.base import TaskContext, TaskResultStatus
from django_tasks.signals import task_finished, task_started
from django_tasks_db.management.commands.db_worker import Worker as DatabaseWorker
from django_tasks_db.models import DBTaskResult
from django_tasks_db.utils import exclusive_transaction

from blog.background.heartbeat import Heartbeat
from blog.background.lease import sweep_every
from blog.background.lease_guard import LeaseGuard, LeaseLost
from blog.background.outage import DATABASE_ERRORS, Outage, close_connections
from blog.background.retrying import INTERRUPTED
from blog.background.sweep import put_back_claims_of, sweep
from blog.background.time_limit import TimeLimitExceeded, time_limit

logger = logging.getLogger(__name__)


class Worker(DatabaseWorker):
    def __init__(self, *, heartbeat=False, **options):
        super().__init__(**options)
        self.outage = Outage(f"Worker {self.worker_id}")
        self.claim_unsure = False
        self.heartbeat = Heartbeat(self.worker_id, self.queues_label()) if heartbeat else None
        self.lease_guard = LeaseGuard(self.heartbeat) if heartbeat else None
        self.claimed_at = None  # time.monotonic() before the claim of the task running
        self.next_sweep = time.monotonic() + sweep_every()  # db_worker sweeps as it starts

    def queues_label(self):
        if not self.process_all_queues:
            return ",".join(self.queue_names)
        return "*" + "".join(f",-{name}" for name in self.excluded_queue_names)

    def run(self):
        logger.info("Starting worker worker_id=%s queues=%s", self.worker_id, self.queues_label())
        if self.startup_delay and self.interval:
            time.sleep(random.random())  # noqa: S311 (no thundering herd of workers)
        if self.heartbeat:
            self.heartbeat.start()
            self.lease_guard.start()
        try:
            self.loop()
        finally:
            if self.heartbeat:
                self.lease_guard.stop()
                self.heartbeat.stop()

    def sweep(self):
        """Put back the tasks of dead workers (:mod:`.sweep`), waiting out the database;
        returns [(task id, new status)]."""
        while True:
            try:
                swept = sweep(self.backend_name)
            except DATABASE_ERRORS as error:
                self.outage.wait(error)
            else:
                self.outage.over()
                return swept

    def loop(self):
        while self.running:
            try:
                close_old_connections()
                self.sweep_when_due()
                task_result = self.claim()
            except DATABASE_ERRORS as error:
                self.claim_unsure = True
                self.outage.wait(error)
                continue
            self.outage.over()
            if task_result is not None:
                self.run_task(task_result)
            elif self.batch:
                logger.info("No more tasks to run for worker_id=%s: exiting.", self.worker_id)
                return
            if self.max_tasks is not None and self._run_tasks >= self.max_tasks:
                logger.info("Ran %d tasks (--max-tasks): exiting.", self._run_tasks)
                return
            if self.running and task_result is None:
                time.sleep(self.interval)

    def sweep_when_due(self):
        """Every half lease, put back the tasks of lost workers of any host: one query when
        none is lost. Its errors are the caller's to wait out."""
        if time.monotonic() < self.next_sweep:
            return
        for task_id, status in sweep(self.backend_name):
            logger.warning("Swept task %s: now %s", task_id, status)
        self.next_sweep = time.monotonic() + sweep_every()

    def claim(self):
        """The next task due, marked RUNNING under this worker; None when there is none. Its errors
        are the caller's to wait out: the library's loop died on a lock held past the busy timeout.
        """
        if self.claim_unsure:
            put_back_claims_of(self.worker_id, self.backend_name)
            self.claim_unsure = False
        tasks = DBTaskResult.objects.ready().filter(backend_name=self.backend_name)
        if not self.process_all_queues:
            tasks = tasks.filter(queue_name__in=self.queue_names)
        if self.excluded_queue_names:
            tasks = tasks.exclude(queue_name__in=self.excluded_queue_names)
        self.claimed_at = time.monotonic()  # the lease runs from a moment after this
        with exclusive_transaction(tasks.db):
            task_result = tasks.get_locked()
            if task_result is not None:
                task_result.claim(self.worker_id)
        return task_result

    def run_task(self, db_task_result):
        task = None
        self.running_task = True
        if self.heartbeat:
            self.heartbeat.task = (str(db_task_result.pk), db_task_result.task_path)
        try:
            try:
                task = db_task_result.task
                task_result = db_task_result.task_result
                task_started.send(sender=type(task.get_backend()), task_result=task_result)
                limit = task.seconds_allowed() if hasattr(task, "seconds_allowed") else None
                with self.guarded(db_task_result), time_limit(limit):
                    if task.takes_context:
                        context = TaskContext(task_result=task_result)
                        value = task.call(context, *task_result.args, **task_result.kwargs)
                    else:
                        value = task.call(*task_result.args, **task_result.kwargs)
            except BaseException as error:
                self.after_error(db_task_result, task, error)
                if isinstance(error, INTERRUPTED):
                    raise
            else:
                self.after_success(db_task_result, task, value)
        finally:
            self.running_task = False
            self._run_tasks += 1
            if self.heartbeat:
                self.heartbeat.task = ("", "")

    def guarded(self, db_task_result):
        if self.lease_guard is None:
            return nullcontext()
        return self.lease_guard.guarding(str(db_task_result.pk), self.claimed_at)

    def after_success(self, db_task_result, task, value):
        try:
            done = self.record(db_task_result, lambda: db_task_result.set_successful(value))
        except Exception as error:  # a value the database cannot store (not JSON, say)
            self.after_error(db_task_result, task, error)
            return
        if done:
            self.finished(db_task_result)

    def after_error(self, db_task_result, task, error):
        attempts = len(db_task_result.worker_ids)
        if isinstance(error, (TimeLimitExceeded, LeaseLost, *INTERRUPTED)):
            # Raised by a signal handler, maybe right after a BEGIN that Django never learnt
            # of: a new connection, so that what follows is not written into that transaction.
            close_connections()
        if isinstance(error, TimeLimitExceeded):
            logger.error("task %s %s", db_task_result.pk, error)
        if isinstance(error, LeaseLost):
            # Not this worker's to record: another host's sweep may have taken it over. Before
            # its next claim, the worker puts the task back itself if it is still its own.
            self.claim_unsure = True
            return
        if task is not None and getattr(task, "retries", None) and task.retries(error, attempts):
            self.record(db_task_result, lambda: self.retry_later(db_task_result, task, error))
        elif self.record(db_task_result, lambda: db_task_result.set_failed(error)):
            self.finished(db_task_result)

    def record(self, db_task_result, write):
        """``write()`` how a task ended, waiting out the database, if the task is still this
        worker's; False if it is not (another worker took it over: its lease ran out), or if
        asked to stop first (the next worker's sweep puts the task back)."""
        while True:
            try:
                with transaction.atomic(using=db_task_result._state.db):
                    if not self.still_holds(db_task_result):
                        return False
                    write()
            except DATABASE_ERRORS as error:
                if not self.running:
                    logger.warning(
                        "Stopping without recording how task %s ended (%s): the next "
                        "worker's sweep puts it back in the queue.",
                        db_task_result.pk,
                        error,
                    )
                    return False
                self.outage.wait(error)
            else:
                self.outage.over()
                return True

    def still_holds(self, db_task_result):
        """Whether the task is RUNNING under this worker's claim, its row locked until the
        transaction ends (select_for_update; SQLite's IMMEDIATE transactions lock the database)."""
        claims = (
            DBTaskResult.objects.using(db_task_result._state.db)
            .select_for_update()
            .filter(pk=db_task_result.pk, status=TaskResultStatus.RUNNING)
            .values_list("worker_ids", flat=True)
        )
        if claims.first() == db_task_result.worker_ids:
            return True
        logger.warning(
            "task %s was taken over by another worker while worker %s ran it (its lease ran "
            "out): this run's end is not recorded",
            db_task_result.pk,
            self.worker_id,
        )
        return False

    def retry_later(self, db_task_result, task, error):
        attempts = len(db_task_result.worker_ids)
        delay = None if isinstance(error, INTERRUPTED) else task.delay(attempts)  # None: at once
        db_task_result.status = TaskResultStatus.READY
        if delay is not None:
            db_task_result.run_after = timezone.now() + delay
        db_task_result.exception_class_path = f"{type(error).__module__}.{type(error).__qualname__}"
        db_task_result.traceback = "".join(format_exception(error))
        db_task_result.save(
            update_fields=["status", "run_after", "exception_class_path", "traceback"]
        )
        logger.warning(
            "task %s (attempt %d of %d) raised %r: retried %s",
            db_task_result.pk,
            attempts,
            task.attempts_allowed(),
            error,
            f"in {delay}" if delay is not None else "at once",
        )

    def finished(self, db_task_result):
        """Tell the receivers of ``task_finished``; their errors are logged, never the
        worker's end nor a change of the task's result."""
        try:
            sender = type(db_task_result.task.get_backend())
            task_result = db_task_result.task_result
        except (ImportError, SuspiciousOperation):
            logger.exception("Task id=%s failed unexpectedly", db_task_result.id)
            return
        for receiver, response in task_finished.send_robust(sender=sender, task_result=task_result):
            if isinstance(response, Exception):
                logger.error(
                    "A receiver of task_finished (%r) failed for task %s",
                    receiver,
                    db_task_result.pk,
                    exc_info=response,
                )
