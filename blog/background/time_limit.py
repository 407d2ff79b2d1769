"""A task's time limit, enforced by the worker with SIGALRM.

The worker runs each task under :func:`time_limit`: when the limit passes, the alarm raises
:class:`TimeLimitExceeded` inside the task, where it is at that moment. It derives from
``BaseException``, so a task's ``except Exception`` does not swallow it; ``atomic`` blocks
roll back and ``finally`` clauses run as it passes. The task then fails for good (it would
take as long again) with the error on its row, and the worker goes on with the next task.

What it interrupts: Python code, and waits that return to Python when a signal comes
(``time.sleep``, sockets: SMTP, HTTP; subprocesses). What it cannot: C code that does not
return to Python until it is done (one long SQL statement, Pillow decoding a huge image, a
regular expression): the task stops when that call returns. Only the main thread has
signals, so a worker run with ``--reload`` (whose tasks run in another thread) enforces no
limit, and says so once.
"""

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
