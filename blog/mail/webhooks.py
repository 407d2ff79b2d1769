"""A mail provider's bounces and complaints turn addresses off (django-anymail's webhooks).

Each provider posts its events to anymail's view for it (``/anymail/<provider>/tracking/``,
:mod:`blog.mail.webhook_urls`), which checks the shared secret (HTTP basic auth,
``ANYMAIL["WEBHOOK_SECRET"]``), reads the provider's format and sends anymail's ``tracking``
signal with one normalised event per recipient. :func:`turn_off_refused_address` (connected
by :mod:`blog.reactions`) turns the recipient's subscription off when the event says its
mailbox will not take biji's email:

- a **hard bounce** (the provider's soft bounces, a full mailbox or a greylisting server,
  are left for the next note to try: :data:`SOFT_BOUNCE`), or a message the provider
  **rejected** because the address is invalid or bounced before: state *bounced*;
- a **spam complaint**: state *bounced* ("bounced or complained"), nothing more is sent;
- an **unsubscribe** the provider recorded (its own link, a suppression): *unsubscribed*.

Matched by the recipient's address (any case); only an address still on (pending or
confirmed) changes, so the first reason an address stopped is the one kept. Delivered, opened
and clicked events are ignored: biji tracks no reader.
"""

from anymail.signals import EventType, RejectReason
from django.db.models import Q
from django.utils import timezone

from blog.models.subscribers import Subscriber, SubscriberState

ON = (SubscriberState.PENDING, SubscriberState.CONFIRMED)

# Rejections that say the address itself is at fault (a policy block or a failure of the
# sender's own, such as a DMARC rejection, says nothing about the reader's mailbox).
HARD_REJECTIONS = {
    RejectReason.INVALID: SubscriberState.BOUNCED,
    RejectReason.BOUNCED: SubscriberState.BOUNCED,
    RejectReason.TIMED_OUT: SubscriberState.BOUNCED,
    RejectReason.SPAM: SubscriberState.BOUNCED,
    RejectReason.UNSUBSCRIBED: SubscriberState.UNSUBSCRIBED,
}


def _sparkpost_class(raw):
    event = raw.get("msys", {})
    event = next(iter(event.values()), {}) if isinstance(event, dict) else {}
    return str(event.get("bounce_class", ""))


# The providers whose "bounced" events include soft bounces, and how their own data tells
# one (anymail reports both as bounced; Mailgun's temporary failures arrive as deferred).
SOFT_BOUNCE = {
    "Postmark": lambda raw: raw.get("Type") == "SoftBounce",
    "Amazon SES": lambda raw: raw.get("bounce", {}).get("bounceType") != "Permanent",
    "Brevo": lambda raw: raw.get("event") == "soft_bounce",
    "SendinBlue": lambda raw: raw.get("event") == "soft_bounce",
    "Mailjet": lambda raw: raw.get("hard_bounce") is False,
    "SendGrid": lambda raw: raw.get("type") == "blocked",
    # 10 invalid recipient, 30 no such recipient, 90 unsubscribe: the hard classes.
    "SparkPost": lambda raw: _sparkpost_class(raw) not in {"10", "30", "90"},
}


def state_after(event, esp_name):
    """The state ``event`` puts its recipient in, or None when it leaves it alone."""
    if event.event_type == EventType.COMPLAINED:
        return SubscriberState.BOUNCED
    if event.event_type == EventType.UNSUBSCRIBED:
        return SubscriberState.UNSUBSCRIBED
    if event.event_type == EventType.REJECTED:
        return HARD_REJECTIONS.get(event.reject_reason)
    if event.event_type == EventType.BOUNCED:
        raw = event.esp_event if isinstance(event.esp_event, dict) else {}
        soft = SOFT_BOUNCE.get(esp_name)
        return None if soft is not None and soft(raw) else SubscriberState.BOUNCED
    return None


def reason(event, esp_name):
    """What the admin shows as the state's reason: the provider, the event and its words."""
    words = event.description or event.reject_reason or ""
    text = f"{esp_name}: {event.event_type}" + (f" ({words})" if words else "")
    return text[:200]


def turn_off_refused_address(sender, event, esp_name, **kwargs):
    state = state_after(event, esp_name)
    address = (event.recipient or "").strip()
    if state is None or not address:
        return
    Subscriber.objects.filter(Q(email__iexact=address), state__in=ON).update(
        state=state, unsubscribed_at=timezone.now(), state_reason=reason(event, esp_name)
    )
