"""Subscribing with double opt-in, confirming and unsubscribing: the rules, whoever asks.

Nothing is sent to an address until it confirms from the email it received (the proof that
whoever asked owns the mailbox), so the form may ask no more of a visitor than the address:

* :func:`normalise_address` takes what a form gives and returns the address to store, or
  raises :class:`InvalidAddress`: control characters (a CR/LF is a header injection), quoted
  local parts, IP literals and anything Django's validator refuses are turned away;
* :func:`subscribe` records the request (a pending row for a new address) and queues a
  confirmation, unless one was sent to the address in the last day: however often it is
  asked, an address receives at most one confirmation a day. Its answer says nothing about
  the address, and callers must answer the same whatever happened (no enumeration);
* :func:`confirm` applies a confirmation link's choice (from :mod:`blog.mail.tokens`);
* :func:`unsubscribe` turns an address off, at once and for good (until it confirms again).

An address already confirmed keeps what it has until it confirms the new choice; an address
that bounced or complained gets no confirmation (the admin may turn it on again).

May import: :mod:`blog.models`, :mod:`blog.text`.
"""

import logging
import re
from datetime import timedelta

from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator
from django.db import DatabaseError, IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from blog.mail.confirmation import send_confirmation
from blog.mail.urls_for import interface_language
from blog.models import Series, Subscriber, SubscriberState, Tag

logger = logging.getLogger(__name__)

# However many times it is asked, an address gets one confirmation in this time.
CONFIRMATION_INTERVAL = timedelta(days=1)
FORM_SOURCE = "form"
LONGEST_ADDRESS = 254  # RFC 5321's limit on a path, and the column's
# C0 and C1 controls, DEL and Unicode's line and paragraph separators: none belongs in an
# address, and CR/LF would end the header it is written into.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# No exception for "localhost": an address must have a real domain.
_validate = EmailValidator(allowlist=[])


class InvalidAddress(ValueError):
    """What a form gave is not an address biji will write to."""


def normalise_address(raw) -> str:
    """The address to store for ``raw``: stripped, its domain lower-cased (the local part may
    be case-sensitive, so it is kept). Raises :class:`InvalidAddress`."""
    if not isinstance(raw, str) or CONTROL.search(raw):
        raise InvalidAddress(raw)
    address = raw.strip()
    local, at, domain = address.rpartition("@")
    # Quoted local parts and [IP] literals are valid but hold commas, brackets and spaces that
    # mail software reads in different ways; nobody subscribes with one.
    if not at or len(address) > LONGEST_ADDRESS or '"' in local or domain.startswith("["):
        raise InvalidAddress(raw)
    address = f"{local}@{domain.lower()}"
    try:
        _validate(address)
    except ValidationError as error:
        raise InvalidAddress(raw) from error
    return address


def address_key(address) -> str:
    """One spelling for one mailbox, to count requests by: lower-cased, without a
    ``+tag`` (``Ann+1@x`` and ``ann+2@x`` usually reach the same person)."""
    local, _at, domain = address.lower().rpartition("@")
    return f"{local.split('+', 1)[0] or local}@{domain}"


def find(address):
    """The row of ``address``, whatever the case of its local part (one per mailbox)."""
    return Subscriber.objects.filter(email__iexact=address).order_by("pk").first()


def subscribe(address, wants, *, series=None, tag=None, language=None, source=FORM_SOURCE):
    """Record that ``address`` asks for ``wants`` (optionally only one ``series`` or ``tag``)
    from the interface ``language``, and queue a confirmation after the commit unless one was
    sent to it in the last :data:`CONFIRMATION_INTERVAL`. Returns whether one was queued:
    callers must not tell the visitor. Raises :class:`InvalidAddress`."""
    address = normalise_address(address)
    language = interface_language(language)
    choice = {"wants": wants, "series": series, "tag": tag}
    with transaction.atomic():
        subscriber = _row_for(address, choice, language, source)
        if subscriber.state == SubscriberState.BOUNCED:
            return False
        # Claimed in one UPDATE: of two requests at once, one queues the confirmation.
        now = timezone.now()
        due = Q(confirmation_sent_at__isnull=True) | Q(
            confirmation_sent_at__lte=now - CONFIRMATION_INTERVAL
        )
        claimed = Subscriber.objects.filter(due, pk=subscriber.pk).update(confirmation_sent_at=now)
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


def confirm(choice, language=None):
    """Confirm the subscription a link's ``choice`` (:class:`blog.mail.tokens.Choice`) names,
    from the interface ``language``. Returns the subscriber, or None when the link can no
    longer be honoured (the address, or the series or tag, was deleted since)."""
    with transaction.atomic():
        subscriber = Subscriber.objects.select_for_update().filter(pk=choice.subscriber.pk).first()
        series = Series.objects.filter(pk=choice.series_id).first() if choice.series_id else None
        tag = Tag.objects.filter(pk=choice.tag_id).first() if choice.tag_id else None
        if subscriber is None or (choice.series_id and not series) or (choice.tag_id and not tag):
            return None
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
