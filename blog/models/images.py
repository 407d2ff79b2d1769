"""Images biji stores, with the smaller copies it makes of them for screens of every width.

An :class:`ImageFile` row is written when an image enters biji (an editor upload, a cover, an
import) with the size of the stored file. Its :attr:`~ImageFile.variants` are made later, on the
background runner (:mod:`blog.images.variants`): each is a width (never wider than the image)
in one modern format, stored beside the original. Until they exist, and for any that is
missing, a page serves the original, which always exists.

The render step reads these rows to turn a body's ``<img>`` of a stored image into a
``<picture>`` (:mod:`blog.rendering.pictures`): sizes and variants come from here, never from
the author's Markdown.
"""

from typing import NamedTuple

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import DEFAULT_DB_ALIAS, models
from django.utils.translation import gettext_lazy as _

from blog.rendering import pictures


class ImageFileQuerySet(models.QuerySet):
    def pictures_for(self, names):
        """``{name: KnownImage}`` for the stored images among ``names``, in one query.

        A variant whose file is gone is left out, so a page never names a missing file: the
        original stands in for it until ``manage.py imagevariants`` makes it again. Checking
        costs one stat per variant (six at most per image), in the render step, never per
        request.
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
    """The render step's images (:mod:`blog.rendering.pictures`): the body's images that biji
    stored, and the ``cover`` (a note's ImageField file), with their sizes and variants,
    looked up in one query (none when the body names no stored image and there is no cover).

    A cover not yet written to the storage (a new upload, during the save that writes it)
    has no name to point at yet: ``cover_html`` stays empty and the page shows the plain
    cover until the background runner renders the note again (its variants' task does).
    """
    media_url = settings.MEDIA_URL
    cover_name = cover.name if cover and getattr(cover, "_committed", True) else ""
    names = pictures.media_names(html, media_url) | ({cover_name} if cover_name else set())
    images = ImageFile.objects.using(using).pictures_for(names) if names else {}
    body = pictures.with_pictures(html, images, media_url, eager_first=not cover)
    cover_html = ""
    if cover_name:
        cover_html = pictures.cover_picture(cover.url, cover_alt, images.get(cover_name))
    return Pictured(body, cover_html)
