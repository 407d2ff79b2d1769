"""Corrections readers can see. An author may mark a save as a correction with a one-line note in
the note's language; the correction keeps the revision it was made in (django-reversion's), so
the list on the note's page is built from revisions. Ordinary edits make none. An imported
correction has no revision of this site."""

from django.db import models
from django.db.models import OuterRef, Q, Subquery
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


def with_latest_corrections(notes):
    """``notes`` with the time and text of each one's newest correction, and of its translation's
    (either note of the pair holding the link), read in the same query: the pages and feeds that
    show them cost no query more. :func:`latest_correction` and :func:`counterpart_correction`
    read them back."""
    own = Correction.objects.filter(note_id=OuterRef("pk")).newest_first()
    other = Correction.objects.filter(
        Q(note_id=OuterRef("translation_id")) | Q(note__translation_id=OuterRef("pk"))
    ).newest_first()
    return notes.annotate(
        latest_corrected_at=Subquery(own.values("made_at")[:1]),
        latest_correction_text=Subquery(own.values("text")[:1]),
        counterpart_corrected_at=Subquery(other.values("made_at")[:1]),
        counterpart_correction_text=Subquery(other.values("text")[:1]),
    )


def latest_correction(note):
    """The newest correction of a note read by :func:`with_latest_corrections` (unsaved), or
    None."""
    return _annotated(note, "latest")


def counterpart_correction(note):
    """The newest correction of the note's translation, as :func:`latest_correction`."""
    return _annotated(note, "counterpart")


def _annotated(note, side):
    made_at = getattr(note, f"{side}_corrected_at", None)
    if made_at is None:
        return None
    return Correction(text=getattr(note, f"{side}_correction_text"), made_at=made_at)
