"""Public pages answered before any view runs: conditional GETs and the page cache.

For an anonymous GET or HEAD of a public page or feed, :class:`PageCacheMiddleware` answers an
ETag of the current state with ``304``, serves a kept page while its parts' versions stand, or
runs the view and keeps the page if :func:`storable` (docs/caching.md follows a request).
"""

import functools
import hashlib
import re
from dataclasses import dataclass, replace

from django.conf import settings
from django.http import HttpResponse
from django.middleware.gzip import GZipMiddleware
from django.urls import Resolver404, get_resolver, get_urlconf
from django.utils import translation
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers

from blog.caching import author, canonical, edge, near, parts, release, store, validators, version
from blog.caching.encoding import accepts_gzip

# Views whose response depends on the content version, the URL and the language only.
PUBLIC_NAMESPACES = {"blog", "feeds", "markdown"}  # markdown: the notes' sources, llms.txt
NOT_PUBLIC = {"blog:note-share", "blog:search", "blog:subscribe-confirm", "blog:unsubscribe"}
PUBLIC_VIEW_NAMES = {"sitemap", "sitemap-section"}
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


# Resolving a path walks the admin's and every other pattern before the blog's, a large part of
# a page-cache hit. The answer depends only on the URLconf (the resolver, renewed when the
# URLconf changes), the path and the interface language (the /en/ prefix), so it never goes
# stale; bounded, so made-up paths cannot grow it without limit.
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
    """The URL match of a request the cache may answer, or None: only the author's marker takes a
    request past it, not a session cookie or ``Authorization`` header."""
    if request.method not in ("GET", "HEAD") or author.is_author(request):
        return None
    return public_view(request.path_info)


def _url_digest(request):
    return hashlib.md5(request.get_full_path().encode(), usedforsecurity=False).hexdigest()


def cache_key(request, language):
    gzip = accepts_gzip(request.META.get("HTTP_ACCEPT_ENCODING", ""))
    encoding = "gzip" if gzip else "id"
    return f"page:{release.fingerprint()}:{language}:{encoding}:{_url_digest(request)}"


@dataclass(frozen=True)
class Entry:
    """A kept page, served while the parts' versions and schedule key it shows are current.
    ``made_at``: the state's key when they were last read; while it is current, nothing changed."""

    schedule_key: str
    versions: dict
    etag: str
    frozen: tuple
    made_at: str

    def is_current(self, state, versions):
        return state.schedule_key == self.schedule_key and versions == self.versions


def storable(request, response, match):
    """Whether ``response`` may be kept for every anonymous reader of this URL."""
    if response.status_code != 200 or response.streaming or response.cookies:
        return False
    if not canonical.is_canonical(request, match):
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


def add_policy(response, state):
    """``s-maxage`` on a public response; its max-age capped before a scheduled publication."""
    left = state.seconds_until_next_publication()
    patch_cache_control(response, s_maxage=max_age_now(state, shared_max_age()))
    if left is not None:
        current = re.search(r"(?<![-\w])max-age=(\d+)", response.get("Cache-Control", ""))
        if current and int(current.group(1)) > left:
            patch_cache_control(response, max_age=int(left))


def edge_may_keep(response, keep, names):
    """Name the page's parts for an edge cache when biji would keep it itself (the same rules,
    so an edge never keeps what a purge cannot reach); otherwise, with an edge purged by biji,
    keep the page out of shared caches."""
    if keep:
        edge.name_parts(response, names)
    elif edge.enabled():
        edge.not_at_the_edge(response)


def _freeze(response):
    return (response.status_code, list(response.items()), response.content)


def _thaw(frozen, request):
    status, headers, content = frozen
    response = HttpResponse(b"" if request.method == "HEAD" else content, status=status)
    for name, value in headers:
        response.headers[name] = value
    return response


class PageCacheMiddleware:
    """Conditional GETs before the view, then the page cache (module docstring)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        match = is_public_request(request)
        if match is None:
            response = self.get_response(request)
            author.follow_session(request, response)
            if author.is_author(request):  # what the author sees is theirs alone
                patch_cache_control(response, private=True)
            return response
        # Raises DisallowedHost (a 400) for a host outside ALLOWED_HOSTS, as Django would.
        request.get_host()
        language = translation.get_language()
        seconds = cache_seconds()
        if not seconds:
            return self.validated(request, match, language)
        if validators.answers_before_view(request):
            state = version.current()
            if held := validators.made_now(request, state, language):
                modified = validators.last_modified(state)
                if not_modified := self.not_modified(request, match, state, held, modified):
                    return not_modified
        key = cache_key(request, language)
        known = {}
        for entry in self.copies(key, seconds):
            state = version.current()  # one short query
            if entry.made_at == state.key:
                return self.kept(request, match, entry, state, language)
            # Something changed since: one more query reads the versions of the page's parts.
            state, known = version.current_with_parts(entry.versions)
            if entry.is_current(state, known):
                # Kept as checked at this state: the next hit is one short query again.
                entry = replace(entry, made_at=state.key)
                if store.set(key, entry, seconds):
                    near.put(key, entry, seconds)
                return self.kept(request, match, entry, state, language)

        state = version.current()  # before the view reads anything (see below)
        with parts.collecting() as names, validators.hidden_preconditions(request):
            response = self.get_response(request)
        if response.status_code != 200 or "public" not in response.get("Cache-Control", ""):
            return response
        after, versions = self.versions_shown(state, names, known)
        etag = validators.etag_for(after, versions, request, language)
        modified = validators.last_modified(state)
        validators.add_validators(response, etag, modified)
        add_policy(response, state)
        keep = after.version == state.version and storable(request, response, match)
        edge_may_keep(response, keep, versions)
        if keep and request.method == "GET":
            entry = Entry(after.schedule_key, versions, etag, _freeze(response), after.key)
            if store.set(key, entry, seconds):
                near.put(key, entry, seconds)
        response.headers[HEADER] = "miss"
        return validators.evaluate(request, response, etag, modified)

    @staticmethod
    def copies(key, seconds):
        """A page's kept entries: this worker's copy, then the shared cache's when it differs
        (another worker may have renewed it), which becomes this worker's."""
        mine = near.get(key)
        if mine is not None:
            yield mine
        shared = store.get(key)
        if shared is None or (
            mine is not None and (shared.etag, shared.made_at) == (mine.etag, mine.made_at)
        ):
            return
        near.put(key, shared, seconds)
        yield shared

    @staticmethod
    def versions_shown(state, names, known):
        """The state and versions of the parts a page just showed: those read before it rendered
        (older at worst: it renders again), or read now with the counter, which an edit committed
        meanwhile moves, so that the page is not kept."""
        if names <= known.keys():
            return state, {name: known[name] for name in sorted(names)}
        return version.current_with_parts(names)

    def kept(self, request, match, entry, state, language):
        """The kept page, or a ``304`` when the client holds it."""
        etag = entry.etag
        modified = validators.last_modified(state)
        if not_modified := self.not_modified(request, match, state, etag, modified):
            return not_modified
        response = _thaw(entry.frozen, request)
        validators.add_validators(response, etag, modified)
        response.headers[HEADER] = "hit"
        return validators.evaluate(request, response, etag, modified)

    def validated(self, request, match, language):
        """With the page cache off: validators from the content state alone, so a conditional
        request is still answered before the view."""
        state = version.current()
        etag = validators.etag_for(state, {"content": state.key}, request, language)
        modified = validators.last_modified(state)
        if not_modified := self.not_modified(request, match, state, etag, modified):
            return not_modified
        with parts.collecting() as names, validators.hidden_preconditions(request):
            response = self.get_response(request)
        if response.status_code != 200 or "public" not in response.get("Cache-Control", ""):
            return response
        validators.add_validators(response, etag, modified)
        add_policy(response, state)
        if edge.enabled():  # the parts' names, and whether an edit came in meanwhile
            after, versions = version.current_with_parts(names)
            keep = after.version == state.version and storable(request, response, match)
            edge_may_keep(response, keep, versions)
        response.headers[HEADER] = "miss"
        return validators.evaluate(request, response, etag, modified)

    @staticmethod
    def not_modified(request, match, state, etag, modified):
        """A ``304`` for an ``If-None-Match`` naming ``etag`` (None otherwise)."""
        if not validators.answers_before_view(request):
            return None
        not_modified = get_conditional_response(request, etag=etag)
        if not_modified is not None:
            validators.add_validators(not_modified, etag, modified)
            patch_cache_control(
                not_modified,
                public=True,
                max_age=max_age_now(state, browser_max_age(match)),
                s_maxage=max_age_now(state, shared_max_age()),
            )
            patch_vary_headers(not_modified, ["Accept-Encoding"])
        return not_modified


class PublicGZipMiddleware(GZipMiddleware):
    """gzip for the public site only, and only for clients that take it
    (:func:`blog.caching.encoding.accepts_gzip`): the admin's pages carry CSRF tokens (BREACH).
    Inside :class:`PageCacheMiddleware`, so the page cache keeps the compressed bytes."""

    def process_response(self, request, response):
        if request.path_info.startswith("/" + settings.BIJI_ADMIN_PATH):
            return response
        if not accepts_gzip(request.META.get("HTTP_ACCEPT_ENCODING", "")):
            if not response.has_header("Content-Encoding"):
                patch_vary_headers(response, ("Accept-Encoding",))
            return response
        return super().process_response(request, response)
