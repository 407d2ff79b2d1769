"""What admin autodiscovery imports: the author's desk is :mod:`blog.authoring.admin`."""

import blog.authoring.admin  # noqa: F401  (registers the ModelAdmins)
import blog.authoring.subscribers_admin  # noqa: F401  (registers SubscriberAdmin)
import blog.authoring.task_queue  # noqa: F401  (registers the queue page)
