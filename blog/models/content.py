"""The content version: one row counting every change a reader could see; and the version of
each part of what readers see, so an edit empties only the pages that show it."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class ContentVersion(models.Model):
    """One row (pk=1), read and bumped through :mod:`blog.caching.version` only: ``value`` grows by
    one after every committed change a reader could see."""

    value = models.BigIntegerField(_("version"), default=1)
    changed_at = models.DateTimeField(_("changed"), auto_now_add=True)

    class Meta:
        verbose_name = _("content version")
        verbose_name_plural = _("content version")

    def __str__(self):
        return f"v{self.value}"


class PartVersion(models.Model):
    """The version of one part of what readers see (:mod:`blog.caching.parts`): a random number, so
    never the same for two states of the part, whatever was restored or deleted."""

    name = models.CharField(_("part"), max_length=64, primary_key=True)
    version = models.BigIntegerField(_("version"))

    class Meta:
        verbose_name = _("part version")
        verbose_name_plural = _("part versions")

    def __str__(self):
        return f"{self.name}@{self.version:x}"
