"""The activities a note's followers are sent: ``Create`` at its first publication, ``Update`` when
what they were sent changed, ``Delete`` (a ``Tombstone``) when it is taken back or deleted. Each is
addressed to the public and to the followers of the actor that sends it, under a new id."""

from django.utils import timezone

from blog.fediverse.article import CONTEXT, article, timestamp
from blog.fediverse.ids import AS_PUBLIC, actor_id, followers_url, new_activity_id, note_id


def _activity(kind, actor, thing, now):
    return {
        "@context": CONTEXT,
        "id": new_activity_id(),
        "type": kind,
        "actor": actor_id(actor),
        "published": timestamp(now),
        "to": [AS_PUBLIC],
        "cc": [followers_url(actor)],
        "object": thing,
    }


def create(note, actor) -> dict:
    return _activity("Create", actor, article(note, actor), timezone.now())


def update(note, actor) -> dict:
    now = timezone.now()
    return _activity("Update", actor, article(note, actor, updated=now), now)


def delete(pk, actor) -> dict:
    """The Delete of the note ``pk`` (the note itself may be gone)."""
    now = timezone.now()
    tombstone = {"id": note_id(pk), "type": "Tombstone", "deleted": timestamp(now)}
    return _activity("Delete", actor, tombstone, now)
