"""``{% worker_notice %}``: every admin page's warning, for staff, that no worker has written a
heartbeat for ``BIJI_WORKER_MISSING_AFTER`` seconds (one query)."""

from datetime import timedelta

from django import template
from django.conf import settings
from django.db import DatabaseError
from django.urls import reverse
from django.utils import timezone

from blog.background.queue_state import last_worker_seen

register = template.Library()


@register.inclusion_tag("admin/blog/worker_notice.html", takes_context=True)
def worker_notice(context):
    user = getattr(context.get("request"), "user", None)
    if user is None or not (user.is_active and user.is_staff):
        return {"show": False}
    try:
        last_seen = last_worker_seen()
    except DatabaseError:  # the table not migrated yet: the admin says so elsewhere
        return {"show": False}
    missing_after = timedelta(seconds=settings.BIJI_WORKER_MISSING_AFTER)
    if last_seen is not None and timezone.now() - last_seen <= missing_after:
        return {"show": False}
    may_see_queue = user.has_perm("blog.view_backgroundtask")
    return {
        "show": True,
        "last_seen": last_seen,
        "queue_url": reverse("admin:blog_backgroundtask_changelist") if may_see_queue else None,
    }
