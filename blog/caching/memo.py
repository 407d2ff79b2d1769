"""Values computed once per content state: counts and dates that would otherwise read every
note on every request (tag counts, archive months, list totals, feed dates), and what a page
the page cache does not hold would read again (a list page's notes, a published note's page
data: another worker, the other encoding or a URL with a tracking query renders it again).

``memoised(name, compute)`` keeps ``compute()``'s result in the shared cache under the current
state's key (:func:`blog.caching.keys.versioned_key`), so the first request after a change pays
for it and every other request, in every worker, reads it. With the cache down, the value is
computed every time.

``keep`` decides which results are kept (default: all): a value looked up by something a
visitor types (a note's slug) is kept only when found, so made-up URLs add no entries.
"""

from blog.caching import store
from blog.caching.keys import versioned_key

TIMEOUT = 86400
_MISSING = object()


def memoised(name, compute, timeout=TIMEOUT, *, keep=None):
    key = versioned_key("memo", name)
    value = store.get(key, _MISSING)
    if value is _MISSING:
        value = compute()
        if keep is None or keep(value):
            store.set(key, value, timeout)
    return value
