"""Cache reads and writes that never fail: an unreachable server is a miss, a warning at most once
a minute and no retry for :data:`RETRY_AFTER` seconds (pair with a short ``socket_timeout``).
"""

import logging
import sys
import threading
import time

from django.core.cache import caches

logger = logging.getLogger(__name__)

RETRY_AFTER = 5.0  # seconds without trying the cache after a failure
WARN_EVERY = 60.0  # seconds between two warnings about the same outage

_MISSING = object()


# What a cache outage raises: sockets, and redis-py's own (a dependency); ConnectionError and
# TimeoutError with their subclasses (BusyLoadingError...), plus ResponseError (a server refusing
# writes: OOM, MISCONF when it cannot save).
_SOCKET_ERRORS = (OSError, ConnectionError, TimeoutError)


def cache_errors() -> tuple[type[Exception], ...]:
    """The exceptions that mean the cache is out, for ``except cache_errors()`` (evaluated only
    when something was raised). redis-py's are among them once the process has loaded it, which
    Django's Redis cache does on its first use: a process on another cache never loads the
    client (~0.1 s of every start of manage.py or a worker)."""
    redis = sys.modules.get("redis.exceptions")
    if redis is None:
        return _SOCKET_ERRORS
    return (*_SOCKET_ERRORS, redis.ConnectionError, redis.TimeoutError, redis.ResponseError)


class _Breaker:
    """Per process and cache alias: when the cache failed last, and when we last said so."""

    def __init__(self):
        self.lock = threading.Lock()
        self.down_until = {}
        self.warned_at = {}

    def is_open(self, alias):
        return time.monotonic() < self.down_until.get(alias, 0.0)

    def trip(self, alias, operation, error):
        now = time.monotonic()
        with self.lock:
            self.down_until[alias] = now + RETRY_AFTER
            warn = now - self.warned_at.get(alias, -WARN_EVERY) >= WARN_EVERY
            if warn:
                self.warned_at[alias] = now
        if warn:
            logger.warning(
                "Cache %r unavailable (%s failed: %s: %s); serving from the database, "
                "retrying every %.0f s.",
                alias,
                operation,
                type(error).__name__,
                error,
                RETRY_AFTER,
            )

    def reset(self, alias=None):
        with self.lock:
            if alias is None:
                self.down_until.clear()
                self.warned_at.clear()
            else:
                self.down_until.pop(alias, None)


_breaker = _Breaker()


def reset(alias=None):
    """Forget past failures (tests; an operator who just restarted the cache)."""
    _breaker.reset(alias)


def _call(alias, operation, default, *args, **kwargs):
    if _breaker.is_open(alias):
        return default
    try:
        return getattr(caches[alias], operation)(*args, **kwargs)
    except cache_errors() as error:
        _breaker.trip(alias, operation, error)
        return default


def get(key, default=None, *, alias="default"):
    """The cached value, or ``default`` when it is missing or the cache is unreachable."""
    value = _call(alias, "get", _MISSING, key, _MISSING)
    return default if value is _MISSING else value


def set(key, value, timeout=None, *, alias="default"):  # noqa: A001 (the cache API's name)
    """Store ``value``; True when it was stored. ``timeout`` in seconds (None: forever)."""
    return _call(alias, "set", False, key, value, timeout) is not False


def get_many(keys, *, alias="default"):
    """``{key: value}`` of the keys found, in one round trip."""
    return _call(alias, "get_many", {}, keys)


def set_many(values, timeout=None, *, alias="default"):
    """Store every ``{key: value}``; False when the cache is unreachable."""
    return _call(alias, "set_many", False, values, timeout) is not False


def delete(key, *, alias="default"):
    """Remove ``key``; False when the cache is unreachable."""
    return bool(_call(alias, "delete", False, key))
