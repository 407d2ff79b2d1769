"""Corrections readers can see. An author may mark a save as a correction with a one-line note in
the note's language; the correction keeps the revision it was made in (django-reversion's), so
the list on the note's page is built from revisions. Ordinary edits make none. An imported
correction has no revision of this site."""

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from reversion.models import Revision

from blog.models.notes import Note

CORRECTION_MAX_LENGTH = 300


class CorrectionQuerySet(models.QuerySet):
    def newest_first(self):
        return self.order_by("-made_at", "-pk")


class Correction(models.Model):
    note = models.ForeignKey(
        Note, on_delete=models.CASCADE, related_name="corrections", verbose_name=_("note")
    )
    text = models.CharField(
        _("correction"),
        max_length=CORRECTION_MAX_LENGTH,
        help_text=_("One line, in the note's language, e.g. 修正：带宽应为 3.35 TB/s."),
    )
    made_at = models.DateTimeField(_("corrected"), default=timezone.now, db_index=True)
    revision = models.OneToOneField(
        Revision,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="correction",
        verbose_name=_("revision"),
    )

    objects = CorrectionQuerySet.as_manager()

    class Meta:
        ordering = ["-made_at", "-pk"]
        verbose_name = _("correction")
        verbose_name_plural = _("corrections")

    def __str__(self):
        return self.text
