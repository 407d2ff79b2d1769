"""biji's one background runner: django-tasks stored by django-tasks-db, with the retries, the lease
and sweep that give a killed worker's task (on any host) to another, and the patient worker loop the
backport lacks. A task must be idempotent: killed half-way and run again, it must not do its work
twice.

May import: :mod:`blog.models`, :mod:`blog.text` (it needs neither today).
"""

from blog.background.retrying import Retry, RetryingTask
from blog.background.sweep import sweep

__all__ = ["Retry", "RetryingTask", "sweep"]
