"""Absolute URLs on ``settings.SITE_URL``: the one joiner for pages, feeds, sitemaps and JSON-LD. A
path prefix in ``SITE_URL`` appears once, whether or not ``reverse()`` added it."""

from urllib.parse import urlsplit

from django.conf import settings


def absolute_url(path) -> str:
    """``path`` on ``SITE_URL``; URLs that already have a scheme pass through unchanged."""
    path = str(path or "/")
    if urlsplit(path).scheme:
        return path
    if not path.startswith("/"):
        path = "/" + path
    site = urlsplit(settings.SITE_URL)
    prefix = site.path.rstrip("/")
    if prefix and path != prefix and not path.startswith(prefix + "/"):
        path = prefix + path
    return f"{site.scheme}://{site.netloc}{path}"
