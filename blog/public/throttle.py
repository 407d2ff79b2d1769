"""At most so many requests in a window, counted atomically in the cache (``add``, ``incr``): the
subscribe form's limits. With the cache away nothing is counted; what must hold is in the database
(:mod:`blog.mail.subscribing`)."""

import hashlib
import logging

from django.core.cache import caches

from blog.caching.store import cache_errors

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
    except cache_errors() as error:
        logger.warning("Throttle %s not counted: the cache is unavailable (%s).", scope, error)
        return True
    return count <= limit
