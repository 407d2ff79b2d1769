"""At most so many requests in a window, counted in the cache: the subscribe form's limits.

A counter per what requests are counted by (a client network, an email address), created
with the window as its lifetime by the first request and incremented atomically by each
(``add`` then ``incr``: atomic on Redis and in a process's memory), so concurrent requests
cannot slip past the limit together. Keys hold a digest, not the address itself.

Without ``REDIS_URL`` each worker process counts on its own; while the cache server is away
nothing is counted (the request is let through, as a cache outage costs speed, not pages):
the limits that must hold whatever happens are kept in the database by the code they
protect (one confirmation a day per address: :mod:`blog.mail.subscribing`).
"""

import hashlib
import logging

from django.core.cache import caches

from blog.caching.store import CACHE_ERRORS

logger = logging.getLogger(__name__)


def _key(scope, who):
    digest = hashlib.sha256(f"{scope}:{who}".encode()).hexdigest()[:32]
    return f"throttle:{scope}:{digest}"


def allow(scope, who, limit, window) -> bool:
    """Count one request of ``who`` in ``scope``; False once more than ``limit`` were made
    within ``window`` seconds of the first."""
    key = _key(scope, who)
    cache = caches["default"]
    try:
        cache.add(key, 0, timeout=window)
        try:
            count = cache.incr(key)
        except ValueError:  # expired or evicted since add(): this request starts a window
            cache.set(key, 1, timeout=window)
            count = 1
    except CACHE_ERRORS as error:
        logger.warning("Throttle %s not counted: the cache is unavailable (%s).", scope, error)
        return True
    return count <= limit
