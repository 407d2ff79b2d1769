"""Finding notes: the ranked ids of the published notes that match, then one page of them.

The view and ``manage.py benchmark_search`` both call :func:`search` (or its two halves), so
the benchmark measures what readers get. Queries per results page: one for the ranked ids (the
count comes with them), one for the page's notes with their series, one for their tags.
"""

from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, connections

from blog.models import Note
from blog.search.backends import backend_for
from blog.search.highlight import highlight, snippet
from blog.search.text import Query

PER_PAGE = 10
# A results page shows titles, snippets (from plain_text), dates, series and tags.
DEFERRED_FIELDS = ("body", "body_html", "toc_html", "summary", "parallel_blocks")


def ranked_queryset(query: Query, using: str = DEFAULT_DB_ALIAS, interface=None, others=True):
    """Ids of the published notes with every term, best first (see blog.search.backends).

    Ids only: sorting whole notes would read every match's body just to keep ten of them.
    With ``interface`` (a language code), the lists' language rule applies: a translated pair
    is found once, in that language (``NoteQuerySet.in_interface``).
    """
    backend = backend_for(connections[using])
    notes = Note.objects.using(using).published()
    if interface is not None:
        notes = notes.in_interface(interface, others=others)
    return (
        notes.filter(backend.match(query.terms))
        .annotate(search_score=backend.score(query.terms))
        .order_by("-search_score", "-published_at", "-pk")
        .values_list("pk", flat=True)
    )


def ranked_ids(query: Query, using: str = DEFAULT_DB_ALIAS, **rule) -> list[int]:
    """All matches' ids in one query: the page is cut from it and the count comes with it.

    Read with a plain cursor: a common character can match thousands of notes, and the ORM's
    per-row work would cost more than the query.
    """
    if not query.terms:
        return []
    sql, params = ranked_queryset(query, using, **rule).query.sql_with_params()
    with connections[using].cursor() as cursor:
        cursor.execute(sql, params)
        return [row[0] for row in cursor.fetchall()]


def load_results(note_ids, query: Query, using: str = DEFAULT_DB_ALIAS) -> list[Note]:
    """The notes of one page, in rank order, each with ``search_title`` and ``search_snippet``
    (HTML: escaped text, ``<mark>`` around the terms)."""
    # By id only: the ids were picked by the published rule a moment ago, and repeating it
    # here would make SQLite walk the published-notes index instead of fetching ten rows.
    notes = (
        Note.objects.using(using)
        .for_listing()
        .defer(*DEFERRED_FIELDS)
        .order_by()
        .in_bulk(list(note_ids))
    )
    results = [notes[pk] for pk in note_ids if pk in notes]
    for note in results:
        note.search_title = highlight(note.title, query.terms)
        note.search_snippet = snippet(note.plain_text, query.terms)
    return results
