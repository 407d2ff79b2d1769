"""Each worker's own copies of the pages it served last, in front of a shared page cache.

With Redis, a kept page costs a round trip and unpickling each time it is served: ~0.2 ms of
CPU, a third of a hit, and the reason the warm mix served ~60% of what the embedded cache
serves (docs/performance.md, "Under real traffic"). A blog's popular pages are few, so each
worker keeps the :class:`~blog.caching.pages.Entry` objects it read or wrote last, up to
``BIJI_NEAR_PAGES`` (least recently used out first), and the page cache middleware looks here
before the shared cache.

A copy is never served on trust. An entry carries the content state it was checked at and the
versions of the parts it shows, and the middleware checks them against the database (the
query every page costs anyway) before serving it, from here or from the shared cache alike.
A copy here can only be older than the shared one, since another worker may have checked or
replaced that since: the middleware then asks the shared cache before rendering anything.

The copies mirror what the shared cache holds: a page is copied when it is read from there or
stored there, never when storing it failed. So while Redis is unreachable nothing new is kept
and a page renders on every request, as without copies (an outage is a miss); a copy made
before the outage is still served while the database says it is current.

Off where the cache is already each worker's memory (the embedded default) or keeps nothing
(Django's dummy cache).
"""

import threading
import time
from collections import OrderedDict

from django.conf import settings

NOT_SHARED = {
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
}

_lock = threading.Lock()
_copies = OrderedDict()  # key -> (entry, monotonic time it expires)


def bound():
    """How many pages a worker keeps: ``BIJI_NEAR_PAGES``, 0 when the cache is not shared."""
    if settings.CACHES["default"]["BACKEND"] in NOT_SHARED:
        return 0
    return settings.BIJI_NEAR_PAGES


def get(key):
    """This worker's copy of the entry kept under ``key``, or None."""
    with _lock:
        held = _copies.get(key)
        if held is None:
            return None
        entry, expires = held
        if time.monotonic() >= expires:
            del _copies[key]
            return None
        _copies.move_to_end(key)
        return entry


def put(key, entry, seconds):
    """Keep ``entry`` for ``seconds`` (as the shared cache does), dropping the least recently
    used copies past the bound."""
    most = bound()
    if most <= 0:
        return
    with _lock:
        _copies[key] = (entry, time.monotonic() + seconds)
        _copies.move_to_end(key)
        while len(_copies) > most:
            _copies.popitem(last=False)


def clear():
    """Forget every copy (tests; nothing in the site needs it: copies are checked when used)."""
    with _lock:
        _copies.clear()
