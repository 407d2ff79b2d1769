"""A mail provider's hard bounces, rejections and complaints turn addresses off, and its
unsubscribes unsubscribe them (django-anymail's ``tracking`` signal). Soft bounces and delivery,
open and click events are ignored."""

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
