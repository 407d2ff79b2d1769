"""What imports leave behind: old URLs that must keep working, and files already stored."""

from django.conf import settings
from django.db import models
from django.urls import Resolver404, resolve
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from blog.models import content_paths

# The kinds of content (blog.models.content_paths) whose own address content_at() finds.
CONTENT_MODELS = {"note": "blog.Note", "page": "blog.Page"}


class LegacyPath(models.Model):
    """A path the content had on its previous site: a 404 there redirects, and a re-import matches
    by it. Never a note's or page's own address (:func:`content_at`)."""

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
    """A file an import stored, by the SHA-256 of its bytes, so importing the same folder twice
    stores nothing twice and leaves the notes unchanged (uploads get random names)."""

    sha256 = models.CharField(max_length=64, unique=True)
    name = models.CharField(max_length=300, help_text=_("The stored file's name in MEDIA_ROOT."))

    class Meta:
        verbose_name = _("imported file")
        verbose_name_plural = _("imported files")

    def __str__(self):
        return self.name


def content_at(path):
    """The note or page (published or not) whose own address ``path`` is, in either
    language (``/notes/x/``, ``/en/notes/x/``, with or without the final slash), or None."""
    from django.apps import apps

    stripped = path.rstrip("/")
    for language, _name in settings.LANGUAGES:
        with translation.override(language):  # the /en/ prefix resolves in English only
            for candidate in (path, f"{stripped}/"):
                try:
                    match = resolve(candidate)
                except Resolver404:
                    continue
                model = CONTENT_MODELS.get(content_paths.kind_of(match.view_name))
                if model is not None:
                    found = apps.get_model(model).objects.filter(slug=match.kwargs["slug"])
                    return found.first()
    return None
