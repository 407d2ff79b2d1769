"""What storing a file renders, rendered before its write transaction opens.

On SQLite that transaction (:mod:`.importer`) holds the only write lock, and a render may take
up to its bound (:mod:`blog.rendering.budget`): the save inside finds the renders memoised.

May import: :mod:`blog.models`, :mod:`blog.rendering`.
"""

from dataclasses import dataclass

from blog.models import Note, Page
from blog.models.translations import render_ahead_as_pair


@dataclass(frozen=True)
class Prepared:
    """A file's text as it will be stored: links pointing at the stored files."""

    body: str
    cover: str = ""


def note(record, prepared, stored=None, partner=None):
    """Render what saving ``record`` as a note (into ``stored``, linked to ``partner``) renders."""
    ahead = stored or Note()
    ahead.body, ahead.language, ahead.summary = prepared.body, record.language, record.summary
    ahead.cover, ahead.cover_alt = prepared.cover, record.cover_alt
    if partner is not None:
        ahead.translation = partner
    ahead.render_ahead()
    if partner is not None:
        render_ahead_as_pair(partner)


def page(record, prepared):
    """Render what saving ``record`` as a page renders."""
    Page(body=prepared.body, language=record.language).render_ahead()
