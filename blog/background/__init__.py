"""biji's one background runner: work that may outlive a request (imports, email, image
variants, cards, hub pings, glossary re-renders).

Django's tasks framework through the ``django-tasks`` backport, stored in the database by
``django-tasks-db``: a task is a module-level function under ``@task()`` (from
``django_tasks``), ``.enqueue()`` stores it, ``manage.py db_worker`` runs it and its
result (status, return value, error) stays in the database. The backport gives neither
retries nor a way out for a task whose worker was killed; biji adds both, here, once:

* :mod:`.retrying`: the task class of biji's backend. A task retries a bounded number of
  times, with exponential backoff, on the errors it names (by default those that say
  "try again": the database locked or unreachable, a network error; or :class:`Retry`).
  ``@task(max_attempts=5, retry_on=(SMTPException,))`` changes that per task.
* :mod:`.backend`: ``TASKS``' backend, django-tasks-db's with that task class and the retry
  settings (``OPTIONS``).
* :mod:`.workers`: who a worker is (host, process id, start time), so a task left RUNNING
  can be told apart from one still running.
* :mod:`.sweep`: puts a task whose worker is dead back in the queue, or fails it once its
  attempts are spent.
* :mod:`.worker`: the worker loop with both; biji's ``db_worker`` command runs it and sweeps
  when it starts (blog/management/commands/db_worker.py). It never exits on the database
  (:mod:`.outage`), holds each run to its time limit (:mod:`.time_limit`) and keeps a
  heartbeat (:mod:`.heartbeat`); :mod:`.queue_state` says how the queue stands.

A task must be idempotent: killed half-way and run again, it must not do its work twice.

May import: :mod:`blog.models`, :mod:`blog.text` (it needs neither today).
"""

from blog.background.retrying import Retry, RetryingTask
from blog.background.sweep import sweep

__all__ = ["Retry", "RetryingTask", "sweep"]
