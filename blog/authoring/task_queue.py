"""The admin's queue page: how the background queue stands, its workers and the recent tasks,
read-only (``manage.py tasks retry`` changes a task), for superusers and staff with "Can view
background task".
"""

from django.contrib import admin
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from blog.background.queue_state import queue_state
from blog.models import BackgroundTask


def describe_queues(queues):
    """A worker's queues as ``db_worker`` was given them ("*,-imports"), in words."""
    names = queues.split(",")
    if names[0] != "*":
        return ", ".join(names)
    excluded = [name.removeprefix("-") for name in names[1:]]
    if not excluded:
        return gettext("every queue")
    return gettext("every queue but %(queues)s") % {"queues": ", ".join(excluded)}


@admin.register(BackgroundTask)
class BackgroundTaskAdmin(admin.ModelAdmin):
    list_display = ("task", "queue", "status", "attempts", "enqueued_at", "last_error")
    list_display_links = None
    list_filter = ("status", "queue_name")
    ordering = ("-enqueued_at",)
    list_per_page = 50
    actions = None

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def changelist_view(self, request, extra_context=None):
        queue = queue_state()
        for worker in queue.workers:
            worker.queues_shown = describe_queues(worker.queues)
        extra_context = {**(extra_context or {}), "queue": queue, "title": _("Background tasks")}
        return super().changelist_view(request, extra_context)

    @admin.display(description=_("task"), ordering="task_path")
    def task(self, result):
        return result.task_path

    @admin.display(description=_("queue"), ordering="queue_name")
    def queue(self, result):
        return result.queue_name

    @admin.display(description=_("attempts"))
    def attempts(self, result):
        return len(result.worker_ids)

    @admin.display(description=_("last error"))
    def last_error(self, result):
        lines = result.traceback.strip().splitlines()
        return lines[-1] if lines else ""
