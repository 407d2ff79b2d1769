"""Related notes: the published notes that share most with a note, looked for across the whole
blog at a cost bounded by the note's own tags, not by the number of notes.

A note's candidates are the notes that share a tag or its series; each tag and the series offers
its :data:`PER_GROUP` newest notes (every one below that), read from an index, so one query
touches at most ``PER_GROUP`` rows for each of up to :data:`MAX_TAGS` tags and for the series.
Candidates are ranked by what they share (tags and the series, then glossary terms), then by
date. Terms rank, they do not
find: a note sharing only terms is not offered, since a newly published note moves the parts of
its tags and series, which the page depends on (docs/caching.md), but of no term.
"""

from django.db import connections
from django.db.models import BooleanField, Count, ExpressionWrapper, OuterRef, Subquery
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce

from blog.models import Note, Status, TaggedNote, TermUse
from blog.models.notes import in_interface, published_condition

RELATED_LIMIT = 4
# A tag and a series are the author's own grouping, each worth one point a note shares.
PER_GROUP = 500
# The tags looked through (the note's first by key): the admin sets no limit on a note's tags,
# and each one costs a read of up to PER_GROUP rows.
MAX_TAGS = 32
# The best-scored candidates read as notes: most are published and in the reader's language
# (drafts, scheduled notes and a pair's other version are a few in a hundred).
CANDIDATES = 100


def related_notes(note, tag_ids, exclude):
    """Up to :data:`RELATED_LIMIT` published notes for ``note``'s page in its language, a
    translated pair once, none of ``exclude``: most tags and series shared first, then most
    glossary terms shared, then newest. One query."""
    candidates = _candidates(note, tag_ids, exclude)
    if candidates is None:
        return []
    # Whether a candidate is shown is selected, not filtered: SQLite's planner, given the
    # publication condition in WHERE, read every published note through its date index
    # instead of the hundred candidates by key (30 ms at 100,000 notes, against 6).
    shown = published_condition() & in_interface(note.language)
    notes = (
        Note.objects.filter(pk__in=candidates)
        .annotate(
            shown=ExpressionWrapper(shown, output_field=BooleanField()),
            shared_tags=_count(TaggedNote.objects.filter(tag_id__in=tag_ids), "content_object"),
            shared_terms=_count(
                TermUse.objects.filter(
                    term_id__in=TermUse.objects.filter(note_id=note.pk).values("term_id")
                ),
                "note",
            ),
        )
        .only("pk", "title", "slug", "language", "published_at", "series_id")
        .order_by()
    )

    def rank(candidate):
        shared = candidate.shared_tags + (
            note.series_id is not None and candidate.series_id == note.series_id
        )
        return (shared, candidate.shared_terms, candidate.published_at, candidate.pk)

    return sorted((c for c in notes if c.shown), key=rank, reverse=True)[:RELATED_LIMIT]


def _count(rows, note_field):
    """How many of ``rows`` (filtered already) belong to each candidate: a subquery per candidate,
    through the index that starts with the note."""
    per_note = rows.filter(**{note_field: OuterRef("pk")}).order_by().values(note_field)
    return Coalesce(Subquery(per_note.annotate(n=Count("*")).values("n")), 0)


def _candidates(note, tag_ids, exclude):
    """The :data:`CANDIDATES` notes sharing most tags and series with ``note`` (the newest first
    among equals), as SQL for ``pk__in``; None when it has neither. Each group's newest
    ``PER_GROUP`` members are read through its index (a tag's by note, the series' published
    parts by date) and counted together: raw SQL since the ORM cannot count over a union; names
    come from the models, values are parameters."""
    quote = connections[Note.objects.db].ops.quote_name
    tagged, notes = quote(TaggedNote._meta.db_table), quote(Note._meta.db_table)
    groups = [
        (
            f"SELECT content_object_id AS note_id FROM {tagged} WHERE tag_id = %s"
            " ORDER BY content_object_id DESC LIMIT %s",
            [tag_id, PER_GROUP],
        )
        for tag_id in sorted(tag_ids)[:MAX_TAGS]
    ]
    if note.series_id is not None:
        groups.append(
            (
                f"SELECT id AS note_id FROM {notes} WHERE series_id = %s AND status = %s"
                " ORDER BY published_at DESC LIMIT %s",
                [note.series_id, Status.PUBLISHED, PER_GROUP],
            )
        )
    if not groups:
        return None
    excluded = sorted({note.pk, *exclude} - {None})
    members = " UNION ALL ".join(
        f"SELECT * FROM ({sql}) AS g{n}" for n, (sql, _) in enumerate(groups)
    )
    sql = (
        f"SELECT m.note_id FROM ({members}) AS m"
        f" WHERE m.note_id NOT IN ({', '.join(['%s'] * len(excluded))})"
        " GROUP BY m.note_id ORDER BY COUNT(*) DESC, m.note_id DESC LIMIT %s"
    )
    params = [value for _, values in groups for value in values]
    return RawSQL(sql, [*params, *excluded, CANDIDATES])
