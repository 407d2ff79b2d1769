"""Share cards are made on the background runner, one task per transaction that changed what they
show; the task's own saves queue nothing.

May import: :mod:`blog.models`, :mod:`blog.text`.
"""

import logging

from django.core.files.storage import default_storage
from django.db import transaction
from django_tasks import task

from blog.background.after_commit import once_after_commit
from blog.background.retrying import RETRY_ON
from blog.images.card_fonts import card_fonts
from blog.images.card_store import CARD_FIELDS, CardKeeper, refresh, refresh_everything
from blog.models import Note

logger = logging.getLogger(__name__)

# What each model's cards show: a save that names none of them (``update_fields``) leaves
# the cards as they are. A note's status, date, language and translation decide which lists
# hold it, and so the counts on its series' and tags' cards.
NOTE_SHOWS = frozenset(
    {
        "title",
        "slug",
        "status",
        "published_at",
        "language",
        "series",
        "series_id",
        "series_position",
        "cover",
        "translation",
        "translation_id",
    }
)
SERIES_SHOWS = frozenset({"title_zh", "title_en", "slug"})
TAG_SHOWS = frozenset({"name", "name_zh", "slug"})
SITE_SHOWS = frozenset({"title", "tagline_zh", "tagline_en", "author", "show_other_languages"})


def summary(keeper):
    return {"made": len(keeper.made), "kept": keeper.kept, "removed": keeper.removed}


# A missing font or cover is handled where it is read: an OSError here is the storage's
# (writing, listing, deleting), which a freed disk or a fixed permission cures.
@task(retry_on=(*RETRY_ON, OSError))
def make_cards(notes=(), series=(), tags=(), notes_in_series=(), everything=False):
    """Bring the cards of ``notes``, ``series``, ``tags`` and the notes in the series
    ``notes_in_series`` (or every card) in line with what they show."""
    fonts = card_fonts()
    if fonts is None:
        logger.warning("Share cards not made: no font that draws Chinese (see the log above).")
        return None
    keeper = CardKeeper(fonts)
    if everything:
        refresh_everything(keeper)
    else:
        refresh(keeper, notes=notes, series=series, tags=tags, notes_in_series=notes_in_series)
    return summary(keeper)


def _queue_cards(batch):
    if batch.items["everything"]:
        make_cards.enqueue(everything=True)
    else:
        make_cards.enqueue(
            notes=batch.sorted("notes"),
            series=batch.sorted("series"),
            tags=batch.sorted("tags"),
            notes_in_series=batch.sorted("notes_in_series"),
        )


def cards_after_commit(
    using, *, notes=(), series=(), tags=(), notes_in_series=(), everything=False
):
    """Queue the cards once the current transaction commits (now, outside of one), one task
    for all it concerns (:mod:`blog.background.after_commit`)."""
    once_after_commit(
        "share cards",
        using,
        _queue_cards,
        # Never undoes the author's change; the cards follow at the next change, or with
        # `manage.py sharecards`.
        "Could not queue the share cards after a change.",
        notes=notes,
        series=[pk for pk in series if pk],
        tags=tags,
        notes_in_series=notes_in_series,
        everything=[True] if everything else [],
    )


def delete_after_commit(using, names):
    names = [name for name in names if name]
    if names:
        transaction.on_commit(lambda: [default_storage.delete(n) for n in names], using=using)


def _shows_a_card(update_fields, shown):
    return update_fields is None or not shown.isdisjoint(update_fields)


def queue_note_cards(sender, instance, raw, using, update_fields=None, **kwargs):
    # Drafts too: one just unpublished loses its card, and its series and tags their counts
    # (what the note was before is not known here without a query).
    if not raw and _shows_a_card(update_fields, NOTE_SHOWS):
        cards_after_commit(using, notes=[instance.pk])


def delete_note_card(sender, instance, using, **kwargs):
    delete_after_commit(using, [instance.card])
    cards_after_commit(using, series=[instance.series_id])  # its tags: queue_tagging_cards


def queue_retagged_cards(sender, instance, action, reverse, pk_set, using, **kwargs):
    if action in {"post_add", "post_remove"}:
        cards_after_commit(using, tags=[instance.pk] if reverse else pk_set or ())


def queue_tagging_cards(sender, instance, raw=False, using="default", **kwargs):
    if not raw:
        cards_after_commit(using, tags=[instance.tag_id])


def queue_tag_cards(sender, instance, raw, using, update_fields=None, **kwargs):
    if not raw and _shows_a_card(update_fields, TAG_SHOWS):
        cards_after_commit(using, tags=[instance.pk])


def queue_series_cards(sender, instance, raw, using, update_fields=None, **kwargs):
    if not raw and _shows_a_card(update_fields, SERIES_SHOWS):
        cards_after_commit(using, series=[instance.pk], notes_in_series=[instance.pk])


def queue_cards_of_series_notes(sender, instance, using, **kwargs):
    """Before the delete leaves its notes without a series: their cards name it."""
    notes = Note.objects.using(using).filter(series=instance).values_list("pk", flat=True)
    cards_after_commit(using, notes=list(notes))


def queue_every_card(sender, instance, raw, using, update_fields=None, **kwargs):
    if not raw and _shows_a_card(update_fields, SITE_SHOWS):
        cards_after_commit(using, everything=True)


def delete_card_files(sender, instance, using, **kwargs):
    """A series, a tag or the settings deleted: their cards' files."""
    delete_after_commit(using, [getattr(instance, name) for name in CARD_FIELDS - {"card"}])
