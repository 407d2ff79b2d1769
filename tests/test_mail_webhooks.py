"""A mail provider's bounce, complaint and unsubscribe webhooks turn addresses off.

The events are posted as the providers post them (Postmark's bounce and spam-complaint JSON,
Brevo's transactional events) with the
webhook secret as HTTP basic auth, through django-anymail's views and its ``tracking``
signal. Without a secret configured the webhooks do not exist: nobody can turn a reader's
email off by posting a fake bounce.
"""

import base64
import json

import pytest
from django.utils import timezone

from blog.models.subscribers import Subscriber, SubscriberState

pytestmark = pytest.mark.django_db

SECRET = "biji-webhook:s3cret-pass"
AUTH = {"HTTP_AUTHORIZATION": "Basic " + base64.b64encode(SECRET.encode()).decode()}


@pytest.fixture(autouse=True)
def webhook_secret(settings):
    settings.ANYMAIL = {**getattr(settings, "ANYMAIL", {}), "WEBHOOK_SECRET": SECRET}


def subscriber(email, state=SubscriberState.CONFIRMED):
    return Subscriber.objects.create(email=email, state=state, confirmed_at=timezone.now())


def postmark_bounce(email, kind="HardBounce", **extra):
    """Postmark's bounce webhook body (developer docs, "Bounce webhook")."""
    return {
        "RecordType": "Bounce",
        "MessageStream": "outbound",
        "ID": 4323372036854775807,
        "Type": kind,
        "TypeCode": 1 if kind == "HardBounce" else 4096,
        "Name": "Hard bounce" if kind == "HardBounce" else "Soft bounce",
        "Tag": "",
        "MessageID": "883953f4-6105-42a2-a16a-77a8eac79483",
        "Metadata": {},
        "ServerID": 23,
        "Description": "The server was unable to deliver your message (ex: unknown user, "
        "mailbox not found).",
        "Details": "smtp;550 5.1.1 The email account that you tried to reach does not exist.",
        "Email": email,
        "From": "notes@example.com",
        "BouncedAt": "2025-06-01T16:09:19Z",
        "DumpAvailable": True,
        "Inactive": kind == "HardBounce",
        "CanActivate": True,
        "Subject": "A new note",
        **extra,
    }


def post_postmark(client, body, **headers):
    return client.post(
        "/anymail/postmark/tracking/",
        json.dumps(body),
        content_type="application/json",
        **{**AUTH, **headers},
    )


def state_of(email):
    return Subscriber.objects.get(email=email).state


def test_a_hard_bounce_turns_the_address_off_with_its_reason(client):
    subscriber("gone@example.com")
    response = post_postmark(client, postmark_bounce("gone@example.com"))
    assert response.status_code == 200
    gone = Subscriber.objects.get(email="gone@example.com")
    assert gone.state == SubscriberState.BOUNCED
    assert gone.unsubscribed_at is not None
    assert "Postmark" in gone.state_reason and "bounced" in gone.state_reason


def test_the_address_is_matched_whatever_its_case(client):
    subscriber("Reader@example.com")
    post_postmark(client, postmark_bounce("reader@EXAMPLE.com"))
    assert state_of("Reader@example.com") == SubscriberState.BOUNCED


def test_a_soft_bounce_leaves_the_address_on(client):
    subscriber("full@example.com")
    post_postmark(client, postmark_bounce("full@example.com", kind="SoftBounce"))
    assert state_of("full@example.com") == SubscriberState.CONFIRMED


def test_a_spam_complaint_stops_the_email(client):
    subscriber("angry@example.com")
    body = postmark_bounce("angry@example.com", kind="SpamComplaint", RecordType="SpamComplaint")
    post_postmark(client, body)
    assert state_of("angry@example.com") == SubscriberState.BOUNCED


def brevo_event(email, event, **extra):
    """Brevo's transactional webhook body (developers.brevo.com, "Transactional webhooks")."""
    return {
        "event": event,
        "email": email,
        "id": 1234567,
        "date": "2025-06-01 18:09:19",
        "ts": 1748794159,
        "message-id": "<202506011609.1234@smtp-relay.mailin.fr>",
        "ts_event": 1748794159,
        "subject": "A new note",
        "ts_epoch": 1748794159000,
        **extra,
    }


def test_brevo_events_bounce_complain_unsubscribe_and_ignore_the_rest(client):
    for email in ("hard@example.com", "soft@example.com", "spam@example.com"):
        subscriber(email)
    subscriber("left@example.com")
    subscriber("read@example.com")
    subscriber("pending@example.com", state=SubscriberState.PENDING)
    events = [
        brevo_event("hard@example.com", "hard_bounce", reason="550 5.1.1 unknown user"),
        brevo_event("soft@example.com", "soft_bounce", reason="452 mailbox full"),
        brevo_event("spam@example.com", "spam"),
        brevo_event("left@example.com", "unsubscribe"),
        brevo_event("read@example.com", "delivered"),
        brevo_event("read@example.com", "unique_opened"),
        brevo_event("pending@example.com", "invalid_email"),
    ]
    for event in events:
        response = client.post(
            "/anymail/brevo/tracking/", json.dumps(event), content_type="application/json", **AUTH
        )
        assert response.status_code == 200
    assert state_of("hard@example.com") == SubscriberState.BOUNCED
    assert state_of("soft@example.com") == SubscriberState.CONFIRMED
    assert state_of("spam@example.com") == SubscriberState.BOUNCED
    assert state_of("left@example.com") == SubscriberState.UNSUBSCRIBED
    assert state_of("read@example.com") == SubscriberState.CONFIRMED
    assert state_of("pending@example.com") == SubscriberState.BOUNCED


def test_a_later_event_keeps_the_first_reason_the_address_stopped(client):
    subscriber("left@example.com", state=SubscriberState.UNSUBSCRIBED)
    post_postmark(client, postmark_bounce("left@example.com"))
    assert state_of("left@example.com") == SubscriberState.UNSUBSCRIBED


def test_a_post_without_the_secret_is_refused_and_changes_nothing(client):
    subscriber("safe@example.com")
    wrong = "Basic " + base64.b64encode(b"biji-webhook:guess").decode()
    for headers in ({"HTTP_AUTHORIZATION": ""}, {"HTTP_AUTHORIZATION": wrong}):
        response = post_postmark(client, postmark_bounce("safe@example.com"), **headers)
        assert response.status_code == 400
    assert state_of("safe@example.com") == SubscriberState.CONFIRMED


def test_without_a_configured_secret_the_webhooks_do_not_exist(client, settings):
    settings.ANYMAIL = {}
    subscriber("safe@example.com")
    response = post_postmark(client, postmark_bounce("safe@example.com"))
    assert response.status_code == 404
    assert state_of("safe@example.com") == SubscriberState.CONFIRMED
