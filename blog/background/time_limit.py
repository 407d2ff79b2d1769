"""A task's time limit, enforced by the worker with SIGALRM. :class:`TimeLimitExceeded` is a
``BaseException``, so ``except Exception`` does not swallow it; C code that never returns to Python,
and a worker under ``--reload`` (no signals off the main thread), are not limited."""

import logging
import signal
import threading
from contextlib import contextmanager

logger = logging.getLogger(__name__)


class TimeLimitExceeded(BaseException):  # noqa: N818 (what happened, as the task's recorded error)
    """The task ran past its time limit and was stopped."""


_warned = False


@contextmanager
def time_limit(seconds):
    """Run the block with at most ``seconds`` (None or 0: no limit) of wall-clock time."""
    global _warned
    if not seconds:
        yield
        return
    if threading.current_thread() is not threading.main_thread():
        if not _warned:
            logger.warning("Tasks run outside the main thread (--reload): no time limit.")
            _warned = True
        yield
        return

    def stop(signum, frame):
        raise TimeLimitExceeded(
            f"stopped after {seconds:g} s, the task's time limit (time_limit: "
            "@task(time_limit=…), or the backend's time_limit option)"
        )

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
