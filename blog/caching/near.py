"""Each worker's own copies of the pages it served last, in front of a shared page cache.

With Redis, serving a kept page costs a round trip and unpickling; a blog's popular pages are
few, so each worker keeps the :class:`~blog.caching.pages.Entry` objects it read or wrote last,
up to ``BIJI_NEAR_PAGES`` (least recently used out first), for as long as the shared cache
keeps them, and the page cache middleware looks here first.

A copy is checked against the database exactly as a shared entry is, never served on trust.
It can only be older than the shared one (another worker may have checked or replaced that),
so a copy that fails the check sends the middleware to the shared cache before rendering.
Copies mirror the shared cache: a page is copied when read from it or stored in it, never when
storing failed, so an outage keeps nothing new.

Off where the cache is already each worker's memory (the embedded default) or keeps nothing.
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
