"""The one rule for trusting a cached copy: it was made at the current content state.

Every shared copy but a page (memos, list entries, the site settings' copy) lives under
:func:`versioned_key`, whose key names the content state (:attr:`blog.caching.version.State.key`:
release, version, next scheduled publication), and for at most :data:`KEPT_SECONDS`. A change,
a deploy or a scheduled note coming due gives new keys; old entries are never asked for again
and expire on their own. Pages keep the same rule per part (:mod:`blog.caching.pages`).
docs/caching.md has every copy and its key.
"""

from django.db import DEFAULT_DB_ALIAS

from blog.caching import version

KEPT_SECONDS = 24 * 3600  # how long a copy under a versioned key lives, whatever its kind


def versioned_key(kind: str, *parts, using=DEFAULT_DB_ALIAS) -> str:
    """``kind:<state key>:part:part…`` for the current content state of database ``using``."""
    return ":".join([kind, version.current(using).key, *map(str, parts)])
