"""The path of a note, tag, series or page from its slug, without a full ``reverse()`` each time.

``reverse()`` walks the URLconf's patterns and checks the arguments against the converter on
every call: ~40 µs, paid for each link a page shows (twenty parts of a series box, ten related
notes, 5,000 URLs of a sitemap page). The path of one view differs only in the slug, so it is
reversed once per view, URLconf, script prefix and language with a stand-in slug, and the slug
is put in its place. Slugs are ASCII letters, digits, hyphens and underscores (``<slug:…>``),
which a URL carries as they are; anything else takes the full ``reverse()``, which checks and
escapes it (and refuses what the URL cannot hold, as before).

The caller names the view: the public layer its own, the layers below it the one
:mod:`blog.models.content_paths` was given for a kind of content.
"""

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
