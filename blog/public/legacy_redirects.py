"""Old URLs keep working: a 404 whose path an import recorded becomes a permanent redirect.

Only 404 responses are looked at, so a normal page costs nothing; the lookup is one indexed
query. A path leading to a draft or an unpublished page stays a 404: an old URL must not
reveal what is not public yet.
"""

from django.http import HttpResponsePermanentRedirect

from blog.models.imported import LegacyPath


def candidate_paths(path):
    """The path as requested, and with or without its trailing slash."""
    stripped = path.rstrip("/")
    return [path, stripped or "/", f"{stripped}/"]


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
        if legacy is None:
            return response
        if legacy.note is not None and legacy.note.is_published():
            return HttpResponsePermanentRedirect(legacy.note.get_absolute_url())
        if legacy.page is not None and legacy.page.is_published:
            return HttpResponsePermanentRedirect(legacy.page.get_absolute_url())
        return response
