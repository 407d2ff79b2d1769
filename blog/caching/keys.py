"""The one rule for trusting a cached copy: its key names the content state it was made at, so
a change, a deploy or a scheduled note coming due leaves old entries never asked for again.
"""

from django.db import DEFAULT_DB_ALIAS

from blog.caching import version

KEPT_SECONDS = 24 * 3600  # how long a copy under a versioned key lives, whatever its kind


def versioned_key(kind: str, *parts, using=DEFAULT_DB_ALIAS) -> str:
    """``kind:<state key>:part:part…`` for the current content state of database ``using``."""
    return ":".join([kind, version.current(using).key, *map(str, parts)])
