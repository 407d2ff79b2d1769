"""The path of a note, tag, series or page from its slug: reversed once per view with a stand-in
slug, then the slug put in its place (cost: docs/performance.md); odd slugs take ``reverse()``."""

import re
from functools import lru_cache

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.translation import get_language

STAND_IN = "slug0stand0in"
_SLUG = re.compile(r"[-a-zA-Z0-9_]+")


def slug_path(viewname: str, slug: str) -> str:
    """``reverse(viewname, kwargs={"slug": slug})``, for a view whose only argument is a slug."""
    if not _SLUG.fullmatch(slug or ""):
        return reverse(viewname, kwargs={"slug": slug})
    before, after = _around_slug(viewname, get_urlconf(), get_script_prefix(), get_language())
    return f"{before}{slug}{after}"


@lru_cache(maxsize=256)
def _around_slug(viewname, urlconf, script_prefix, language):
    """What comes before and after the slug in ``viewname``'s path (the arguments besides the
    view's name are what ``reverse()`` reads from the thread: they key the cache)."""
    before, found, after = reverse(viewname, kwargs={"slug": STAND_IN}, urlconf=urlconf).partition(
        STAND_IN
    )
    if not found:
        raise ValueError(f"{viewname}'s path does not show its slug")
    return before, after


@receiver(setting_changed)
def _forget(setting, **kwargs):
    """A test that changes the URLconf or the languages changes the paths too."""
    if setting in {"ROOT_URLCONF", "LANGUAGES", "LANGUAGE_CODE", "FORCE_SCRIPT_NAME"}:
        _around_slug.cache_clear()
