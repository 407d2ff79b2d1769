"""Values computed once per content state, in the shared cache. ``keep`` decides which are kept:
one looked up by a slug a visitor types only when found, so made-up URLs add no entries.
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
