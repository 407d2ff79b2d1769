"""What a task does when it fails: retry later, or fail for good.

Retried up to ``max_attempts`` runs, after ``retry_delay × 2^(n-1)`` seconds (an hour at most): the
errors in ``retry_on`` (by default those that say "try again") and a worker stopped mid-task.
Anything else, and a run past ``time_limit``, fails at once.
"""

from dataclasses import dataclass
from datetime import timedelta

from django.db import InterfaceError, OperationalError
from django.utils.version import PY311
from django_tasks.base import Task

from blog.background.time_limit import TimeLimitExceeded

LONGEST_WAIT = timedelta(hours=1)


class Retry(Exception):  # noqa: N818 (a request, not an error)
    """Raised by a task to be run again later (counts as an attempt)."""


RETRY_ON = (Retry, OperationalError, InterfaceError, ConnectionError, TimeoutError)
INTERRUPTED = (KeyboardInterrupt, SystemExit)


@dataclass(frozen=True, slots=PY311, kw_only=True)
class RetryingTask(Task):
    """A django-tasks Task that knows how often and on which errors it is retried."""

    max_attempts: int | None = None
    """Runs in all, the first included; None: the backend's ``max_attempts`` option."""

    retry_on: tuple = RETRY_ON
    """Exception classes that retry; the others fail the task at once."""

    time_limit: float | None = None
    """Seconds a run may take; None: the backend's ``time_limit`` option; 0: no limit."""

    def attempts_allowed(self):
        return self.max_attempts or self.get_backend().max_attempts

    def seconds_allowed(self):
        """The run's time limit in seconds, or None for none."""
        limit = self.time_limit if self.time_limit is not None else self.get_backend().time_limit
        return limit or None

    def retries(self, error, attempts):
        """Whether the task, ``attempts`` runs done and the last raising ``error``, runs again."""
        if attempts >= self.attempts_allowed() or isinstance(error, TimeLimitExceeded):
            return False
        return isinstance(error, INTERRUPTED + tuple(self.retry_on))

    def delay(self, attempts):
        """How long to wait before the next run after ``attempts`` runs."""
        seconds = self.get_backend().retry_delay * 2 ** min(max(attempts, 1) - 1, 20)
        return min(timedelta(seconds=seconds), LONGEST_WAIT)
