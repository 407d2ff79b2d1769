"""Keeping the search index in step after commit, drafts included. Writes never raise: ``manage.py
rebuild_search_index`` repairs, also after ``update()`` or ``bulk_create()``."""

from __future__ import annotations

import logging
import sys
from contextlib import contextmanager
from functools import partial

from asgiref.local import Local
from django.db import DEFAULT_DB_ALIAS, connections, transaction

from blog.models import Note, Status
from blog.models.search_document import SearchDocument
from blog.search import sql
from blog.search.order import order_key
from blog.search.text import build_document

logger = logging.getLogger(__name__)

_rebuilt_after = Local()  # per thread/task: the aliases whose index the caller rebuilds


def _documents(notes) -> list[SearchDocument]:
    documents = []
    for note in notes:
        names = [name for tag in note.tags.all() for name in (tag.name, tag.name_zh)]
        document = build_document(note.title, names, note.plain_text)
        fields = {field: getattr(document, field) for field in SearchDocument.FIELDS}
        key = order_key(note.pk, note.published_at, note.status == Status.PUBLISHED)
        documents.append(SearchDocument(note_id=note.pk, order_key=key, **fields))
    return documents


def _write(documents, using) -> None:
    """Insert or replace these rows (an upsert: SQLite's update trigger keeps FTS5 in step)."""
    SearchDocument.objects.using(using).bulk_create(
        documents,
        update_conflicts=True,
        unique_fields=["note"],
        update_fields=[*SearchDocument.FIELDS, "order_key"],
    )


def _notes(using):
    return (
        Note.objects.using(using)
        .only("pk", "title", "plain_text", "status", "published_at")
        .prefetch_related("tags")
    )


def reindex_notes(note_ids, using=DEFAULT_DB_ALIAS) -> None:
    """Bring the index rows of these notes up to date (deleting those of deleted notes)."""
    note_ids = set(note_ids)
    if not note_ids:
        return
    documents = _documents(_notes(using).filter(pk__in=note_ids))
    with transaction.atomic(using=using):
        _write(documents, using)
        gone = note_ids - {document.note_id for document in documents}
        remove_notes(gone, using)


def remove_notes(note_ids, using=DEFAULT_DB_ALIAS) -> None:
    if note_ids:
        SearchDocument.objects.using(using).filter(note_id__in=note_ids).delete()


def _update_logged(function, note_ids, using) -> None:
    """Run ``function`` and log, never raise, a failure: the author's save has succeeded."""
    try:
        function(note_ids, using)
    except Exception:
        logger.exception(
            "Search index not updated for notes %s: run `manage.py rebuild_search_index`.",
            sorted(note_ids),
        )


@contextmanager
def rebuilt_afterwards(using=DEFAULT_DB_ALIAS):
    """Within it, changes queue no re-indexing of their notes: the caller rebuilds the whole
    index once its transaction commits (a restore). Each would redo a note's share of that
    work, and wait as a callback of its own until the commit."""
    previous = getattr(_rebuilt_after, "aliases", frozenset())
    _rebuilt_after.aliases = previous | {using}
    try:
        yield
    finally:
        _rebuilt_after.aliases = previous


def _after_commit(function, note_ids, using) -> None:
    note_ids = set(note_ids)
    if note_ids and using not in getattr(_rebuilt_after, "aliases", frozenset()):
        transaction.on_commit(partial(_update_logged, function, note_ids, using), using=using)


def reindex_after_commit(note_ids, using=DEFAULT_DB_ALIAS) -> None:
    _after_commit(reindex_notes, note_ids, using)


def remove_after_commit(note_ids, using=DEFAULT_DB_ALIAS) -> None:
    _after_commit(remove_notes, note_ids, using)


def rebuild(using=DEFAULT_DB_ALIAS, batch_size=500) -> int:
    """Empty the index and index every note again, in one transaction. Returns the count."""
    vendor = connections[using].vendor
    count, last_pk = 0, 0
    with transaction.atomic(using=using):
        if vendor == "sqlite":
            # The delete trigger removes a row's entries by re-tokenizing its old text, which
            # fails ("malformed") if FTS5 no longer matches the table: re-read it first.
            with connections[using].cursor() as cursor:
                sql.fts_command(cursor, "rebuild")
        SearchDocument.objects.using(using).all().delete()
        while True:
            batch = list(_notes(using).filter(pk__gt=last_pk).order_by("pk")[:batch_size])
            if not batch:
                break
            _write(_documents(batch), using)
            count, last_pk = count + len(batch), batch[-1].pk
        with connections[using].cursor() as cursor:
            if vendor == "sqlite":
                sql.fts_command(cursor, "optimize")  # one segment per index: faster look-ups
            else:
                sql.analyze(cursor, SearchDocument._meta.db_table)
    logger.info("Search index rebuilt: %d notes.", count)
    return count


def rebuild_if_incomplete(using=DEFAULT_DB_ALIAS, verbosity=1, stdout=None, **kwargs) -> None:
    """``post_migrate`` receiver: index the notes when there are fewer rows than notes. Migrations
    cannot build documents (they use no live code), so this fills a new index."""
    if SearchDocument._meta.db_table not in connections[using].introspection.table_names():
        return  # migrated back below 0004
    notes = Note.objects.using(using).count()
    if SearchDocument.objects.using(using).count() != notes:
        if verbosity >= 1:
            (stdout or sys.stdout).write(f"  Indexing {notes} notes for search…\n")
        rebuild(using)
