"""Old URLs keep working: a 404 at a path an import recorded becomes a 301, cached only for
:data:`MAX_AGE` so a change in the admin reaches readers. Only 404s are looked at."""

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
