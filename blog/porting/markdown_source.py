"""A published note's Markdown source as readers and tools fetch it (``<note URL>index.md``).

It is the file biji's export writes for the note (:mod:`.export`, Hugo's keys, its default):
the same body and the same front matter, made by the export's own functions, followed by what
a copy read away from the site needs besides: ``url`` (the note's page), ``translation`` (its
published translation's page) and ``licence`` with ``licence_url`` (the site settings'; "All
rights reserved" when none is set). A translation not yet published is not named: the pair's
keys (``translationKey``, ``translation_synced``) are left out until it is, as its page leaves
out the link.
"""

from dataclasses import dataclass

from django.utils import translation

from blog.caching import parts
from blog.models import Note
from blog.porting import export, frontmatter
from blog.porting.formats import HUGO
from blog.text.site_url import absolute_url
from blog.text.slug_urls import slug_path

FORMAT = HUGO  # `manage.py export_markdown`'s default: the keys a reader most likely knows
MEDIA_TYPE = "text/markdown; charset=utf-8"
ALL_RIGHTS_RESERVED = "All rights reserved"
# The export's fields that name a translation: said only of a pair whose two notes are public.
PAIR_FIELDS = ("translation_key", "synced_hashes")
# The keys a source adds to the export's, in this order.
READER_KEYS = ("url", "translation", "licence", "licence_url")
SOURCE_VIEW = "markdown:note"
SIDES = ("translation", "translated_from")


def source_path(slug, language):
    """The path of the source of the note at ``slug`` written in ``language``, in that
    language's interface: the one a link names (the other interface's redirects to it)."""
    with translation.override(language):
        return slug_path(SOURCE_VIEW, slug)


def page_url(note):
    """The absolute URL of ``note``'s page, in its own language's interface."""
    with translation.override(note.language):
        return absolute_url(note.get_absolute_url())


def licence_of(site):
    """(name, URL) of the terms the notes may be reused under; no name: all rights reserved."""
    name = site.licence.strip()
    if not name:
        return ALL_RIGHTS_RESERVED, ""
    return name, site.licence_url.strip()


def public_counterpart(note):
    counterpart = note.counterpart
    return counterpart if counterpart is not None and counterpart.is_published() else None


def reader_fields(note, site):
    """The keys a source adds to the export's (:data:`READER_KEYS`), empty ones left out."""
    counterpart = public_counterpart(note)
    name, url = licence_of(site)
    fields = {
        "url": page_url(note),
        "translation": page_url(counterpart) if counterpart else "",
        "licence": name,
        "licence_url": url,
    }
    return {key: fields[key] for key in READER_KEYS if fields[key]}


def source_meta(note, site):
    """The source's front matter: the export's for ``note``, then :func:`reader_fields`."""
    meta = export.front_matter(export.note_fields(note, FORMAT), FORMAT, note.body)
    if public_counterpart(note) is None:
        for field in PAIR_FIELDS:
            meta.pop(FORMAT.key_for(field), None)
    return {**meta, **reader_fields(note, site)}


def source_text(note, site):
    """``note``'s Markdown source: :func:`source_meta` as YAML, a blank line, the body."""
    return frontmatter.join(source_meta(note, site), note.body)


def published_sources():
    """Published notes with what their sources read, in a fixed number of queries however many
    are read (iterate with a ``chunk_size``: one query for the notes, three a chunk for their
    tags, old paths and corrections). What rendering derives
    from the body is left in the database, as the export leaves it."""
    derived = Note.derived_fields
    return (
        Note.objects.published()
        .select_related("series", *SIDES)
        .prefetch_related("tags", "legacy_paths", "corrections")
        .defer(*derived, *(f"{side}__{name}" for side in SIDES for name in derived))
    )


@dataclass(frozen=True)
class Source:
    """One note's source as its URL serves it, kept once per content version."""

    language: str
    text: str
    page_url: str
    parts: tuple  # what it shows (blog.caching.parts): the note's, its translation's


def source_at(slug, site):
    """The :class:`Source` of the published note at ``slug``, or None."""
    note = published_sources().filter(slug=slug).first()
    if note is None:
        return None
    shown = [note.pk] + ([note.counterpart.pk] if note.counterpart else [])
    return Source(
        language=note.language,
        text=source_text(note, site),
        page_url=page_url(note),
        parts=tuple(parts.note(pk) for pk in shown),
    )
