"""Sending a note's deliveries, a batch per task, each marked SENDING, then SENT or FAILED, so a
killed worker resends only the one in flight. :class:`NotAllSent` makes the runner retry.

May import: :mod:`blog.models`, :mod:`blog.rendering`, :mod:`blog.text`.
"""

import logging
import smtplib
import time

from anymail.exceptions import AnymailInvalidAddress, AnymailRecipientsRefused
from django.conf import settings
from django.core.mail import get_connection
from django.db import InterfaceError, OperationalError
from django.db.models import F
from django.utils import timezone
from django_tasks import task

from blog.mail.note_email import NoteEmail
from blog.models import Delivery, DeliveryState, SubscriberState

logger = logging.getLogger(__name__)

ATTEMPTS = 8  # runs of a batch in all: about 20 minutes of backoff from the first to the last


class NotAllSent(Exception):  # noqa: N818 (a state, as the task's recorded error)
    """Some deliveries of the batch were not accepted for a reason that may pass."""


# Errors about one message or one address: the batch goes on with the next.
ONE_MESSAGE = (
    smtplib.SMTPRecipientsRefused,
    smtplib.SMTPDataError,
    AnymailRecipientsRefused,
    AnymailInvalidAddress,
)


@task(
    max_attempts=ATTEMPTS,
    retry_on=(NotAllSent, OperationalError, InterfaceError, ConnectionError, TimeoutError),
)
def send_deliveries(delivery_ids):
    """Send the deliveries ``delivery_ids`` not sent yet; returns what happened, counted."""
    return Batch(delivery_ids).send()


class Batch:
    def __init__(self, delivery_ids):
        self.deliveries = list(
            Delivery.objects.filter(pk__in=delivery_ids)
            .exclude(state=DeliveryState.SENT)
            .select_related("subscriber", "note", "note__series")
            .order_by("pk")
        )
        self.counts = {"sent": 0, "failed": 0, "dropped": 0, "held": 0}
        self.again = 0  # temporary failures: the task runs again
        self.emails = {}  # note id: NoteEmail, rendered once
        self.pace = Pace(settings.BIJI_MAIL_RATE)

    def send(self):
        to_send = [d for d in self.deliveries if not is_final_failure(d)]
        to_send = [d for d in to_send if self._still_wanted(d)]
        held = [d for d in to_send if not d.note.is_published()]
        if held:
            self.counts["held"] = len(held)
            to_send = [d for d in to_send if d.note.is_published()]
        if to_send:
            self._send_over_one_connection(to_send)
        if self.again or held:
            raise NotAllSent(
                f"{self.again} temporarily refused or not sent, {len(held)} held "
                f"(note not published); {self.counts}"
            )
        return self.counts

    def _still_wanted(self, delivery):
        if delivery.subscriber.state == SubscriberState.CONFIRMED:
            return True
        delivery.delete()  # unsubscribed or bounced since: nothing to send, nothing to keep
        self.counts["dropped"] += 1
        return False

    def _send_over_one_connection(self, deliveries):
        connection = get_connection()
        try:
            connection.open()
        except Exception as error:  # the server away, a login refused, a provider misconfigured
            logger.warning("mail server unreachable: %s", describe(error))
            self.again += len(deliveries)
            return
        try:
            for index, delivery in enumerate(deliveries):
                if not self._send_one(delivery, connection):
                    self.again += len(deliveries) - index - 1
                    return
        finally:
            try:
                connection.close()
            except Exception:  # noqa: S110 (a connection already gone: nothing to close)
                pass

    def _send_one(self, delivery, connection):
        """Send one delivery; False when the connection is lost (the batch stops)."""
        email = self.emails.get(delivery.note_id)
        if email is None:
            email = self.emails[delivery.note_id] = NoteEmail(delivery.note)
        message = email.message(delivery, delivery.subscriber, connection)
        self.pace.wait()
        Delivery.objects.filter(pk=delivery.pk).update(
            state=DeliveryState.SENDING, attempts=F("attempts") + 1
        )
        try:
            if not connection.send_messages([message]):
                raise smtplib.SMTPRecipientsRefused({delivery.subscriber.email: (550, b"")})
        except ONE_MESSAGE as error:
            self._failed(delivery, error)
            return True
        except Exception as error:  # the server gone, or refusing the sender: stop the batch
            self._failed(delivery, error, temporary=True)
            logger.warning("sending stopped at delivery %s: %s", delivery.pk, describe(error))
            return False
        Delivery.objects.filter(pk=delivery.pk).update(
            state=DeliveryState.SENT, sent_at=timezone.now(), error=""
        )
        self.counts["sent"] += 1
        return True

    def _failed(self, delivery, error, temporary=False):
        text = describe(error)
        Delivery.objects.filter(pk=delivery.pk).update(state=DeliveryState.FAILED, error=text)
        self.counts["failed"] += 1
        if temporary or not is_permanent(text):
            self.again += 1


def describe(error):
    """An error as the delivery keeps it: the server's reply code first when there is one
    (``550 5.1.1 No such user``), so that :func:`is_permanent` can read it."""
    if isinstance(error, smtplib.SMTPRecipientsRefused) and error.recipients:
        code, reply = next(iter(error.recipients.values()))
        return f"{code} {_text(reply)}".strip()
    if isinstance(error, smtplib.SMTPResponseException):
        return f"{error.smtp_code} {_text(error.smtp_error)}".strip()
    if isinstance(error, (AnymailRecipientsRefused, AnymailInvalidAddress)):
        return f"550 {error}"  # the provider refused the address: permanent
    return f"{type(error).__name__}: {error}"


def _text(reply):
    return reply.decode("utf-8", "replace") if isinstance(reply, bytes) else str(reply)


def is_permanent(error_text):
    """A 5xx reply: sending the same message again would be refused again."""
    return error_text[:1] == "5" and error_text[:3].isdigit()


def is_final_failure(delivery):
    return delivery.state == DeliveryState.FAILED and is_permanent(delivery.error)


class Pace:
    """At most ``rate`` messages a second (0: no limit)."""

    def __init__(self, rate):
        self.interval = 1 / rate if rate and rate > 0 else 0
        self.next = time.monotonic()

    def wait(self):
        if not self.interval:
            return
        now = time.monotonic()
        if self.next > now:
            time.sleep(self.next - now)
        self.next = max(self.next, now) + self.interval
