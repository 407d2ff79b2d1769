"""The one rule for trusting a cached copy: it was made at the current content state.

Memoised counts, list entries and the site settings live under a key that begins with the kind
of thing and the content state's key (:attr:`blog.caching.version.State.key`: the release, the
version, and the next scheduled publication). When content changes, a deploy happens or a
scheduled note comes due, the state's key changes and every old copy is simply never asked for
again: nothing is invalidated by hand, and old entries expire on their own.

Pages apply the same rule more finely: a kept page is trusted while the parts of the content it
shows are at the versions it was made at (:mod:`blog.caching.parts`, :mod:`blog.caching.pages`).
"""

from django.db import DEFAULT_DB_ALIAS

from blog.caching import version


def versioned_key(kind: str, *parts, using=DEFAULT_DB_ALIAS) -> str:
    """``kind:<state key>:part:part…`` for the current content state of database ``using``."""
    return ":".join([kind, version.current(using).key, *map(str, parts)])
