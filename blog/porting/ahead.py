"""What storing a file renders, rendered before its write transaction opens.

Each file is stored in a transaction of its own (:mod:`.importer`); on SQLite that transaction
holds the database's only write lock from its first statement, so whatever runs inside it
stalls every other writer (an author saving, a reader subscribing, the worker). A render may
take up to its bound (:mod:`blog.rendering.budget`), so the note or page is rendered here
first, as its save will render it: the body, its blocks for the parallel view when the note
has or gets a translation, and that translation's too (linking a pair renders both). The save
inside the transaction finds the renders memoised. A text the renderer refuses raises
:class:`~blog.rendering.RenderRefused`, whose message says why in the report's language.

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
    """Render what saving ``record`` as a note renders: into ``stored`` (the note it updates,
    loaded for this alone; None: a new note), linked to ``partner`` when the import links it
    to one."""
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
