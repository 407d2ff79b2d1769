"""The background runner's tasks as the admin's queue page lists them: a proxy of django-tasks-db's
result, for its permission "Can view background task"."""

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
