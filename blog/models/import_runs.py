"""An import run from the admin: who imported what, when, how far it is, and its report; the worker
fills it in (:mod:`blog.porting.tasks`)."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class ImportRun(models.Model):
    class State(models.TextChoices):
        QUEUED = "queued", pgettext_lazy("import run", "Waiting for the worker")
        RUNNING = "running", pgettext_lazy("import run", "Running")
        DONE = "done", pgettext_lazy("import run", "Done")
        FAILED = "failed", pgettext_lazy("import run", "Failed")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("imported by"),
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(_("uploaded"), auto_now_add=True)
    started_at = models.DateTimeField(_("started"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)
    archive_name = models.CharField(_("archive"), max_length=255)
    format = models.CharField(_("front matter of"), max_length=20)
    dry_run = models.BooleanField(_("dry run"), default=False)
    state = models.CharField(_("state"), max_length=10, choices=State.choices, default=State.QUEUED)
    files_done = models.PositiveIntegerField(_("files done"), default=0)
    files_total = models.PositiveIntegerField(_("files in all"), default=0)
    report = models.TextField(_("report"), blank=True)
    error = models.TextField(
        _("error"), blank=True, help_text=_("Why the run stopped, when it did not finish.")
    )
    task_id = models.CharField(_("task"), max_length=64, blank=True)

    class Meta:
        verbose_name = _("import run")
        verbose_name_plural = _("import runs")
        ordering = ["-created_at", "-pk"]
        get_latest_by = "created_at"

    def __str__(self):
        if self.created_at is None:  # not saved yet
            return self.archive_name
        # In the site's time, as the admin shows the run's dates (stored in UTC).
        return f"{self.archive_name} ({timezone.localtime(self.created_at):%Y-%m-%d %H:%M})"

    @property
    def is_finished(self):
        return self.state in {self.State.DONE, self.State.FAILED}

    @property
    def summary(self):
        """The report's last line: its counts."""
        lines = self.report.strip().splitlines()
        return lines[-1] if lines else ""
