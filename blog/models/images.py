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

from django.db import models
from django.utils.translation import gettext_lazy as _


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

    class Meta:
        verbose_name = _("image")
        verbose_name_plural = _("images")

    def __str__(self):
        return self.name
