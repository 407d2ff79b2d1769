"""Subscribing with double opt-in, confirming and unsubscribing. At most one confirmation a day per
address, and the same answer whatever happened, so no one learns who subscribed.

May import: :mod:`blog.models`, :mod:`blog.text`.
"""

import logging
from datetime import timedelta

from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from blog.mail.addresses import normalise_address
from blog.mail.confirmation import queue_confirmations, send_confirmation
from blog.mail.tokens import CLOCK_SKEW
from blog.mail.urls_for import interface_language
from blog.models import Series, Subscriber, SubscriberState, Tag

logger = logging.getLogger(__name__)

# However many times it is asked, an address gets one confirmation in this time.
CONFIRMATION_INTERVAL = timedelta(days=1)
FORM_SOURCE = "form"
CHUNK = 500  # addresses whose confirmations are queued in one transaction
# Why a confirmation link no longer stands (:func:`outdated`).
TURNED_OFF = "turned off"  # the address unsubscribed or bounced after the link was sent
SUPERSEDED = "superseded"  # a newer link was sent to the address since


class OutdatedLink(Exception):
    """A confirmation link that was good when sent no longer stands: ``reason`` says why
    (:data:`TURNED_OFF` or :data:`SUPERSEDED`), ``subscriber`` is the address's row."""

    def __init__(self, reason, subscriber):
        super().__init__(reason)
        self.reason = reason
        self.subscriber = subscriber


def address_key(address) -> str:
    """One spelling for one mailbox, to count requests by: lower-cased, without a
    ``+tag`` (``Ann+1@x`` and ``ann+2@x`` usually reach the same person)."""
    local, _at, domain = address.lower().rpartition("@")
    return f"{local.split('+', 1)[0] or local}@{domain}"


def find(address):
    """The row of ``address``, whatever the case of its local part (one per mailbox)."""
    return Subscriber.objects.filter(email__iexact=address).order_by("pk").first()


def subscribe(address, wants, *, series=None, tag=None, language=None, source=FORM_SOURCE):
    """Record that ``address`` asks for ``wants`` and queue a confirmation unless one is not due
    (:func:`_due`). Returns whether one was queued: callers must not tell the visitor."""
    address = normalise_address(address)
    language = interface_language(language)
    choice = {"wants": wants, "series": series, "tag": tag}
    with transaction.atomic():
        subscriber = _row_for(address, choice, language, source)
        if subscriber.state == SubscriberState.BOUNCED:
            return False
        # Claimed in one UPDATE: of two requests at once, one queues the confirmation.
        now = timezone.now()
        claimed = Subscriber.objects.filter(_due(now), pk=subscriber.pk).update(
            confirmation_sent_at=now
        )
        if not claimed:
            return False
        arguments = (
            subscriber.pk,
            wants,
            series.pk if series else None,
            tag.pk if tag else None,
            language,
        )
        transaction.on_commit(lambda: _queue_confirmation(*arguments))
    return True


def _due(now):
    """The rows that may be sent a confirmation ``now``: none sent in the last
    :data:`CONFIRMATION_INTERVAL`, or none since the address unsubscribed."""
    return (
        Q(confirmation_sent_at__isnull=True)
        | Q(confirmation_sent_at__lte=now - CONFIRMATION_INTERVAL)
        | Q(confirmation_sent_at__lte=F("unsubscribed_at"))
    )


def request_confirmations(subscribers):
    """Queue each of ``subscribers`` a confirmation under :func:`subscribe`'s rules, :data:`CHUNK` a
    transaction. Returns how many were queued."""
    rows = list(subscribers)
    queued = 0
    for start in range(0, len(rows), CHUNK):
        by_pk = {row.pk: row for row in rows[start : start + CHUNK]}
        with transaction.atomic():
            # The claim is the UPDATE, marked with this moment: a request at the same time
            # claims with its own, and finds these rows no longer due.
            now = timezone.now()
            Subscriber.objects.filter(_due(now), pk__in=by_pk).exclude(
                state=SubscriberState.BOUNCED
            ).update(confirmation_sent_at=now)
            claimed = Subscriber.objects.filter(pk__in=by_pk, confirmation_sent_at=now)
            requests = [
                _confirmation_request(by_pk[pk]) for pk in claimed.values_list("pk", flat=True)
            ]
            if requests:
                queue_confirmations.enqueue(requests)
        queued += len(requests)
    return queued


def _confirmation_request(row):
    """The arguments of :func:`~blog.mail.confirmation.send_confirmation` for ``row``'s own
    choice."""
    language = interface_language(row.interface_language)
    return (row.pk, row.wants, row.series_id, row.tag_id, language)


def _row_for(address, choice, language, source):
    """The address's row, created pending if it has none; a pending row takes the new
    choice (nothing is sent to it yet), any other keeps its own until it confirms."""
    subscriber = find(address)
    if subscriber is None:
        try:
            with transaction.atomic():
                return Subscriber.objects.create(
                    email=address, interface_language=language, source=source, **choice
                )
        except IntegrityError:  # created by a request at the same moment
            subscriber = find(address)
    if subscriber.state == SubscriberState.PENDING:
        for name, value in choice.items():
            setattr(subscriber, name, value)
        subscriber.interface_language = language
        subscriber.save(update_fields=[*choice, "interface_language"])
    return subscriber


def _queue_confirmation(*arguments):
    try:
        send_confirmation.enqueue(*arguments)
    except DatabaseError:
        logger.exception("Could not queue the confirmation for subscriber %s.", arguments[0])


def outdated(choice, subscriber=None):
    """Why the confirmation link of ``choice`` no longer stands (:data:`TURNED_OFF`,
    :data:`SUPERSEDED`), or None when it does."""
    subscriber = subscriber or choice.subscriber
    signed_at = choice.signed_at
    # A token's time is in whole seconds, rounded down: a link sent in the second of an
    # unsubscription counts as sent before it.
    off = subscriber.unsubscribed_at
    if off is not None and signed_at < off.timestamp():
        return TURNED_OFF
    # The link is signed by the worker after the request was recorded, perhaps on another
    # machine whose clock is a little behind: a link counts as older only by more than that.
    sent = subscriber.confirmation_sent_at
    if sent is not None and signed_at < sent.timestamp() - CLOCK_SKEW:
        return SUPERSEDED
    return None


def confirm(choice, language=None):
    """Confirm the subscription a link's ``choice`` names. Returns the subscriber, or None when its
    row or series or tag is gone; raises :class:`OutdatedLink` (:func:`outdated`)."""
    with transaction.atomic():
        subscriber = Subscriber.objects.select_for_update().filter(pk=choice.subscriber.pk).first()
        series = Series.objects.filter(pk=choice.series_id).first() if choice.series_id else None
        tag = Tag.objects.filter(pk=choice.tag_id).first() if choice.tag_id else None
        if subscriber is None or (choice.series_id and not series) or (choice.tag_id and not tag):
            return None
        reason = outdated(choice, subscriber)
        if reason is not None:
            raise OutdatedLink(reason, subscriber)
        if subscriber.state != SubscriberState.CONFIRMED:
            subscriber.state = SubscriberState.CONFIRMED
            subscriber.confirmed_at = timezone.now()
        subscriber.wants, subscriber.series, subscriber.tag = choice.wants, series, tag
        subscriber.interface_language = interface_language(language)
        subscriber.unsubscribed_at = None
        subscriber.state_reason = ""
        subscriber.save()
    return subscriber


def unsubscribe(subscriber):
    """Turn ``subscriber`` off: nothing more is sent (the first unsubscription's date is
    kept when it asks again)."""
    Subscriber.objects.filter(pk=subscriber.pk).exclude(state=SubscriberState.UNSUBSCRIBED).update(
        state=SubscriberState.UNSUBSCRIBED, unsubscribed_at=timezone.now(), state_reason=""
    )
    subscriber.refresh_from_db()
    return subscriber
