"""What readers are served from: the content state and every copy keyed by it.

The one rule: a copy is used only while what it was made from is unchanged, which its key
says (:mod:`.keys`; pages per part, :mod:`.parts`). Nothing is invalidated by hand, but for the
settings' copy and the chrome, dropped at once when the settings are saved. docs/caching.md
has every copy, its key, and what to do for a new page or model.

* :func:`current_state` (:mod:`.version`): the content state, one query a request;
  :func:`bump_after_commit` moves it with the parts a change named (:mod:`.receivers`);
* :mod:`.parts`: the parts a page shows; views name them with ``parts.depend_on``;
* :func:`memoised` (:mod:`.memo`): a value computed once per state;
* :func:`rendered_entries` (:mod:`.fragments`): list entries rendered once per state and
  language;
* :func:`site_settings` (:mod:`.settings_copy`): the settings' copy every page reads;
* :mod:`.chrome`: the header, footer and head links, per state and language in each process;
* :mod:`.pages`: the middleware answering conditional GETs and serving anonymous pages from
  the page cache, with :mod:`.near` (each worker's copies), :mod:`.validators`,
  :mod:`.canonical`, :mod:`.author` and :mod:`.encoding`;
* :mod:`.store`: cache reads and writes that never fail (an outage costs speed, not pages);
* :mod:`.release`: the deploy's fingerprint, part of every key and ETag.

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
