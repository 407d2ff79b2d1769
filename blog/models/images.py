"""Images biji stores, with their sizes and variants, which the render step reads to make a
``<picture>``: sizes never come from the author's Markdown."""

from typing import NamedTuple

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import DEFAULT_DB_ALIAS, models
from django.utils.translation import gettext_lazy as _

from blog.rendering import pictures


class ImageFileQuerySet(models.QuerySet):
    def pictures_for(self, names):
        """``{name: KnownImage}`` for the stored images among ``names``, in one query.

        A variant whose file is gone is left out, so a page never names a missing file (one stat per
        variant, at render time).
        """
        found = {}
        for name, width, height, variants in self.filter(name__in=names).values_list(
            "name", "width", "height", "variants"
        ):
            made = tuple(
                pictures.Variant(v["format"], v["width"], default_storage.url(v["name"]))
                for v in variants or ()
                if default_storage.exists(v["name"])
            )
            found[name] = pictures.KnownImage(width, height, made)
        return found


class ImageFile(models.Model):
    # The storage name, as in ``/media/<name>`` (``uploads/2026/12/abc.jpg``, ``covers/…``).
    name = models.CharField(_("file"), max_length=255, unique=True)
    width = models.PositiveIntegerField(_("width"))
    height = models.PositiveIntegerField(_("height"))
    # [{"format": "avif"|"webp", "width": 480, "height": 360, "name": "variants/…"}], smallest
    # first; [] until the background runner has made them (or when none is smaller).
    variants = models.JSONField(_("variants"), default=list, blank=True)
    variants_made_at = models.DateTimeField(_("variants made"), null=True, blank=True)
    created_at = models.DateTimeField(_("stored"), auto_now_add=True)

    objects = ImageFileQuerySet.as_manager()

    class Meta:
        verbose_name = _("image")
        verbose_name_plural = _("images")

    def __str__(self):
        return self.name


class Pictured(NamedTuple):
    html: str  # the body, its stored images as <picture>s
    cover_html: str  # the cover's <figure>; "" without a (stored) cover


def with_pictures(html, *, cover=None, cover_alt="", using=DEFAULT_DB_ALIAS):
    """The render step's images: the body's stored images and the ``cover``, with their sizes and
    variants, in one query. A cover not yet written has no name: ``cover_html`` stays empty until
    the variants' task renders the note again."""
    media_url = settings.MEDIA_URL
    cover_name = cover.name if cover and getattr(cover, "_committed", True) else ""
    names = pictures.media_names(html, media_url) | ({cover_name} if cover_name else set())
    images = ImageFile.objects.using(using).pictures_for(names) if names else {}
    body = pictures.with_pictures(html, images, media_url, eager_first=not cover)
    cover_html = ""
    if cover_name:
        cover_html = pictures.cover_picture(cover.url, cover_alt, images.get(cover_name))
    return Pictured(body, cover_html)
