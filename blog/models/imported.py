"""What imports leave behind: old URLs that must keep working, and files already stored."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class LegacyPath(models.Model):
    """A path the content had on its previous site, e.g. ``/2025/08/17/flashattention/``.

    A 404 on the public site looks the path up (:mod:`blog.public.legacy_redirects`) and redirects
    to the note or page. Import also matches a re-imported file by its old path, so a note
    whose slug the author changed after importing is updated, not duplicated.
    """

    path = models.CharField(
        _("old path"),
        max_length=500,
        unique=True,
        help_text=_("A path on the old site, starting with /, without the domain."),
    )
    note = models.ForeignKey(
        "blog.Note",  # by name: blog.models imports this module
        verbose_name=_("note"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="legacy_paths",
    )
    page = models.ForeignKey(
        "blog.Page",
        verbose_name=_("page"),
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="legacy_paths",
    )

    class Meta:
        verbose_name = _("old path")
        verbose_name_plural = _("old paths")
        ordering = ["path"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(note__isnull=False, page__isnull=True)
                | models.Q(note__isnull=True, page__isnull=False),
                name="blog_legacypath_note_or_page",
            )
        ]

    def __str__(self):
        return self.path

    @property
    def target(self):
        return self.note or self.page


class ImportedMedia(models.Model):
    """A file an import stored, by the SHA-256 of the bytes it read.

    Editor uploads get a random name (:func:`blog.images.uploads.store_image`), so importing the
    same folder twice would store every image twice and rewrite every body. With this, a second
    import finds the file already stored and the note comes out unchanged.
    """

    sha256 = models.CharField(max_length=64, unique=True)
    name = models.CharField(max_length=300, help_text=_("The stored file's name in MEDIA_ROOT."))

    class Meta:
        verbose_name = _("imported file")
        verbose_name_plural = _("imported files")

    def __str__(self):
        return self.name
