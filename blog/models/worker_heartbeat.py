"""Each running background worker's heartbeat row: who it is, what it takes, when last seen. An old
row is a worker killed or stuck."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class WorkerHeartbeat(models.Model):
    worker_id = models.CharField(_("worker"), max_length=64, unique=True)
    host = models.CharField(_("host"), max_length=64)
    pid = models.PositiveIntegerField(_("process id"))
    queues = models.CharField(_("queues"), max_length=200)
    started_at = models.DateTimeField(_("started"))
    last_seen = models.DateTimeField(_("last seen"), db_index=True)
    task_id = models.CharField(_("running task"), max_length=64, blank=True)
    task_path = models.CharField(_("running task's name"), max_length=255, blank=True)

    class Meta:
        verbose_name = _("worker heartbeat")
        verbose_name_plural = _("worker heartbeats")
        ordering = ["-last_seen"]
        get_latest_by = "last_seen"

    def __str__(self):
        return f"{self.worker_id} ({self.queues})"
