"""The background runner's tasks as the admin's queue page lists them.

A proxy of django-tasks-db's task result: no table of its own, but a place in biji's admin
and a permission, "Can view background task", that lets staff other than superusers see
the queue (:mod:`blog.authoring.task_queue`).
"""

from django.utils.translation import gettext_lazy as _
from django_tasks_db.models import DBTaskResult


class BackgroundTask(DBTaskResult):
    class Meta:
        proxy = True
        verbose_name = _("background task")
        verbose_name_plural = _("background tasks")
        default_permissions = ("view",)

    def __str__(self):
        return f"{self.task_path} ({self.pk})"
