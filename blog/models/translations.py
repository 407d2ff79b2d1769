"""A translated pair's two rules, which span both notes and so are not in ``Note.save()``: one
translation per note, one place in the series (:func:`save_note`, :func:`link_translation`)."""

from django.db import transaction

from blog.models.notes import Note
from blog.models.translation_sync import pair_formed
from blog.rendering import RenderRefused
from blog.text.bilingual import contents_title


@transaction.atomic
def save_note(note, *, both_ways_in_line=True, **save_kwargs):
    """Save a note edited as a whole (a form, an import) with its pair's rules: its link becomes the
    only one and its translation follows it in the series. A pair formed here starts in line
    (``both_ways_in_line``)."""
    before = _counterpart_pk(note)
    release_other_links(note)
    note.save(**save_kwargs)
    bring_translation_along(note)
    _follow_pair(note, before, both_ways=both_ways_in_line)
    return note


@transaction.atomic
def link_translation(note, other):
    """Make ``note`` and ``other`` (saved notes) a translated pair; ``other=None`` leaves
    ``note`` with no translation."""
    if other is None:
        # Saved one by one, not update(): the pages and lists showing the pair follow a save.
        for holder in Note.objects.filter(translation=note):
            holder.translation = None
            holder.save(update_fields=["translation"])
        note.translation = None
        note.save(update_fields=["translation"])
        return
    before = _counterpart_pk(note)
    note.translation = other
    release_other_links(note)
    note.save(update_fields=["translation"])
    bring_translation_along(note)
    _follow_pair(note, before)


def render_ahead_as_pair(*notes):
    """Render ``notes`` as a translated pair now, before a transaction opens, so their saves find
    the renders memoised; a refusal is left for the save."""
    for note in notes:
        try:
            note.render_field("body", contents_title(note.language))
            note.render_field_blocks("body", contents_title(note.language))
        except RenderRefused:
            continue


def _counterpart_pk(note):
    if note.pk is None:
        return None
    stored = Note.objects.filter(pk=note.pk).values_list("translation_id", flat=True).first()
    return (
        stored or Note.objects.filter(translation_id=note.pk).values_list("pk", flat=True).first()
    )


def _follow_pair(note, before, both_ways=True):
    other = note.linked_translation()
    if other is not None and other.pk != before:
        pair_formed(note, other, both_ways=both_ways)


def release_other_links(note):
    """Before saving ``note`` with the link it carries: drop every other link to or from either
    note of the pair (the link is unique, so this must come first)."""
    if not note.translation_id:
        return
    others = Note.objects.exclude(pk=note.pk) if note.pk else Note.objects.all()
    others.filter(translation_id=note.translation_id).update(translation=None)
    if note.pk:
        others.filter(translation_id=note.pk).exclude(pk=note.translation_id).update(
            translation=None
        )
    # B's own link to a third note (a link from B back to A is the same pair: kept).
    Note.objects.filter(pk=note.translation_id, translation__isnull=False).exclude(
        translation_id=note.pk
    ).update(translation=None)


def bring_translation_along(note):
    """After saving ``note``: its translation takes the same series and position."""
    if note.series_id is None:
        return
    other = note.linked_translation()
    if other is None or (other.series_id, other.series_position) == (
        note.series_id,
        note.series_position,
    ):
        return
    # A partial save: the translation's text did not change, so neither does its updated_at,
    # while signals (caches, search) still hear of the move.
    other.series_id, other.series_position = note.series_id, note.series_position
    other.save(update_fields=["series", "series_position"])
