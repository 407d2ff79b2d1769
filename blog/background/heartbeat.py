"""A running worker's heartbeat row, written every third of the lease by a thread of its own, so a
worker busy with a long task is still seen and keeps its lease on the task (:mod:`.lease`); a
refused write never stops the worker. Beside it, a guard that stops the task once the lease may
have run out unrenewed (:mod:`.lease_guard`)."""

import logging
import os
import threading
import time
from datetime import timedelta

from django.utils import timezone

from blog.background.lease import beat_every
from blog.background.outage import DATABASE_ERRORS, Outage, close_connections
from blog.background.workers import host, is_dead
from blog.models import WorkerHeartbeat

logger = logging.getLogger(__name__)

FORGOTTEN_AFTER = timedelta(days=7)  # a row not written for this long is deleted


class Heartbeat:
    def __init__(self, worker_id, queues):
        self.worker_id = worker_id
        self.queues = queues[:200]
        self.started_at = timezone.now()
        self.task = ("", "")  # (id, path) of the task running; set by the worker
        self.every = beat_every()
        # time.monotonic() as the last write that renewed the lease began (None: none yet)
        self.renewed_at = None
        self.outage = Outage(
            f"The heartbeat of worker {worker_id}", f"trying again every {self.every:g} s"
        )
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="biji-heartbeat", daemon=True)

    def start(self):
        self._thread.start()

    def stop(self):
        """Stop beating and delete the row (in the calling thread; errors only logged)."""
        self._stopping.set()
        if self._thread.ident is not None:
            self._thread.join(timeout=2)
        # A stop signal may have come in the middle of a query, even of a BEGIN whose
        # transaction Django never learnt of: start from a new connection.
        close_connections()
        try:
            WorkerHeartbeat.objects.filter(worker_id=self.worker_id).delete()
        except DATABASE_ERRORS as error:
            logger.warning("Could not delete the heartbeat of worker %s: %s", self.worker_id, error)

    def _run(self):
        try:
            self._forget_the_dead()
            while not self._stopping.is_set():
                self.beat()
                self._stopping.wait(self.every)
        finally:
            close_connections()  # this thread's own

    def beat(self):
        task_id, task_path = self.task
        began = time.monotonic()  # the lease others see runs from last_seen, taken now
        fields = {"last_seen": timezone.now(), "task_id": task_id, "task_path": task_path[:255]}
        try:
            if not WorkerHeartbeat.objects.filter(worker_id=self.worker_id).update(**fields):
                if self._stopping.is_set():
                    return  # stop() deletes the row: do not make it again
                WorkerHeartbeat.objects.create(
                    worker_id=self.worker_id,
                    host=host(),
                    pid=os.getpid(),
                    queues=self.queues,
                    started_at=self.started_at,
                    **fields,
                )
        except DATABASE_ERRORS as error:
            self.outage.next_delay(error)  # logged once per streak; the next beat tries again
            close_connections()
        else:
            self.renewed_at = began
            self.outage.over()

    def _forget_the_dead(self):
        try:
            stale = WorkerHeartbeat.objects.filter(last_seen__lt=timezone.now() - FORGOTTEN_AFTER)
            stale.delete()
            for row in WorkerHeartbeat.objects.filter(host=host()).only("pk", "worker_id"):
                if is_dead(row.worker_id):
                    row.delete()
        except DATABASE_ERRORS as error:
            logger.warning("Could not forget the heartbeats of dead workers: %s", error)
            close_connections()
