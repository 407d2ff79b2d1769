"""Images biji stores, with their sizes and variants, which the render step reads to make a
``<picture>``: sizes never come from the author's Markdown."""

import re
from html import escape, unescape
from typing import NamedTuple

from django.conf import settings
from django.core.files.storage import FileSystemStorage, default_storage
from django.db import DEFAULT_DB_ALIAS, models
from django.utils.encoding import filepath_to_uri
from django.utils.translation import gettext_lazy as _

from blog.rendering import pictures


class ImageFileQuerySet(models.QuerySet):
    def pictures_for(self, names):
        """``{name: KnownImage}`` for the stored images among ``names``, in one query.

        On a local disk a variant whose file is gone is left out, so a page never names a missing
        file (one stat per variant, at render time). An object store is not asked: that would be
        a request per variant per render, and a store that does not answer would fail the
        author's save; the row lists a variant only once its file is written.
        """
        found = {}
        check = isinstance(default_storage, FileSystemStorage)
        for name, width, height, variants in self.filter(name__in=names).values_list(
            "name", "width", "height", "variants"
        ):
            made = tuple(
                pictures.Variant(v["format"], v["width"], default_storage.url(v["name"]))
                for v in variants or ()
                if not check or default_storage.exists(v["name"])
            )
            found[name] = pictures.KnownImage(width, height, made)
        return found


class ImageFile(models.Model):
    # The storage name, as in ``/media/<name>`` (``uploads/2026/12/abc.jpg``, ``covers/…``); the
    # same name on an object store.
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


PROBE = "biji-probe"


def media_url():
    """Where the media storage serves its files: ``/media/`` on disk, the bucket's or the CDN's
    address on an object store (with its key prefix). Computed, never a request."""
    return default_storage.url(PROBE).removesuffix(PROBE)


def markdown_url(name):
    """How Markdown names a stored file, whatever the storage: ``/media/<name>`` (what the editor
    and the importers insert, and what an export writes). A body so stays right when the media
    move (from disk to a bucket, to another bucket, behind a CDN): the render step points it at
    the storage's URL (:func:`on_the_storage`)."""
    return settings.MEDIA_URL + filepath_to_uri(name)


def on_the_storage(html):
    """``html`` with its ``/media/<name>`` references pointing at the storage's URL of the same
    name; unchanged on disk, where that is the URL."""
    served_at, legacy = media_url(), settings.MEDIA_URL
    if served_at == legacy or legacy not in html:
        return html

    def moved(match):
        name = pictures.media_name(legacy + unescape(match[2]), legacy)
        return f'{match[1]}"{escape(default_storage.url(name))}"' if name else match[0]

    return re.sub(r'(\s(?:src|href)=)"' + re.escape(legacy) + r'([^"]*)"', moved, html)


def stored_names(html):
    """The storage names of the images ``html`` shows from the media storage (``/media/<name>``
    too, which the render step points at the storage)."""
    return pictures.media_names(on_the_storage(html), media_url())


def with_pictures(html, *, cover=None, cover_alt="", using=DEFAULT_DB_ALIAS):
    """The render step's images: the body's stored images and the ``cover``, with their sizes and
    variants, in one query. A cover not yet written has no name: ``cover_html`` stays empty until
    the variants' task renders the note again. Every URL is the storage's."""
    html, served_at = on_the_storage(html), media_url()
    cover_name = cover.name if cover and getattr(cover, "_committed", True) else ""
    names = pictures.media_names(html, served_at) | ({cover_name} if cover_name else set())
    images = ImageFile.objects.using(using).pictures_for(names) if names else {}
    body = pictures.with_pictures(html, images, served_at, eager_first=not cover)
    cover_html = ""
    if cover_name:
        cover_html = pictures.cover_picture(cover.url, cover_alt, images.get(cover_name))
    return Pictured(body, cover_html)
