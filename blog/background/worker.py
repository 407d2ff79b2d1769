"""django-tasks-db's worker loop, with retries (:mod:`.retrying`).

The library's ``Worker.run_task`` marks any error FAILED; this one first asks the task
whether it runs again, and if so puts it back in the queue, due after the backoff, with the
error kept on its row for the admin to show. The rest (claiming, signals, batches, shutdown
on SIGTERM after the task at hand) is the library's.
"""

import logging
from traceback import format_exception

from django.core.exceptions import SuspiciousOperation
from django.utils import timezone
from django_tasks.base import TaskContext, TaskResultStatus
from django_tasks.signals import task_finished, task_started
from django_tasks_db.management.commands.db_worker import Worker as DatabaseWorker

from blog.background.retrying import INTERRUPTED

logger = logging.getLogger(__name__)


class Worker(DatabaseWorker):
    def run_task(self, db_task_result):
        task = None
        try:
            self.running_task = True
            task = db_task_result.task
            task_result = db_task_result.task_result
            sender = type(task.get_backend())
            task_started.send(sender=sender, task_result=task_result)
            if task.takes_context:
                value = task.call(
                    TaskContext(task_result=task_result), *task_result.args, **task_result.kwargs
                )
            else:
                value = task.call(*task_result.args, **task_result.kwargs)
            # Inside the try, as in the library: a value that cannot be stored fails the task.
            db_task_result.set_successful(value)
            task_finished.send(sender=sender, task_result=db_task_result.task_result)
        except BaseException as error:
            attempts = len(db_task_result.worker_ids)
            if (
                task is not None
                and getattr(task, "retries", None)
                and task.retries(error, attempts)
            ):
                self.retry_later(db_task_result, task, error, attempts)
            else:
                self.fail(db_task_result, error)
            if isinstance(error, INTERRUPTED):
                raise
        finally:
            self.running_task = False
            self._run_tasks += 1

    def retry_later(self, db_task_result, task, error, attempts):
        delay = task.delay(attempts) if not isinstance(error, INTERRUPTED) else None
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

    def fail(self, db_task_result, error):
        db_task_result.set_failed(error)
        try:
            sender = type(db_task_result.task.get_backend())
            task_result = db_task_result.task_result
        except (ImportError, SuspiciousOperation):
            logger.exception("Task id=%s failed unexpectedly", db_task_result.id)
        else:
            task_finished.send(sender=sender, task_result=task_result)
