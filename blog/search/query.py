"""Finding notes: the ranked ids of the published notes that match (the general plan, on any
database), then one page of them.

The search page calls these where the database's own plan in rank order (:mod:`.ranked`,
:mod:`.newest_first`) does not answer: one query for the ranked ids and count, one for the page's
notes. At most :data:`LISTED` are listed.
"""

from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import F, Q
from django.utils import timezone

from blog.models import Note, Status, Tag
from blog.models.notes import in_interface
from blog.search.backends import backend_for
from blog.search.highlight import highlight, snippet
from blog.search.text import Query

PER_PAGE = 10
# Results listed (and counted) at most: a search matching more says so and lists the best.
LISTED = 1000
# A results page shows titles, snippets (from plain_text), dates, series and tags: only those
# fields are read (a note has thirty, each converted for every row).
SHOWN_FIELDS = (
    "status",
    "published_at",
    "title",
    "slug",
    "language",
    "plain_text",
    "series",
    "series__slug",
    "series__title_zh",
    "series__title_en",
)
_TAG_FIELDS = ("id", "name", "name_zh", "slug")


def shown_in(language: str, others: bool = True) -> Q:
    """``NoteQuerySet.in_interface``'s rule, made cheap for the thousands of notes a common word
    matches: only notes in a pair (read from the link's index) are checked, so the rows of the
    others are never read (docs/performance.md)."""
    if not others:
        return Q(language=language)
    links = Note.objects.filter(translation_id__isnull=False).order_by()
    in_a_pair = links.values("pk").union(links.values("translation_id"), all=True)
    return ~Q(pk__in=in_a_pair) | in_interface(language, others=others)


def ranked_queryset(query: Query, using: str = DEFAULT_DB_ALIAS, interface=None, others=True):
    """Ids of the published notes with every term, best first; ids only, so no match's body is read.
    ``interface`` applies the lists' language rule (:func:`shown_in`)."""
    backend = backend_for(connections[using])
    notes = Note.objects.using(using).published()
    if interface is not None:
        notes = notes.filter(shown_in(interface, others))
    return (
        notes.filter(backend.match(query.groups))
        .annotate(search_score=backend.score(query.groups))
        .order_by("-search_score", "-published_at", "-pk")
        .values_list("pk", flat=True)
    )


def ranked_ids(query: Query, using: str = DEFAULT_DB_ALIAS, **rule) -> list[int]:
    """All matches' ids in one query, the count with them, read with a plain cursor: the ORM's
    per-row work on thousands of matches would cost more than the query."""
    if not query.terms:
        return []
    sql, params = ranked_queryset(query, using, **rule).query.sql_with_params()
    with connections[using].cursor() as cursor:
        cursor.execute(sql, params)
        return [row[0] for row in cursor.fetchall()]


class Listed(list):
    """The general plan's ranked ids, the first :data:`LISTED` of them; ``capped``: more
    matched."""

    def __init__(self, ids):
        super().__init__(ids[:LISTED])
        self.capped = len(ids) > LISTED


def _with_tags(note_ids, using):
    """The notes, each with ``search_tags`` (its tags by slug), in one joined query rather than
    taggit's prefetch, which cost a query and a queryset per note (docs/performance.md)."""
    tag_columns = {f"search_tag_{field}": F(f"tags__{field}") for field in _TAG_FIELDS}
    rows = (
        Note.objects.using(using)
        .select_related("series")
        .only(*SHOWN_FIELDS)
        .filter(pk__in=list(note_ids))
        .annotate(**tag_columns)
        .order_by()
    )
    notes = {}
    for row in rows:
        note = notes.setdefault(row.pk, row)
        if not hasattr(note, "search_tags"):
            note.search_tags = []
        if row.search_tag_id is not None:
            fields = {field: getattr(row, f"search_tag_{field}") for field in _TAG_FIELDS}
            note.search_tags.append(Tag(**fields))
    for note in notes.values():
        note.search_tags.sort(key=lambda tag: tag.slug)
    return notes


def load_results(note_ids, query: Query, using: str = DEFAULT_DB_ALIAS) -> list[Note]:
    """The notes of one page, in rank order, with ``search_title``, ``search_snippet`` (escaped,
    ``<mark>`` around matches) and ``search_tags``."""
    if not note_ids:
        return []
    # By id only, the published rule checked here: in SQL it would make SQLite walk the
    # published notes' index instead of fetching ten rows. The ids came from the search index,
    # which follows a change after its commit: a note unpublished a moment ago is left out.
    notes = _with_tags(note_ids, using)
    now = timezone.now()
    results = [
        notes[pk]
        for pk in note_ids
        if pk in notes and notes[pk].status == Status.PUBLISHED and notes[pk].published_at <= now
    ]
    marked = query.marked
    for note in results:
        note.search_title = highlight(note.title, marked)
        note.search_snippet = snippet(note.plain_text, marked)
    return results
