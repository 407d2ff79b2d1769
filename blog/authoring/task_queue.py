"""The admin's queue page: how the background queue stands, its workers, the recent tasks.

Listed on the admin's index as "Background tasks" (the proxy model
:class:`~blog.models.BackgroundTask`) for superusers and staff with its one permission,
"Can view background task". Above the list: the summary ``manage.py tasks`` prints (what
waits, runs and failed, the oldest wait) and each worker's last heartbeat. The list shows
each task's name, queue, status, attempts, when it was queued and its error's last line,
filtered by status and queue; nothing here changes a task (``manage.py tasks retry`` does).

Every admin page warns when no worker has been seen for ``BIJI_WORKER_MISSING_AFTER``
seconds: ``{% worker_notice %}`` (blog/templatetags/task_queue.py) in
templates/admin/base_site.html.
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
