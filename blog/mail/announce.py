"""Announcing a note to its subscribers: once, when the author first publishes it (not an import, an
edit or a backdated note), queued in the save's transaction for the publication time and checked
again when it runs (the rule every channel follows: :mod:`blog.models.announcement`).

May import: :mod:`blog.models`, :mod:`blog.rendering`, :mod:`blog.text`.
"""

import logging
import secrets
from email.utils import parseaddr

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_tasks import task

from blog.mail.recipients import recipients
from blog.mail.sending import send_deliveries
from blog.models import Delivery, Note
from blog.models.announcement import due_time, is_first_publication, queued_for, still_due

logger = logging.getLogger(__name__)

SEND_BATCH = 200  # deliveries per sending task: one SMTP connection, minutes at most
WRITE_BATCH = 1000  # recipients read and deliveries written per query


def announce_if_first_publication(note, before):
    """Queue the announcement of ``note`` if this change is its first publication; a
    scheduled note's is due at its time. Returns the task's result handle, or None."""
    if not is_first_publication(note, before):
        return None
    due = due_time(note.published_at)
    return announce_note.using(run_after=due).enqueue(note.pk, queued_for(note))


def queue_announcement(sender, note, before, **kwargs):
    """The author saved ``note`` published: its announcement, if this is its first
    publication (:data:`blog.models.events.published_by_author`)."""
    announce_if_first_publication(note, before)


@task()
def announce_note(note_id, published_at):
    """Announce the note ``note_id`` if it is still what was queued: published at
    ``published_at`` (ISO 8601), due, never announced. Returns the deliveries queued."""
    # Scheduled again, or published anew: the task of its new time announces it.
    note = Note.objects.filter(pk=note_id).filter(still_due(published_at)).first()
    if note is None or note.announced_at is not None:
        return 0
    return announce(note)


def send_by_hand(note):
    """The author's "send to subscribers": the note to every subscriber it is for who was not sent
    it yet, whatever its switch. Returns the deliveries queued."""
    return announce(note, by_hand=True)


def announce(note, *, by_hand=False):
    """Write the note's deliveries and queue their sending; returns how many. Without ``by_hand``
    only once per note: a second call finds it claimed."""
    with transaction.atomic():
        # The note and its translation, locked in one order (PostgreSQL; SQLite's writes are
        # one at a time already): the two notes of a pair announced at once would each see no
        # delivery of the other and reach "both" subscribers twice.
        pair = [note.pk, note.translation_id] if note.translation_id else [note.pk]
        pair += Note.objects.filter(translation_id=note.pk).values_list("pk", flat=True)
        list(Note.objects.select_for_update().filter(pk__in=pair).order_by("pk").values("pk"))
        note = Note.objects.get(pk=note.pk)
        now = timezone.now()
        if note.announced_at is None:
            Note.objects.filter(pk=note.pk).update(announced_at=now)
        elif not by_hand:
            return 0
        if not by_hand and not note.emails_subscribers:
            return 0
        queued = _write_deliveries(note)
    logger.info("note %s: %d deliveries queued", note.pk, queued)
    return queued


def _write_deliveries(note):
    """One Delivery per recipient, and one sending task per :data:`SEND_BATCH` of them."""
    domain = message_id_domain()
    batch, queued, last = [], 0, 0
    while True:
        # A page of ids at a time, after the last one: rows written since do not move the
        # next page, and no cursor stays open across the writes.
        ids = list(recipients(note).filter(pk__gt=last)[:WRITE_BATCH])
        if not ids:
            break
        last = ids[-1]
        written = Delivery.objects.bulk_create(
            Delivery(note=note, subscriber_id=pk, message_id=message_id(note.pk, pk, domain))
            for pk in ids
        )
        batch.extend(delivery.pk for delivery in written)
        while len(batch) >= SEND_BATCH:
            send_deliveries.enqueue(batch[:SEND_BATCH])
            batch = batch[SEND_BATCH:]
        queued += len(written)
    if batch:
        send_deliveries.enqueue(batch)
    return queued


def message_id_domain():
    """The domain of the messages' Message-IDs: the sender's (``BIJI_MAIL_FROM``), which is
    the site's unless configured otherwise."""
    address = parseaddr(settings.DEFAULT_FROM_EMAIL)[1]
    return address.rpartition("@")[2] or "localhost"


def message_id(note_id, subscriber_id, domain):
    """``<biji.NOTE.SUBSCRIBER.RANDOM@domain>``: unique, and the same for every sending of
    one delivery (it is stored, not made at sending)."""
    return f"<biji.{note_id}.{subscriber_id}.{secrets.token_hex(8)}@{domain}>"
