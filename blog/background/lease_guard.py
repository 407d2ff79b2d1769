"""Stopping a run whose lease may have run out. A worker cut off from the database cannot renew its
lease (:mod:`.lease`), and a lease after its last renewal a worker of another host takes the task
over; so that the two do not go on side by side, the worker stops the run first, once its last
renewal (the claim, or a heartbeat written since) is two thirds of a lease old: the third left
covers the hosts' clocks disagreeing and the signal's way to the task. :class:`LeaseLost` is raised
in the task, as the time limit's error is; the worker records nothing, and the task goes back to
the queue: put back by the worker itself once the database answers it again (if it is still its
own), or by another host's sweep once the lease has run out. The guard reads no database: a beat
stuck on a dead connection does not hold it up.

Like the time limit, it needs the main thread (signals): a worker under ``--reload`` is not
guarded, and then only the conditional record (:meth:`.worker.Worker.record`) fences it."""

import logging
import signal
import threading
import time
from contextlib import contextmanager

from blog.background.lease import beat_every

logger = logging.getLogger(__name__)

SIGNAL = signal.SIGUSR1


class LeaseLost(BaseException):  # noqa: N818 (what happened, as the task's recorded error)
    """The worker could not renew its lease in time: the run was stopped, so that the worker
    that takes the task over runs it alone."""


class LeaseGuard:
    def __init__(self, heartbeat):
        self.heartbeat = heartbeat
        self.stop_after = 2 * beat_every()  # two thirds of the lease
        # Re-entrant: the signal handler takes it in the main thread, which may hold it already.
        self._lock = threading.RLock()
        self._run = None  # (task id, time.monotonic() before its claim) of the guarded run
        self._stopped = None  # the task id whose run was told to stop
        self._main = None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="biji-lease-guard", daemon=True)

    def start(self):
        if threading.current_thread() is not threading.main_thread():
            logger.warning("Tasks run outside the main thread (--reload): no lease guard.")
            return
        self._main = threading.main_thread().ident
        # Installed for good: a signal sent as a run ends finds a handler that ignores it,
        # never the default action, which ends the process.
        signal.signal(SIGNAL, self._interrupt)
        self._thread.start()

    def stop(self):
        self._stopping.set()

    @contextmanager
    def guarding(self, task_id, claimed_at):
        """Guard the run of ``task_id``, claimed at ``claimed_at`` (time.monotonic())."""
        with self._lock:
            self._run = (task_id, time.monotonic() if claimed_at is None else claimed_at)
            self._stopped = None  # the task may come back to this worker: guarded anew
        try:
            yield
        finally:
            with self._lock:
                self._run = None

    def renewed_at(self, claimed_at):
        beat = self.heartbeat.renewed_at
        return claimed_at if beat is None else max(claimed_at, beat)

    def _watch(self):
        while not self._stopping.wait(min(1.0, beat_every() / 4)):
            with self._lock:
                if self._run is None or self._stopped == self._run[0]:
                    continue
                task_id, claimed_at = self._run
                unrenewed = time.monotonic() - self.renewed_at(claimed_at)
                if unrenewed < self.stop_after:
                    continue
                self._stopped = task_id
                logger.error(
                    "task %s: worker %s has not renewed its lease for %.0f s (the database does "
                    "not answer it): stopping the run, another worker takes the task over",
                    task_id,
                    self.heartbeat.worker_id,
                    unrenewed,
                )
                signal.pthread_kill(self._main, SIGNAL)

    def _interrupt(self, signum, frame):
        with self._lock:
            stop = self._run is not None and self._run[0] == self._stopped
        if stop:
            raise LeaseLost(
                f"stopped: the lease was not renewed for {self.stop_after:g} s (two thirds "
                "of BIJI_WORKER_LEASE_SECONDS)"
            )
