"""Values computed once per content version: counts and dates that would otherwise read every
note on every request (tag counts, archive months, list totals, feed dates).

``memoised(name, compute)`` keeps ``compute()``'s result in the shared cache under the
current version's key (:func:`blog.content_version.current`, the request's one query), so the
first request after a change pays for it and every other request, in every worker, reads it.
No invalidation: a change moves the version, and with it the key. Through
:mod:`blog.safe_cache`: with the cache down, the value is computed every time.

Inside a transaction (tests; a command) the version has not moved for the changes made in it
yet, so the value is computed without the memo.
"""

from django.db import connection

from . import content_version, safe_cache

TIMEOUT = 86400
_MISSING = object()


def memoised(name, compute, timeout=TIMEOUT):
    if connection.in_atomic_block:
        return compute()
    key = f"memo:{content_version.current().key}:{name}"
    value = safe_cache.get(key, _MISSING)
    if value is _MISSING:
        value = compute()
        safe_cache.set(key, value, timeout)
    return value
