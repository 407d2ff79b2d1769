"""Public pages answered from the content version before any view runs.

:class:`PageCacheMiddleware` sits right after the locale middleware (the interface language is
known, nothing else has run). For a *public request* — GET or HEAD of a public page or feed
(:func:`public_view`), with no session cookie and no ``Authorization`` header — it:

1. reads the content version (:func:`blog.caching.version.current`: one indexed query,
   memoised for the request) and derives a weak ETag from the version's key, the URL (path and
   query string) and the interface language, and ``Last-Modified`` from
   ``State.last_modified``;
2. answers ``If-None-Match`` / ``If-Modified-Since`` with ``304 Not Modified`` at once: a
   conditional GET costs that one query, whatever the page;
3. serves the page from the shared page cache (Django's cache framework through
   :mod:`blog.caching.store`: an unreachable cache is a miss) under a key made of the version's
   key, the language, the accepted encoding and the URL, so an edit, a scheduled note coming
   due or the other language can never be served from an old entry: no invalidation needed;
4. otherwise lets the view run, adds the headers above and ``s-maxage`` to its response, and
   stores it when it is storable (:func:`storable`): a 200 whose ``Cache-Control`` is
   ``public`` (never ``private``, ``no-store`` or ``no-cache``), which sets no cookie, varies on
   nothing but ``Accept-Encoding``, and whose query string holds only known parameters.

What is never cached here: anything for a request carrying a session cookie (the author and
staff previews: their pages are built for them, and they see every edit at once), share links
(not a public view; ``private, no-store`` anyway), POSTs, the admin, search (its index is
updated after the commit, beside the version bump: it is sent ``no-cache`` and revalidated
by content) and robots.txt (no query to save).

``max-age`` is capped at the time left before the next scheduled publication, so browsers and
CDNs also show a scheduled note on time. ``X-Page-Cache: hit|miss`` tells which path served a
page (tests and the benchmark read it).

Settings: ``BIJI_PAGE_CACHE_SECONDS`` (how long an entry is kept, 0 turns the shared page cache
off; conditional GETs keep working), ``BIJI_PAGE_MAX_AGE`` (browsers) and
``BIJI_PAGE_SHARED_MAX_AGE`` (``s-maxage``: CDNs, nginx).
"""

import functools
import hashlib
import re
from email.utils import formatdate

from django.conf import settings
from django.http import HttpResponse
from django.middleware.gzip import GZipMiddleware
from django.urls import Resolver404, get_resolver, get_urlconf
from django.utils import translation
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers

from blog.caching import store, version
from blog.caching.keys import versioned_key

# Views whose response depends on the content version, the URL and the language only.
PUBLIC_NAMESPACES = {"blog", "feeds"}
NOT_PUBLIC = {"blog:note-share", "blog:search"}
PUBLIC_VIEW_NAMES = {"sitemap", "sitemap-section"}
# Query parameters a public page reads (a list's page; a sitemap's page, named by Django's
# sitemap view); other query strings are served but never stored, so random ones cannot fill
# the cache.
KNOWN_PARAMETERS = {"page"}
KNOWN_PARAMETERS_OF = {"sitemap-section": {"p"}}
ACCEPTS_GZIP = re.compile(r"\bgzip\b")
STORABLE_VARY = {"accept-encoding"}
NOT_STORABLE_DIRECTIVES = {"private", "no-store", "no-cache"}
HEADER = "X-Page-Cache"


def cache_seconds():
    return settings.BIJI_PAGE_CACHE_SECONDS


def shared_max_age():
    return settings.BIJI_PAGE_SHARED_MAX_AGE


def public_view(path_info):
    """The URL match when ``path_info`` is a public page or feed (module docstring), or None."""
    return _public_view(get_resolver(get_urlconf()), path_info, translation.get_language())


# Resolving a path walks the admin's and every other pattern before the blog's: a third of what
# a page-cache hit cost (0.4 of 1.3 ms, profiled). The answer depends on the URLconf (the
# resolver, renewed when the URLconf changes), the path and the interface language (the /en/
# prefix); bounded, so made-up paths cannot grow it without limit.
@functools.lru_cache(maxsize=4096)
def _public_view(resolver, path_info, language):
    try:
        match = resolver.resolve(path_info)
    except Resolver404:
        return None
    name = match.view_name
    if name in NOT_PUBLIC:
        return None
    if name in PUBLIC_VIEW_NAMES or set(match.namespaces) & PUBLIC_NAMESPACES:
        return match
    return None


def is_public_request(request):
    """The URL match of a request the version may answer for, or None."""
    if (
        request.method not in ("GET", "HEAD")
        or settings.SESSION_COOKIE_NAME in request.COOKIES
        or "HTTP_AUTHORIZATION" in request.META
    ):
        return None
    return public_view(request.path_info)


def _url_digest(request):
    return hashlib.md5(request.get_full_path().encode(), usedforsecurity=False).hexdigest()


def etag_for(state, request, language):
    digest = hashlib.md5(
        f"{state.key}|{language}|{request.get_full_path()}".encode(), usedforsecurity=False
    ).hexdigest()
    return f'W/"{digest}"'


def cache_key(request, language):
    encoding = "gzip" if ACCEPTS_GZIP.search(request.META.get("HTTP_ACCEPT_ENCODING", "")) else "id"
    return versioned_key("page", language, encoding, _url_digest(request))


def storable(request, response, match):
    """Whether ``response`` may be kept for every anonymous reader of this URL."""
    if response.status_code != 200 or response.streaming or response.cookies:
        return False
    known = KNOWN_PARAMETERS_OF.get(match.view_name, KNOWN_PARAMETERS)
    if any(key not in known for key in request.GET):
        return False
    directives = {
        d.strip().split("=")[0].lower() for d in response.get("Cache-Control", "").split(",")
    }
    if "public" not in directives or directives & NOT_STORABLE_DIRECTIVES:
        return False
    vary = {v.strip().lower() for v in response.get("Vary", "").split(",") if v.strip()}
    return vary <= STORABLE_VARY


def browser_max_age(match):
    """The max-age the view sends (feeds: ``BIJI_FEED_MAX_AGE``)."""
    if "feeds" in match.namespaces:
        return settings.BIJI_FEED_MAX_AGE
    return settings.BIJI_PAGE_MAX_AGE


def max_age_now(state, max_age):
    """``max_age``, never past the next scheduled publication."""
    left = state.seconds_until_next_publication()
    return max_age if left is None else min(max_age, int(left))


def add_validators(response, state, etag):
    response.headers["ETag"] = etag
    if state.last_modified is not None:
        response.headers["Last-Modified"] = formatdate(state.last_modified.timestamp(), usegmt=True)


def add_policy(response, state):
    """``s-maxage`` on a public response; its max-age capped before a scheduled publication."""
    left = state.seconds_until_next_publication()
    patch_cache_control(response, s_maxage=max_age_now(state, shared_max_age()))
    if left is not None:
        current = re.search(r"(?<![-\w])max-age=(\d+)", response.get("Cache-Control", ""))
        if current and int(current.group(1)) > left:
            patch_cache_control(response, max_age=int(left))


def _freeze(response):
    return (response.status_code, list(response.items()), response.content)


def _thaw(frozen, request):
    status, headers, content = frozen
    response = HttpResponse(b"" if request.method == "HEAD" else content, status=status)
    for name, value in headers:
        response.headers[name] = value
    return response


class PageCacheMiddleware:
    """Conditional GETs before the view, then the shared page cache (module docstring)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        match = is_public_request(request)
        if match is None:
            return self.get_response(request)
        state = version.current()
        language = translation.get_language()
        etag = etag_for(state, request, language)

        last_modified = int(state.last_modified.timestamp()) if state.last_modified else None
        not_modified = get_conditional_response(request, etag=etag, last_modified=last_modified)
        if not_modified is not None:
            add_validators(not_modified, state, etag)
            patch_cache_control(
                not_modified,
                public=True,
                max_age=max_age_now(state, browser_max_age(match)),
                s_maxage=max_age_now(state, shared_max_age()),
            )
            patch_vary_headers(not_modified, ["Accept-Encoding"])
            return not_modified

        seconds = cache_seconds()
        key = cache_key(request, language) if seconds else None
        if key:
            frozen = store.get(key)
            if frozen is not None:
                response = _thaw(frozen, request)
                response.headers[HEADER] = "hit"
                return response

        response = self.get_response(request)
        if response.status_code != 200 or "public" not in response.get("Cache-Control", ""):
            return response
        add_validators(response, state, etag)
        add_policy(response, state)
        if key and request.method == "GET" and storable(request, response, match):
            store.set(key, _freeze(response), seconds)
        response.headers[HEADER] = "miss"
        return response


class PublicGZipMiddleware(GZipMiddleware):
    """gzip for the public site only.

    BREACH needs a secret reflected in a compressed response beside attacker-chosen text.
    Public pages hold no secret (no CSRF token: their only form, search, is a GET; no session
    data); the admin's pages carry CSRF tokens, so they are sent uncompressed whatever the
    client accepts. Placed inside :class:`PageCacheMiddleware`, so the page cache stores the
    compressed bytes (keyed by whether the client accepts gzip) and a hit costs no compression.
    """

    def process_response(self, request, response):
        if request.path_info.startswith("/" + settings.BIJI_ADMIN_PATH):
            return response
        return super().process_response(request, response)
