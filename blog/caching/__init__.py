"""What readers are served from: the content version and everything keyed by it.

One front door for the rest of biji. The rule for trusting a copy is defined once
(:mod:`.keys`): a copy is used only under the key of the content state it was made at, so an
edit, a deploy or a scheduled note coming due gives new keys and nothing is ever invalidated
by hand. Pages are finer-grained (:mod:`.parts`): a kept page names the parts of the content
it shows and is served while their versions stand, so an edit re-renders only the pages that
show what it changed.

* :func:`current_state` (:mod:`.version`): the content version, one query a request;
  :func:`bump_after_commit` moves it with the parts a change touched (receivers in
  :mod:`.receivers` decide which);
* :mod:`.parts`: the parts a page shows; views name them with ``parts.depend_on``;
* :func:`memoised` (:mod:`.memo`): a value computed once per state (counts, dates, a list
  page's notes, a note page's data);
* :func:`rendered_entries` (:mod:`.fragments`): list entries rendered once per state and
  language, shared by every list that shows a note;
* :func:`site_settings` (:mod:`.settings_copy`): the settings' copy every page reads;
* :mod:`.chrome`: the header, footer and head links, kept per state and language in each
  process (``{% chrome %}`` in ``base.html``);
* :mod:`.pages`: the middleware answering conditional GETs and serving anonymous pages from
  the shared page cache (configured in settings.MIDDLEWARE), with :mod:`.validators` (ETag,
  Last-Modified, preconditions), :mod:`.canonical` (which URLs are stored), :mod:`.author`
  (the signed cookie that takes the author past the cache) and :mod:`.encoding` (gzip);
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
