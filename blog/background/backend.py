"""The backend ``TASKS`` names: django-tasks-db's, with biji's retrying task class.

``OPTIONS``: ``max_attempts`` (3), ``retry_delay`` (10 s, doubled per retry) and ``time_limit`` (900
s; 0: no limit).
"""

from django_tasks_db import DatabaseBackend as BaseDatabaseBackend

from blog.background.retrying import RetryingTask


class DatabaseBackend(BaseDatabaseBackend):
    task_class = RetryingTask

    def __init__(self, alias, params):
        super().__init__(alias, params)
        self.max_attempts = int(self.options.get("max_attempts", 3))
        self.retry_delay = float(self.options.get("retry_delay", 10))
        self.time_limit = float(self.options.get("time_limit", 900))
