"""A public page's validators and conditional requests, from the content state.

A matching weak ETag proves the URL is that page now, so it is answered before any view. Other
preconditions are judged on the page (:func:`evaluate`) and hidden from the view, whose own
dates (a feed's newest entry) a rename does not move.
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
    """The ETag of ``request``'s URL showing the parts at ``versions``, read at ``state``."""
    shown = " ".join(f"{name}={number}" for name, number in sorted(versions.items()))
    url = request.get_full_path()
    content = _md5(f"{state.schedule_key}|{shown}|{language}|{url}")
    return f'W/"{content[:16]}{_made_at(state, language, url)}"'


def made_now(request, state, language):
    """The ``If-None-Match`` ETag of this URL made at ``state`` itself, if any: nothing has moved
    since, so a ``304`` needs only the state's query."""
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
    """``state``'s Last-Modified now. Whole seconds cannot tell two edits of one second apart, so
    until that second and :data:`MARGIN` are over it is the second before, and no date answers
    ``304``."""
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
    """Whether the preconditions can be judged without the page: an ``If-None-Match`` naming ETags,
    and no ``If-Match`` or ``If-Unmodified-Since``."""
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
