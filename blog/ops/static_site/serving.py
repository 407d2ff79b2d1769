"""The live site answering the build in-process: Django's test client as an anonymous reader,
with the base URL as ``SITE_URL`` (and its path as the script prefix, as a server passing
``SCRIPT_NAME`` does) and ``DEBUG`` off (the real 404 page).

The page cache keys pages by release, language and URL, not by ``SITE_URL``: a build for the
site's own address (``SITE_URL``, without a path) shares the live page cache when it is on,
whose pages are the ones it would render (a warm cache makes the build cheap, and the build
warms it); any other build gets a private in-memory cache, so its pages are neither served to
readers nor taken from them. The page cache stays on (at least a day), because a page it keeps
names its parts in the ``xkey`` header, which the build records.
"""

import contextlib
import logging
import uuid
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings
from django.core.cache import caches
from django.test import Client, override_settings
from django.urls import get_script_prefix, set_script_prefix

# Entries of the build's cache (pages, memos, list entries); the oldest third goes when full.
CACHE_ENTRIES = 5000
PUBLIC = "public"
NOT_PUBLIC = {"private", "no-store", "no-cache"}


@dataclass
class Answer:
    status: int
    content_type: str
    body: bytes
    parts: frozenset  # the page's parts (xkey); empty when biji would not keep it
    location: str = ""
    cache_control: str = ""

    @property
    def is_public(self):
        directives = {d.strip().split("=")[0].lower() for d in self.cache_control.split(",")}
        return PUBLIC in directives and not directives & NOT_PUBLIC


class Reader:
    """An anonymous reader of the site at ``site`` (:class:`addresses.Site`)."""

    def __init__(self, site):
        self.site = site
        self.secure = site.scheme == "https" or settings.SECURE_SSL_REDIRECT
        self.client = Client(HTTP_HOST=site.netloc)
        self.extra = {"SCRIPT_NAME": site.prefix} if site.prefix else {}

    def get(self, url):
        self.client.cookies.clear()  # a reader who never had a cookie, every time
        # The query stays in the path: the client reads it from there (as QUERY_STRING).
        response = self.client.get(url, secure=self.secure, follow=False, **self.extra)
        keys = response.get("xkey", "").split()
        prefix = settings.BIJI_EDGE_KEY_PREFIX
        names = frozenset(k[len(prefix) :] if prefix and k.startswith(prefix) else k for k in keys)
        return Answer(
            status=response.status_code,
            content_type=response.get("Content-Type", ""),
            body=b"" if response.streaming else response.content,
            parts=names,
            location=response.get("Location", ""),
            cache_control=response.get("Cache-Control", ""),
        )


@contextlib.contextmanager
def quiet(name):
    """The logger ``name`` (``django.request``) silent but for errors, for the block: a build
    asks for pages it expects to answer 404 (a page gone since the last build, the 404 page)."""
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


@contextlib.contextmanager
def serving(site):
    """The live site as ``site`` serves it, for the block: yields a :class:`Reader`."""
    hostname = urlsplit(site.base).hostname or "localhost"
    hosts = [*settings.ALLOWED_HOSTS, hostname, f"[{hostname}]"]
    overrides = {
        "SITE_URL": site.base,
        "DEBUG": False,
        "ALLOWED_HOSTS": hosts,
        "BIJI_PAGE_CACHE_SECONDS": max(settings.BIJI_PAGE_CACHE_SECONDS, 86400),
    }
    private = (
        site.prefix
        or site.base != settings.SITE_URL.rstrip("/")
        or not settings.BIJI_PAGE_CACHE_SECONDS  # the live site keeps no pages
    )
    if private:
        overrides["CACHES"] = {
            "default": {
                "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                "LOCATION": f"biji-static-build-{uuid.uuid4().hex}",
                "OPTIONS": {"MAX_ENTRIES": CACHE_ENTRIES},
            }
        }
    before = get_script_prefix()
    with override_settings(**overrides):
        set_script_prefix(site.prefix + "/")
        try:
            yield Reader(site)
        finally:
            set_script_prefix(before)
            if private:
                caches["default"].clear()
