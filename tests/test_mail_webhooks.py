"""A mail provider's bounce, complaint and unsubscribe webhooks turn addresses off.

The events are posted as the providers post them (Postmark's bounce and spam-complaint JSON,
Brevo's transactional events, Mailgun's signed events) with the
webhook secret as HTTP basic auth, through django-anymail's views and its ``tracking``
signal. Without a secret configured the webhooks do not exist (404): nobody can turn a
reader's email off by posting a fake bounce. With it, every provider biji routes answers a
request without the secret, or with a wrong one, with a 400; one it cannot read with a 400,
and one for a provider not set up here with a 404: never a 500.
"""

import base64
import hashlib
import hmac
import json
import logging
import time

import pytest
from django.utils import timezone

from blog.mail import webhook_urls
from blog.models.subscribers import Subscriber, SubscriberState

pytestmark = [
    pytest.mark.django_db,
    # SendGrid and the old SendinBlue URLs: routed, and deprecated by anymail.
    pytest.mark.filterwarnings("ignore::anymail.exceptions.AnymailWarning"),
]

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


# --- every provider: no secret, a wrong one, a body it cannot read ----------------------------

# Every provider whose tracking webhook biji routes (anymail's, all of them).
PROVIDERS = sorted(p.name.removesuffix("_tracking_webhook") for p in webhook_urls.urlpatterns)
# Those that need a setting of their own (a signing key) to read events. (Amazon SES needs boto3,
# which biji installs for media on object storage: it reads, and refuses what it cannot read.)
NOT_SET_UP = {"mailersend", "mailgun", "mandrill", "postal", "unisender_go"}
WRONG_CREDENTIALS = [
    {},
    {"HTTP_AUTHORIZATION": ""},
    {"HTTP_AUTHORIZATION": "Basic " + base64.b64encode(b"biji-webhook:guess").decode()},
    {"HTTP_AUTHORIZATION": "Basic " + base64.b64encode(SECRET.encode() + b"x").decode()},
    {"HTTP_AUTHORIZATION": "Basic !!not-base64"},
    {"HTTP_AUTHORIZATION": "Bearer " + SECRET},
]


def post_to(client, provider, body, **headers):
    return client.post(
        f"/anymail/{provider}/tracking/", body, content_type="application/json", **headers
    )


@pytest.fixture
def quiet(caplog):
    """Django logs every 4xx, and biji a provider not set up: expected here."""
    caplog.set_level(logging.CRITICAL, logger="django.request")
    caplog.set_level(logging.CRITICAL, logger="django.security")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_without_the_secret_or_with_a_wrong_one_every_webhook_answers_400(
    client, settings, provider, quiet
):
    subscriber("safe@example.com")
    body = json.dumps(postmark_bounce("safe@example.com"))
    for headers in WRONG_CREDENTIALS:
        response = post_to(client, provider, body, **headers)
        assert response.status_code == 400, headers
    assert state_of("safe@example.com") == SubscriberState.CONFIRMED
    settings.ANYMAIL = {}  # no secret configured: the webhook does not exist
    for headers in (AUTH, {}):
        assert post_to(client, provider, body, **headers).status_code == 404


@pytest.mark.parametrize("provider", PROVIDERS)
def test_with_the_secret_a_body_it_cannot_read_is_400_and_a_provider_not_set_up_404(
    client, provider, quiet
):
    expected = 404 if provider in NOT_SET_UP else 400
    for body in ("", "not json", "[1, 2]", '"text"', '{"event": {"nested": []}}'):
        response = post_to(client, provider, body, **AUTH)  # a 500 would raise here
        assert response.status_code in (200, expected), (body, response.status_code)


def mailgun_failure(email, key, signature=None):
    """Mailgun's signed "failed" event (documentation.mailgun.com, "Webhooks")."""
    timestamp, token = str(int(time.time())), "a8ce0edb2dd8301dee6c2405235584e45aa91d1e9f979f3de0"
    expected = hmac.new(key.encode(), f"{timestamp}{token}".encode(), hashlib.sha256)
    return {
        "signature": {
            "timestamp": timestamp,
            "token": token,
            "signature": expected.hexdigest() if signature is None else signature,
        },
        "event-data": {
            "event": "failed",
            "severity": "permanent",
            "reason": "bounce",
            "recipient": email,
            "timestamp": 1748794159.0,
            "id": "G9Bn5sl1TC6nu79C8C0bwg",
            "delivery-status": {"code": 550, "message": "5.1.1 No such user"},
            "message": {"headers": {"message-id": "20250601.1@mg.example.com"}},
        },
    }


def test_mailgun_not_set_up_is_404_and_logged_and_once_set_up_checks_its_signature(
    client, settings, caplog, quiet
):
    subscriber("gone@example.com")
    with caplog.at_level(logging.ERROR, logger="blog.mail.webhook_urls"):
        body = json.dumps(mailgun_failure("gone@example.com", "any key"))
        assert post_to(client, "mailgun", body, **AUTH).status_code == 404
    assert "MAILGUN_WEBHOOK_SIGNING_KEY" in caplog.text  # the operator's clue

    key = "mailgun-signing-key"
    settings.ANYMAIL = {**settings.ANYMAIL, "MAILGUN_WEBHOOK_SIGNING_KEY": key}
    for body in (
        mailgun_failure("gone@example.com", key, signature="0" * 64),
        {"event-data": mailgun_failure("gone@example.com", key)["event-data"]},
    ):
        assert post_to(client, "mailgun", json.dumps(body), **AUTH).status_code == 400
    for headers in WRONG_CREDENTIALS:  # the secret first, even with a good signature
        body = json.dumps(mailgun_failure("gone@example.com", key))
        assert post_to(client, "mailgun", body, **headers).status_code == 400
    assert state_of("gone@example.com") == SubscriberState.CONFIRMED
    body = json.dumps(mailgun_failure("gone@example.com", key))
    assert post_to(client, "mailgun", body, **AUTH).status_code == 200
    assert state_of("gone@example.com") == SubscriberState.BOUNCED
