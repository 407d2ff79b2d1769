"""A translated pair: a note and its translation, one in each language, one work.

The link is stored on either note (``Note.translation``; :attr:`Note.counterpart` reads both
sides). Two rules span both notes, and live here rather than in ``Note.save()``, which writes
only the note's own row:

* a note has one translation at most: linking A to B drops any other link to or from A or B;
* a pair stands at one place in its series: the translation follows its original's series and
  position ("Part 2 of 5" in both languages).

The admin, the importers and the demo call :func:`save_note` (a note edited as a whole) or
:func:`link_translation`; :func:`blog.models.series.place_in_series` moves a note and its
translation together.
"""

from django.db import transaction

from blog.models.notes import Note
from blog.models.translation_sync import pair_formed
from blog.rendering import RenderRefused
from blog.text.bilingual import contents_title


@transaction.atomic
def save_note(note, *, both_ways_in_line=True, **save_kwargs):
    """Save a note edited as a whole (a form, an import) and keep its pair's rules: the link it
    carries becomes the only one, and its translation follows it in the series.

    A pair this save forms starts in line (:func:`blog.models.translation_sync.pair_formed`):
    both ways, or only ``note`` with its translation when ``both_ways_in_line`` is False.
    """
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
    """Render what ``notes`` render once they are a translated pair (each body, and its blocks
    for the parallel view) now, before a transaction opens, so that their saves inside it find
    the renders memoised. A text the renderer refuses is left for its save to report."""
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
