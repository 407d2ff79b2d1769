"""What readers are served from: the content state and every copy keyed by it (docs/caching.md).

May import: :mod:`blog.models`, :mod:`blog.text`, :mod:`blog.rendering`.
"""

from blog.caching.fragments import rendered_entries
from blog.caching.memo import memoised
from blog.caching.settings_copy import site_settings
from blog.caching.version import bump, bump_after_commit
from blog.caching.version import current as current_state

__all__ = [
    "bump",
    "bump_after_commit",
    "current_state",
    "memoised",
    "rendered_entries",
    "site_settings",
]
