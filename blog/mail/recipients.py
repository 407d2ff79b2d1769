"""Who gets a note by email: confirmed addresses that want it and were not sent it or its
translation, streamed by id.

May import: :mod:`blog.models`.
"""

from django.db.models import Exists, OuterRef, Q

from blog.models import Delivery, Subscriber, SubscriberState, TaggedNote, Wants


def recipients(note, using="default"):
    """The ids of the subscribers ``note`` is to be sent to, in id order."""
    has_delivery = Delivery.objects.using(using).filter(subscriber=OuterRef("pk"))
    language = Q(wants=note.language)
    both = Q(wants=Wants.BOTH)
    other_id = _counterpart_id(note, using)
    if other_id is not None:
        both &= ~Exists(has_delivery.filter(note_id=other_id))
    series = Q(series__isnull=True)
    if note.series_id is not None:
        series |= Q(series_id=note.series_id)
    tag_ids = TaggedNote.objects.using(using).filter(content_object_id=note.pk).values("tag_id")
    tag = Q(tag__isnull=True) | Q(tag_id__in=tag_ids)
    return (
        Subscriber.objects.using(using)
        .filter(state=SubscriberState.CONFIRMED)
        .filter(language | both)
        .filter(series, tag)
        .exclude(Exists(has_delivery.filter(note_id=note.pk)))
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def _counterpart_id(note, using):
    """The id of the note's translation, whichever of the two holds the link (one query at
    most)."""
    if note.translation_id is not None:
        return note.translation_id
    return (
        type(note)
        .objects.using(using)
        .filter(translation_id=note.pk)
        .values_list("pk", flat=True)
        .first()
    )
