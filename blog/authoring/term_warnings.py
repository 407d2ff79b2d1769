"""The change list's "term warnings": each note of a translated pair stores how many warnings the
term check gives it, since a list cannot check every row.

A save that changes a note's text, language or pair counts both notes again at once; a glossary
change counts every pair again in the background, once per transaction. Counts are stored with
``update()``, so no signal follows and ``updated_at`` (edit conflicts compare it) does not move.
"""

import logging

from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django_tasks import task

from blog.authoring.term_check import count_warnings, glossary_index
from blog.background.after_commit import once_after_commit
from blog.models import Note, Term

logger = logging.getLogger(__name__)

# What a count is made of: a save of any other field (a re-render, a series move) leaves it.
NOTE_FIELDS = frozenset({"body", "language", "translation"})
TERM_FIELDS = ("english", "chinese", "english_variants", "chinese_variants", "keep_in_english")
_READ = ("pk", "body", "language", "translation_id", "term_warnings")
_MAX_COUNT = 32767  # the column's range (PositiveSmallIntegerField)


def count_pair(note, other, index):
    """{pk: count} for both notes of a pair."""
    return {
        note.pk: count_warnings(note.body, note.language, other.body, other.language, index),
        other.pk: count_warnings(other.body, other.language, note.body, note.language, index),
    }


def _store(notes, counts, using):
    for note in notes:
        count = min(counts.get(note.pk, 0), _MAX_COUNT)
        if note.term_warnings != count:
            Note.objects.using(using).filter(pk=note.pk).update(term_warnings=count)
            note.term_warnings = count


def recount_pair_of(note, using="default"):
    """Count both notes of ``note``'s pair again (``note`` alone, when it has none: 0)."""
    index = glossary_index(using)
    if index.empty and not note.term_warnings:
        return  # no glossary, no warnings: nothing to count (a blog without one pays a query)
    linked = Q(pk=note.pk) | Q(translation_id=note.pk)
    if note.translation_id:
        linked |= Q(pk=note.translation_id)
    rows = {row.pk: row for row in Note.objects.using(using).filter(linked).only(*_READ)}
    this = rows.get(note.pk)
    if this is None:
        return
    other = rows.get(this.translation_id) or next(
        (row for row in rows.values() if row.translation_id == this.pk and row.pk != this.pk),
        None,
    )
    counts = count_pair(this, other, index) if other is not None else {}
    _store([row for row in (this, other) if row is not None], counts, using)
    note.term_warnings = this.term_warnings  # the instance saved says what is stored


def recount_note_pair(sender, instance, raw, using, update_fields=None, **kwargs):
    if raw:  # a restore's rows come with their counts
        return
    if update_fields is not None and NOTE_FIELDS.isdisjoint(update_fields):
        return
    recount_pair_of(instance, using)


@task()
def recount_pairs():
    """Count every translated pair again (after a glossary change), and reset notes left without a
    pair. Idempotent."""
    index = glossary_index()
    holders = Note.objects.filter(translation__isnull=False).select_related("translation")
    holders = holders.only(*_READ, *(f"translation__{name}" for name in _READ if name != "pk"))
    counted = 0
    for note in holders.order_by("pk").iterator(chunk_size=200):
        other = note.translation
        with transaction.atomic():
            _store([note, other], count_pair(note, other, index), "default")
        counted += 1
    in_a_pair = Exists(Note.objects.filter(translation_id=OuterRef("pk")))
    Note.objects.filter(term_warnings__gt=0, translation__isnull=True).exclude(in_a_pair).update(
        term_warnings=0
    )
    return counted


def recount_after_commit(using):
    """Queue the recount once the current transaction commits, once for all its glossary changes."""
    once_after_commit(
        "term warnings",
        using,
        lambda batch: recount_pairs.enqueue(),
        # The glossary change stands; the counts follow at the next save of each note.
        "Could not queue the term warnings' recount after a glossary change.",
    )


def _forms(term):
    return tuple(getattr(term, name) for name in TERM_FIELDS)


def remember_term_forms(sender, instance, raw, using, **kwargs):
    if not raw and instance.pk is not None:
        stored = Term.objects.using(using).filter(pk=instance.pk).values_list(*TERM_FIELDS)
        instance._forms_before = stored.first()


def queue_recount_for_term(sender, instance, raw, using, **kwargs):
    if raw:
        return
    before = instance.__dict__.pop("_forms_before", None)
    if before is None or before != _forms(instance):
        recount_after_commit(using)


def queue_recount_for_deleted_term(sender, instance, using, **kwargs):
    recount_after_commit(using)
