"""The parts of what readers see, so that an edit empties only the pages showing what changed.

A public page names, while it renders, the parts it shows (:func:`depend_on`); the page cache
keeps it with their versions and serves it only while every one of them is unchanged
(:mod:`blog.caching.pages`). The parts:

* :data:`SITE`: the frame of every page (site settings, navigation, the pages it links), named
  by every page; also what a change that names no part moves (a restore, an import, a bulk
  ``QuerySet.update()``), so that such a change still empties everything;
* :func:`note` ``(pk)``: what a page shows of one note: its own page, its entry in a list, an
  item of a feed, a link to it (title, excerpt, URL, tags, series, translation);
* :data:`NOTES`: which notes the lists of all notes hold, in which order (home, archive, the
  site's feeds); :func:`tag` ``(pk)`` and :func:`series` ``(pk)`` the same for a tag's or a
  series' own lists (and its name); :data:`TAGS` and :data:`SERIES_INDEX` the indexes and
  their counts; :data:`SITEMAP` the sitemaps (every note's URL and date);
* :data:`GLOSSARY`: the glossary's terms, their forms and definitions, and which notes use or
  explain each (the glossary pages; the notes they list name their own parts).

What a change moves is decided once, in :mod:`blog.caching.receivers` (a note's text edited:
``note:<pk>`` and the sitemap; published, unpublished or redated: also the lists it enters or
leaves).

Versions are random numbers kept in the database (:class:`blog.models.PartVersion`), moved
after the commit in the same transaction as the content version (:mod:`blog.caching.version`),
and read with the content state in one query: a cache outage or eviction can lose a page, never
make an old one look current, and no two states of a part share a version (a restored
database, a deleted row) the way counters would.
"""

import contextlib

from asgiref.local import Local

SITE = "site"
NOTES = "notes"
TAGS = "tags"
SERIES_INDEX = "series"
SITEMAP = "sitemap"
GLOSSARY = "glossary"


def note(pk) -> str:
    return f"note:{pk}"


def tag(pk) -> str:
    return f"tag:{pk}"


def series(pk) -> str:
    return f"series:{pk}"


_collected = Local()  # per thread/task: the parts the page being rendered named so far


@contextlib.contextmanager
def collecting():
    """Collect the parts named while the block runs (a page's view): yields the set, which
    already holds :data:`SITE`."""
    outer = getattr(_collected, "names", None)
    names = _collected.names = {SITE}
    try:
        yield names
    finally:
        _collected.names = outer


def depend_on(*names) -> None:
    """The page being rendered shows these parts (nothing happens outside :func:`collecting`:
    the admin, a preview, a management command)."""
    collected = getattr(_collected, "names", None)
    if collected is not None:
        collected.update(names)
