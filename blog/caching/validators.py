"""A public page's validators and conditional requests, from the content version.

**ETag**: weak, a digest of the versions of the parts the page shows
(:mod:`blog.caching.parts`), the next scheduled publication, the release, the interface
language and the URL; it names one URL showing those parts at those versions, and is only ever
sent on a 200. So an ``If-None-Match`` that matches it proves the URL is that page now:
:func:`answers_before_view` lets the page cache answer it ``304`` before any view runs (one
query, the state with the parts' versions). An edit elsewhere leaves it as it is.

**Last-Modified** is ``State.last_modified`` in whole seconds, which cannot tell apart two
states in the same second: a client that saw the first of two edits made in one second and
revalidated by date alone would get a ``304`` for the second. So the date is tied to the state
(:func:`last_modified`): once the second of the last change is over (plus :data:`MARGIN` for a
bump still on its way to the database), no later state can share it, and the page carries
that second, which ``If-Modified-Since`` is judged against. Until then the page carries the
second before, which any later state's date is past, and no date answers ``304``: a client
that holds a date either saw the one state of that second, or is sent the page again.

Every other precondition (``If-Modified-Since`` alone, ``If-None-Match: *``, ``If-Match``,
``If-Unmodified-Since``) is evaluated on the page itself, cached or fresh
(:func:`evaluate`): a date or ``*`` says nothing about whether the URL exists, so a 404 stays a
404. While the view runs, those headers are hidden from it (:func:`hidden_preconditions`):
Django's ConditionalGetMiddleware would otherwise judge them by a view's own dates (a feed's
newest entry), which a tag rename or a new site title does not move.
"""

import contextlib
import functools
import hashlib
import time
from dataclasses import dataclass
from email.utils import formatdate

from django.utils.cache import get_conditional_response

MARGIN = 1  # seconds after a second ends before its date is given out
PRECONDITIONS = (
    "HTTP_IF_MATCH",
    "HTTP_IF_NONE_MATCH",
    "HTTP_IF_MODIFIED_SINCE",
    "HTTP_IF_UNMODIFIED_SINCE",
)


def etag_for(state, versions, request, language):
    """The ETag of the page at ``request``'s URL showing the parts at ``versions``, read at
    ``state``: what it shows, then where and when it was made (:func:`made_now`)."""
    shown = " ".join(f"{name}={number}" for name, number in sorted(versions.items()))
    url = request.get_full_path()
    content = _md5(f"{state.schedule_key}|{shown}|{language}|{url}")
    return f'W/"{content[:16]}{_made_at(state, language, url)}"'


def made_now(request, state, language):
    """The ``If-None-Match`` ETag of this URL that was made at ``state`` itself, if any.

    Nothing has moved since such an ETag was sent (``State.key`` changes with every change, a
    deploy and a scheduled publication), so it is still the page's: a ``304`` needs no more
    than the state's one query. The second half of an ETag names the URL, the language and
    the state, so none made for another URL, or before a change, passes."""
    tail = _made_at(state, language, request.get_full_path())
    for etag in request.META["HTTP_IF_NONE_MATCH"].split(","):
        etag = etag.strip()
        if etag.startswith('W/"') and etag.endswith(f'{tail}"') and len(etag) == 36:
            return etag
    return None


def _made_at(state, language, url):
    return _md5(f"{state.key}|{language}|{url}")[:16]


def _md5(text):
    return hashlib.md5(text.encode(), usedforsecurity=False).hexdigest()


@dataclass(frozen=True)
class LastModified:
    sent: int | None  # the POSIX second the Last-Modified header carries
    judged: int | None  # the one If-Modified-Since is compared with (None: never a 304)


def last_modified(state, now=None) -> LastModified:
    """The Last-Modified of ``state`` now (module docstring)."""
    if state.last_modified is None:
        return LastModified(None, None)
    second = int(state.last_modified.timestamp())
    now = time.time() if now is None else now
    if now >= second + 1 + MARGIN:
        return LastModified(second, second)
    return LastModified(second - 1, None)


def add_validators(response, etag, modified):
    """The state's ETag and Last-Modified (``modified``: from :func:`last_modified`)."""
    response.headers["ETag"] = etag
    if modified.sent is None:
        del response.headers["Last-Modified"]  # a view's own date (feeds, sitemaps) too
    else:
        response.headers["Last-Modified"] = _http_date(modified.sent)


@functools.lru_cache(maxsize=16)
def _http_date(second):
    # Every hit of a state formats the same second: once is enough.
    return formatdate(second, usegmt=True)


def answers_before_view(request) -> bool:
    """Whether the request's preconditions can be judged without the page: an
    ``If-None-Match`` naming ETags (and no ``If-Match``/``If-Unmodified-Since``, judged on the
    page)."""
    meta = request.META
    none_match = meta.get("HTTP_IF_NONE_MATCH", "").strip()
    return (
        bool(none_match)
        and none_match != "*"
        and "HTTP_IF_MATCH" not in meta
        and "HTTP_IF_UNMODIFIED_SINCE" not in meta
    )


def evaluate(request, response, etag, modified):
    """``response`` (a 200 page), or the ``304``/``412`` its preconditions call for."""
    if not any(name in request.META for name in PRECONDITIONS):
        return response  # most requests: nothing to parse
    return get_conditional_response(
        request, etag=etag, last_modified=modified.judged, response=response
    )


@contextlib.contextmanager
def hidden_preconditions(request):
    """The view runs as for an unconditional request; the headers are back afterwards."""
    hidden = {name: request.META.pop(name) for name in PRECONDITIONS if name in request.META}
    try:
        yield
    finally:
        request.META.update(hidden)
