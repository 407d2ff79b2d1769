"""The content version: one row counting every change a reader could see."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class ContentVersion(models.Model):
    """One row (pk=1), read and bumped through :mod:`blog.caching.version`, never directly.

    ``value`` grows by one after every committed change of a note, tag, series, page, the site
    settings or the navigation; ``changed_at`` is when it last did.
    """

    value = models.BigIntegerField(_("version"), default=1)
    changed_at = models.DateTimeField(_("changed"), auto_now_add=True)

    class Meta:
        verbose_name = _("content version")
        verbose_name_plural = _("content version")

    def __str__(self):
        return f"v{self.value}"
