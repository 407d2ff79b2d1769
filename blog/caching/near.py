"""Each worker's own copies of the pages it served last, in front of a shared (Redis) page cache.
Checked like any kept page; made only of what the shared cache stored or held, so an outage
keeps nothing new. Off when the cache is already the worker's memory.
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
    """Keep ``entry`` for ``seconds``, dropping the least recently used copies past the bound."""
    most = bound()
    if most <= 0:
        return
    with _lock:
        _copies[key] = (entry, time.monotonic() + seconds)
        _copies.move_to_end(key)
        while len(_copies) > most:
            _copies.popitem(last=False)


def clear():
    """Forget every copy (tests: copies are checked when used)."""
    with _lock:
        _copies.clear()
