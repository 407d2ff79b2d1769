"""A note as a citation (:class:`blog.text.citation.record.Citation`): its authors, translators
and, for a translated article, the original it translates, from the note and the site's settings
alone, without a query.

Who is credited: a note is by the site's author and its co-authors (:mod:`blog.models.credits`);
a translated article is by the original's author, and translated by the note's translator or,
when none is named, by the site's author and co-authors, who published it. The address is the
note's own, in its language, whichever interface asked.
"""

from django.utils import timezone, translation

from blog.models.credits import authors_of
from blog.text.citation.record import Citation, Original, clean, names
from blog.text.site_url import absolute_url
from blog.text.validators import safe_url

# What a citation reads of a note (a view loading fewer columns reads them here).
FIELDS = (
    "title", "slug", "language", "published_at", "source_title", "source_author", "source_url",
    "source_date", "translator", "coauthors",
)  # fmt: skip


def citation_of(note, site) -> Citation:
    writers = authors_of(note, clean(site.author))
    original = None
    if note.is_translated_article:
        original = Original(
            title=clean(note.source_title),
            authors=names([note.source_author]),
            url=safe_url(note.source_url) or "",
            published=note.source_date,
        )
        authors = original.authors
        translators = names([note.translator]) if clean(note.translator) else names(writers)
    else:
        authors = names(writers)
        translators = names([note.translator])
    return Citation(
        key=note.slug,
        title=clean(note.title),
        language=note.language,
        url=absolute_url(note_path(note)),
        site=clean(site.title),
        published=timezone.localdate(note.published_at) if note.published_at else None,
        authors=authors,
        translators=translators,
        original=original,
        licence=clean(site.licence),
        licence_url=safe_url(site.licence_url) or "",
    )


def note_path(note) -> str:
    """The note's path in its own language's interface."""
    with translation.override(note.language):
        return note.get_absolute_url()
