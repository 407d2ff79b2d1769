"""``manage.py db_worker``: django-tasks-db's worker (replaced: blog comes first in INSTALLED_APPS)
with biji's retries, sweep, time limits, heartbeat and lease, every queue by default. Its id is
``host:pid:start``, the host being ``BIJI_HOST_ID`` or the machine's name."""

import logging
import os

from django.core.management.base import CommandError
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV, run_with_reloader
from django_tasks_db.management.commands.db_worker import Command as DatabaseWorkerCommand
from django_tasks_db.management.commands.db_worker import logger

from blog.background.worker import Worker
from blog.background.workers import current_worker_id


class Command(DatabaseWorkerCommand):
    help = (
        "Run the background worker (django-tasks-db's, with retries, the sweep, time limits "
        "and a heartbeat); every queue unless --queue-name says otherwise."
    )

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument(
            "--no-sweep",
            action="store_false",
            dest="sweep_at_start",
            help=(
                "Do not put back the tasks of lost workers when starting (the worker still "
                "sweeps every half lease while it runs)."
            ),
        )
        parser.set_defaults(worker_id=None, queue_name="*")

    def configure_logging(self, verbosity):
        super().configure_logging(verbosity)
        # biji's worker logs as the library's does: INFO at verbosity 1, DEBUG above.
        level = {0: logging.CRITICAL, 1: logging.INFO}.get(verbosity, logging.DEBUG)
        logging.getLogger("blog.background").setLevel(level)

    def handle(
        self,
        *,
        verbosity,
        queue_name,
        interval,
        batch,
        backend_name,
        startup_delay,
        reload,
        max_tasks,
        worker_id,
        exclude_queues,
        sweep_at_start=True,
        **options,
    ):
        self.configure_logging(verbosity)
        if reload and batch:
            logger.warning("--reload and --batch cannot be used together: not reloading.")
            reload = False
        queue_names = queue_name.split(",")
        if exclude_queues and "*" not in queue_names:
            raise CommandError("--exclude-queues can only be used with --queue-name=*")
        child = os.environ.get(DJANGO_AUTORELOAD_ENV) == "true"
        worker = Worker(
            queue_names=queue_names,
            interval=interval,
            batch=batch,
            backend_name=backend_name,
            startup_delay=startup_delay,
            max_tasks=max_tasks,
            worker_id=worker_id or current_worker_id(),
            excluded_queue_names=exclude_queues.split(",") if exclude_queues else [],
            heartbeat=True,
        )
        if sweep_at_start and (child or not reload):
            for task_id, status in worker.sweep():
                logger.warning("Swept task %s: now %s", task_id, status)
        if reload:
            if child:
                worker.configure_signals()
            run_with_reloader(worker.run)
        else:
            worker.configure_signals()
            worker.run()
