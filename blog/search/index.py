"""Keeping the search index in step with notes and tags: after commit, or from scratch.

Every note is indexed, drafts and scheduled notes included: the published rule is applied when
searching, so a scheduled note is found the moment its time comes, without re-indexing.

Writes happen in ``transaction.on_commit`` callbacks (hooked up in :mod:`blog.signals`), which
read the note again, so several saves in one transaction end in the last state. They are
*robust*: if indexing fails, the author's save still succeeds, the error is logged, and
``manage.py rebuild_search_index`` repairs the index. ``QuerySet.update()`` and
``bulk_create()`` send no signals: run the command after using them on titles, bodies or tags.
"""

from __future__ import annotations

import logging

from django.db import DEFAULT_DB_ALIAS, connections, transaction

from ..models import Note
from .backends import backend_for
from .text import build_document

logger = logging.getLogger(__name__)


def _documents(notes) -> dict:
    return {
        note.pk: build_document(
            note.title,
            [name for tag in note.tags.all() for name in (tag.name, tag.name_zh)],
            note.plain_text,
        )
        for note in notes
    }


def _notes(using):
    return Note.objects.using(using).only("pk", "title", "plain_text").prefetch_related("tags")


def reindex_notes(note_ids, using=DEFAULT_DB_ALIAS) -> None:
    """Bring the index rows of these notes up to date (deleting those of deleted notes)."""
    note_ids = set(note_ids)
    if not note_ids:
        return
    documents = _documents(_notes(using).filter(pk__in=note_ids))
    connection = connections[using]
    backend = backend_for(connection)
    with transaction.atomic(using=using), connection.cursor() as cursor:
        backend.write(cursor, documents)
        backend.delete(cursor, note_ids - documents.keys())


def remove_notes(note_ids, using=DEFAULT_DB_ALIAS) -> None:
    note_ids = set(note_ids)
    if note_ids:
        connection = connections[using]
        with connection.cursor() as cursor:
            backend_for(connection).delete(cursor, note_ids)


def _schedule(function, note_ids, using):
    note_ids = set(note_ids)
    if not note_ids:
        return

    def callback():
        function(note_ids, using)

    # Django names the callback when logging a failure: a partial has no name to give.
    callback.__qualname__ = function.__qualname__
    transaction.on_commit(callback, using=using, robust=True)


def reindex_after_commit(note_ids, using=DEFAULT_DB_ALIAS) -> None:
    _schedule(reindex_notes, note_ids, using)


def remove_after_commit(note_ids, using=DEFAULT_DB_ALIAS) -> None:
    _schedule(remove_notes, note_ids, using)


def rebuild(using=DEFAULT_DB_ALIAS, batch_size=500) -> int:
    """Empty the index and index every note again, in one transaction. Returns the count."""
    connection = connections[using]
    backend = backend_for(connection)
    count, last_pk = 0, 0
    with transaction.atomic(using=using):
        with connection.cursor() as cursor:
            backend.delete_all(cursor)
        while True:
            batch = list(_notes(using).filter(pk__gt=last_pk).order_by("pk")[:batch_size])
            if not batch:
                break
            with connection.cursor() as cursor:
                backend.write(cursor, _documents(batch))
            count, last_pk = count + len(batch), batch[-1].pk
        with connection.cursor() as cursor:
            backend.after_rebuild(cursor)
    logger.info("Search index rebuilt: %d notes.", count)
    return count
