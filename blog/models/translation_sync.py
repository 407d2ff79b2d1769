"""Which note of a translated pair is behind the other: each keeps the other's block hashes from
when it was last in line. Hashes survive export, import and backup."""

from django.db.models import BooleanField, Case, F, OuterRef, Q, Subquery, Value, When
from django.db.models.functions import Coalesce

from blog.models.notes import Note


def is_behind(note, other) -> bool:
    """``note`` is behind ``other``, its translation (``None``: no translation)."""
    return bool(
        other is not None and note.synced_hashes and note.synced_hashes != other.block_hashes
    )


def with_behind(queryset):
    """``queryset`` with ``is_behind`` on each note, computed in the same query (the admin's
    column and filter)."""
    linking = Note.objects.filter(translation_id=OuterRef("pk")).values("block_hashes")[:1]
    return queryset.annotate(
        other_block_hashes=Coalesce(F("translation__block_hashes"), Subquery(linking)),
    ).annotate(
        is_behind=Case(
            When(
                ~Q(synced_hashes="")
                & Q(other_block_hashes__isnull=False)
                & ~Q(synced_hashes=F("other_block_hashes")),
                then=Value(True),
            ),
            default=Value(False),
            output_field=BooleanField(),
        )
    )


def in_a_pair():
    """Notes with a translation, either side holding the link: a condition read from the link's
    index alone, so a list of pairs never reads the other notes' rows (the admin's filters)."""
    links = Note.objects.filter(translation__isnull=False).order_by()
    # One IN of both sides' ids: with an OR of the two, SQLite's planner walked every note in
    # the list's date order to find the few in a pair (1 s at 100,000 notes).
    return Q(pk__in=links.values("pk").union(links.values("translation_id"), all=True))


def is_original_of(other, note) -> bool:
    """``other`` is the original ``note`` translates: the translation holds the link (as a
    started translation and the importers' ``translation:`` key do)."""
    return note.translation_id == other.pk


def pair_formed(note, other, *, both_ways=True):
    """``note`` and ``other`` became a pair: ``note`` is in line with ``other`` and, unless
    ``both_ways`` is False, ``other`` with ``note``."""
    note.synced_hashes = other.block_hashes
    _store(note)
    if both_ways:
        other.synced_hashes = note.block_hashes
        _store(other)
    elif other.synced_hashes:
        # What ``other`` was in line with is an earlier translation's text, unlinked since:
        # compared with the new note, it would be behind at once.
        other.synced_hashes = ""
        _store(other)
    for version in (note, other):
        if version.body and not version.parallel_blocks:
            version.render()


def after_edit(note, previous_hashes, *, needs_translation=True, in_line=False):
    """The author saved ``note``, whose blocks were ``previous_hashes`` before the edit.

    ``in_line`` or ``needs_translation=False`` keeps the other note in line if it was; otherwise it
    falls behind.
    """
    other = note.linked_translation()
    if other is None:
        return
    if in_line:
        note.synced_hashes = other.block_hashes
        _store(note)
    if (in_line or not needs_translation) and other.synced_hashes == previous_hashes:
        if other.synced_hashes != note.block_hashes:
            other.synced_hashes = note.block_hashes
            _store(other)


def bring_in_line(note, other):
    """``note`` now says what ``other`` says: record ``other``'s hashes (call it inside
    :func:`blog.models.revisions.recording`, so that it is a revision)."""
    note.synced_hashes = other.block_hashes
    _store(note)


def _store(note):
    # A partial save: updated_at does not move (nothing the author wrote changed), while the
    # signals still empty the pages showing the pair, and a revision block records it.
    note.save(update_fields=["synced_hashes"])
