"""A glossary change re-renders, in the background, the notes that used the term or hold any of its
forms, old or new: one task per transaction, rendering with the glossary as it is then."""

import logging

from django.db.models import Q
from django_tasks import task

from blog.background.after_commit import once_after_commit
from blog.background.render_each import render_each
from blog.models import Note, Term, TermUse, term_matching

logger = logging.getLogger(__name__)

# What a term's marks in notes are made of: a change of anything else (the notes that explain
# it, dates) re-renders nothing.
RENDERED_FIELDS = (
    "slug",
    "english",
    "chinese",
    "english_variants",
    "chinese_variants",
    "keep_in_english",
    "definition_en",
    "definition_zh",
)


FORMS_PER_QUERY = 200


# Every note may use a changed term: a re-render of thousands of notes outlasts the default limit.
@task(time_limit=3600)
def rerender_for_terms(term_ids, forms, note_ids=()):
    """Render again the notes that use the terms ``term_ids``, those whose text holds any of
    ``forms`` (a term's old and new forms), and ``note_ids`` (the notes of a deleted term)."""
    ids = set(note_ids)
    ids |= set(TermUse.objects.filter(term_id__in=term_ids).values_list("note_id", flat=True))
    forms = sorted(set(forms))
    # In batches: SQLite refuses an expression tree deeper than 1,000 (a glossary import of
    # hundreds of terms sends thousands of forms).
    for start in range(0, len(forms), FORMS_PER_QUERY):
        holds_a_form = Q()
        for form in forms[start : start + FORMS_PER_QUERY]:
            holds_a_form |= Q(plain_text__icontains=form)  # English in any case
        ids |= set(Note.objects.filter(holds_a_form).values_list("pk", flat=True))
    return render_each(Note.objects.filter(pk__in=ids))


def _queue_rerender(batch):
    rerender_for_terms.enqueue(
        batch.sorted("term_ids"), batch.sorted("forms"), batch.sorted("note_ids")
    )


def rerender_after_commit(using, term_ids=(), forms=(), note_ids=()):
    """Queue the re-render once the current transaction commits (now, outside of one), one
    task for all the transaction's glossary changes (:mod:`.after_commit`)."""
    once_after_commit(
        "term rerender",
        using,
        _queue_rerender,
        # Never undoes the author's change; the notes keep their marks until rendered again
        # (their next save, or `manage.py rerender`).
        "Could not queue the re-render of notes after a glossary change.",
        term_ids=term_ids,
        forms=forms,
        note_ids=note_ids,
    )


def _rendered_state(term):
    return tuple(getattr(term, field) for field in RENDERED_FIELDS)


def _rendered_only(update_fields):
    """A save of the definitions' HTML alone (``render()``, ``manage.py rerender``): no form
    or definition the author typed changed."""
    return update_fields is not None and set(update_fields) <= set(Term.derived_fields)


def remember_stored_term(sender, instance, raw, using, update_fields=None, **kwargs):
    """Remember the stored term (one query): its old forms, and whether anything that marks
    it changes."""
    if not raw and instance.pk is not None and not _rendered_only(update_fields):
        instance._stored_before = Term.objects.using(using).filter(pk=instance.pk).first()


def queue_rerender_for_term(sender, instance, created, raw, using, update_fields=None, **kwargs):
    term_matching.forget()  # the tooltips carry the definitions' HTML
    if raw or _rendered_only(update_fields):
        # A restore loads notes and their TermUse rows as they were; a render of the
        # definitions is followed by the notes' own (manage.py rerender renders them after).
        return
    before = instance.__dict__.pop("_stored_before", None)
    if before is not None and _rendered_state(before) == _rendered_state(instance):
        return
    forms = set(instance.all_forms()) | set(before.all_forms() if before is not None else ())
    rerender_after_commit(using, term_ids=[instance.pk], forms=forms)


def queue_rerender_for_deleted_term(sender, instance, using, **kwargs):
    """Before the delete takes its TermUse rows with it: which notes used the term."""
    term_matching.forget()
    note_ids = TermUse.objects.using(using).filter(term_id=instance.pk).values_list("note_id")
    rerender_after_commit(
        using, forms=instance.all_forms(), note_ids=[note_id for (note_id,) in note_ids]
    )
