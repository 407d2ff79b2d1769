"""Old URLs keep working: a 404 whose path an import recorded becomes a permanent redirect.

Only 404 responses are looked at, so a normal page costs nothing; the lookup is one indexed
query. A path leading to a draft or an unpublished page stays a 404: an old URL must not
reveal what is not public yet. A path that is a note's or page's own address (published or
not, e.g. a draft created after the import with that slug) is never redirected: the address
belongs to that content (:func:`blog.models.imported.content_at`).

The redirect is a 301, so search engines move the old URL's standing to the note, but it is
kept by browsers and shared caches for :data:`MAX_AGE` only, not for ever (a 301 without
``Cache-Control`` is cached indefinitely): an old path removed or pointed elsewhere in the
admin, or a note unpublished, reaches every reader within a day. Old links are followed once
by most readers, so a longer lifetime would save little.
"""

from django.http import HttpResponsePermanentRedirect
from django.utils.cache import patch_cache_control

from blog.models.imported import LegacyPath, content_at

MAX_AGE = 24 * 3600


def candidate_paths(path):
    """The path as requested, and with or without its trailing slash."""
    stripped = path.rstrip("/")
    return [path, stripped or "/", f"{stripped}/"]


def redirect(url):
    response = HttpResponsePermanentRedirect(url)
    patch_cache_control(response, public=True, max_age=MAX_AGE)
    return response


class LegacyRedirectMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code != 404 or request.method not in ("GET", "HEAD"):
            return response
        legacy = (
            LegacyPath.objects.filter(path__in=candidate_paths(request.path))
            .select_related("note", "page")
            .first()
        )
        if legacy is None or content_at(request.path_info) is not None:
            return response
        if legacy.note is not None and legacy.note.is_published():
            return redirect(legacy.note.get_absolute_url())
        if legacy.page is not None and legacy.page.is_published:
            return redirect(legacy.page.get_absolute_url())
        return response
