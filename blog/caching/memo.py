"""Values computed once per content state, in the shared cache: counts and dates that would
read every note (tag counts, archive months, list totals, feed dates) and what a page the page
cache misses would read again (a list page's notes, a tag or series by slug, a published
note's page data).

``memoised(name, compute)`` returns ``compute()``'s result, kept under the current state's key
(:func:`blog.caching.keys.versioned_key`): the first request after a change pays for it, every
other one, in every worker, reads it. With the cache down it is computed every time.

``keep`` decides which results are kept (default: all): a value looked up by something a
visitor types (a slug) is kept only when found, so made-up URLs add no entries.
"""

from blog.caching import store
from blog.caching.keys import KEPT_SECONDS, versioned_key

_MISSING = object()


def memoised(name, compute, *, keep=None):
    key = versioned_key("memo", name)
    value = store.get(key, _MISSING)
    if value is _MISSING:
        value = compute()
        if keep is None or keep(value):
            store.set(key, value, KEPT_SECONDS)
    return value
