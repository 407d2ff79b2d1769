"""Unsubscribing: the link of every email opens a page with a button, and takes RFC 8058's
one-click POST from a mail client, with no cookie and no CSRF token; it never expires, stops
working once the address is deleted, and a second unsubscription is answered as the first.
An unsubscription is final for the confirmation links sent before it: they confirm nothing,
say why in the reader's language, and offer to subscribe again (a new link comes at once).
"""

import re
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from blog.caching.pages import HEADER
from blog.mail.tokens import confirm_token, read_unsubscribe_token, unsubscribe_token
from blog.mail.urls_for import unsubscribe_url
from blog.models import Subscriber, SubscriberState
from tests import smtp_server as smtp
from tests.background import run_queued_tasks

smtp_server = smtp.smtp_server  # the fixture: a real SMTP server for the test

pytestmark = pytest.mark.django_db

ONE_CLICK = "List-Unsubscribe=One-Click"


@pytest.fixture
def subscriber():
    return Subscriber.objects.create(
        email="ann@example.com",
        state=SubscriberState.CONFIRMED,
        confirmed_at=timezone.now(),
        interface_language="en",
    )


def url_of(subscriber):
    return urlsplit(unsubscribe_url(subscriber)).path


def test_the_page_asks_first_and_its_button_unsubscribes(client, subscriber):
    page = client.get(url_of(subscriber))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Stop sending new notes to ann@example.com?" in text
    assert '<button type="submit">Unsubscribe</button>' in text
    subscriber.refresh_from_db()
    assert subscriber.state == SubscriberState.CONFIRMED  # opening the link changed nothing

    done = client.post(url_of(subscriber))
    assert done.status_code == 200
    assert "No more notes will be sent to ann@example.com." in done.content.decode()
    subscriber.refresh_from_db()
    assert subscriber.state == SubscriberState.UNSUBSCRIBED and subscriber.unsubscribed_at


def test_a_mail_clients_one_click_post_needs_no_cookie_and_no_csrf_token(subscriber):
    mail_client = Client(enforce_csrf_checks=True)
    response = mail_client.post(
        url_of(subscriber), ONE_CLICK, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 200
    assert not response.cookies  # it sets none either
    subscriber.refresh_from_db()
    assert subscriber.state == SubscriberState.UNSUBSCRIBED


def test_one_click_as_multipart_form_data_works_too(subscriber):
    response = Client(enforce_csrf_checks=True).post(
        url_of(subscriber), {"List-Unsubscribe": "One-Click"}
    )
    assert response.status_code == 200
    subscriber.refresh_from_db()
    assert subscriber.state == SubscriberState.UNSUBSCRIBED


def test_unsubscribing_again_is_answered_the_same_and_keeps_the_first_date(client, subscriber):
    client.post(url_of(subscriber))
    subscriber.refresh_from_db()
    first = subscriber.unsubscribed_at
    with time_machine.travel(timezone.now() + timedelta(days=2)):
        again = client.post(url_of(subscriber))
        page = client.get(url_of(subscriber))
    for response in (again, page):
        assert response.status_code == 200
        assert "You are unsubscribed" in response.content.decode()
    subscriber.refresh_from_db()
    assert subscriber.unsubscribed_at == first


@pytest.mark.parametrize("state", [SubscriberState.PENDING, SubscriberState.BOUNCED])
def test_any_address_can_unsubscribe(client, subscriber, state):
    Subscriber.objects.filter(pk=subscriber.pk).update(state=state, state_reason="a bounce")
    client.post(url_of(subscriber))
    subscriber.refresh_from_db()
    assert (subscriber.state, subscriber.state_reason) == (SubscriberState.UNSUBSCRIBED, "")


def test_the_link_never_expires(client, subscriber):
    path = url_of(subscriber)
    with time_machine.travel(timezone.now() + timedelta(days=5 * 365)):
        assert client.post(path).status_code == 200
    subscriber.refresh_from_db()
    assert subscriber.state == SubscriberState.UNSUBSCRIBED


def test_a_link_tampered_with_or_for_a_deleted_address_gets_a_400_page(client, subscriber):
    token = unsubscribe_token(subscriber)
    other = Subscriber.objects.create(email="bob@example.com")
    forged = [
        token.replace(f"{subscriber.pk}:", f"{other.pk}:"),  # someone else's row
        token[:-2],
        "1",
        "",
        confirm_token(subscriber, "en"),  # signed for another purpose
    ]
    for bad in filter(None, forged):
        for method in (client.get, client.post):
            response = method(f"/en/unsubscribe/{bad}/")
            assert response.status_code == 400, bad
            assert "This link does not work" in response.content.decode()
    assert Subscriber.objects.filter(state=SubscriberState.UNSUBSCRIBED).count() == 0

    path = url_of(subscriber)
    subscriber.delete()
    assert client.post(path).status_code == 400
    assert read_unsubscribe_token(token) is None


def test_a_changed_address_invalidates_the_old_link(client, subscriber):
    path = url_of(subscriber)
    Subscriber.objects.filter(pk=subscriber.pk).update(email="ann@example.org")
    assert client.post(path).status_code == 400


def test_the_link_is_absolute_on_site_url_in_the_subscribers_language(subscriber, settings):
    settings.SITE_URL = "https://notes.example.com/blog"
    url = unsubscribe_url(subscriber)
    assert url.startswith("https://notes.example.com/blog/en/unsubscribe/")
    subscriber.interface_language = "zh-hans"
    assert unsubscribe_url(subscriber).startswith("https://notes.example.com/blog/unsubscribe/")
    subscriber.interface_language = "fr"  # not an interface language: the default one
    assert unsubscribe_url(subscriber).startswith("https://notes.example.com/blog/unsubscribe/")


def test_the_pages_are_never_cached_and_not_indexed(client, subscriber):
    for _ in range(2):
        response = client.get(url_of(subscriber))
        assert "no-store" in response["Cache-Control"]
        assert response.get(HEADER) != "hit"
        assert "noindex" in response["X-Robots-Tag"]


def test_the_chinese_interface_opens_the_chinese_page(client, subscriber):
    subscriber.interface_language = "zh-hans"
    subscriber.save()
    page = client.get(url_of(subscriber))
    assert page.status_code == 200 and '<html lang="zh-Hans"' in page.content.decode()


# --- confirmation links sent before an unsubscription ----------------------------------------

LINK = re.compile(r"https?://[^\s\"<>]+/subscribe/confirm/[^\s\"<>/]+/")


def confirmation_link(smtp_server, count):
    """The path of the confirmation link in the ``count``-th message the server received."""
    message = smtp_server.wait_for(count)[count - 1].message
    (link,) = set(LINK.findall(message.get_body(("plain",)).get_content()))
    return urlsplit(link).path


def subscribe_on_the_site(wants):
    response = Client().post("/en/subscribe/", {"email": "ann@example.com", "wants": wants})
    assert response.status_code == 200
    run_queued_tasks()


@pytest.mark.django_db(transaction=True)
def test_a_link_sent_before_an_unsubscription_no_longer_confirms_and_says_why(smtp_server):
    start = timezone.now()
    subscribe_on_the_site("zh-hans")
    old_link = confirmation_link(smtp_server, 1)
    client = Client()
    assert client.post(old_link).status_code == 200
    ann = Subscriber.objects.get(email="ann@example.com")
    assert ann.state == SubscriberState.CONFIRMED

    with time_machine.travel(start + timedelta(hours=1)):
        client.post(url_of(ann), ONE_CLICK, content_type="application/x-www-form-urlencoded")
    with time_machine.travel(start + timedelta(hours=2)):
        for method in (client.get, client.post):
            response = method(old_link)
            assert response.status_code == 400
            page = response.content.decode()
            assert "You unsubscribed after this link was sent" in page
            assert 'href="/en/subscribe/"' in page  # "Subscribe again"
            assert "Confirm my subscription" not in page
        ann.refresh_from_db()
        assert ann.state == SubscriberState.UNSUBSCRIBED

        # Subscribing again sends a new link at once (the day since the first is not over),
        # and the new link works.
        subscribe_on_the_site("en")
        new_link = confirmation_link(smtp_server, 2)
        assert client.post(new_link).status_code == 200
        ann.refresh_from_db()
        assert (ann.state, ann.wants) == (SubscriberState.CONFIRMED, "en")

        # The old link stays dead: it would set the old choice again.
        response = client.post(old_link)
        assert response.status_code == 400
        assert "A newer confirmation link was sent" in response.content.decode()
        ann.refresh_from_db()
        assert (ann.state, ann.wants) == (SubscriberState.CONFIRMED, "en")


def test_the_page_speaks_the_reader_s_language_and_knows_a_bounce(client, subscriber):
    start = timezone.now()
    with time_machine.travel(start - timedelta(days=1)):
        token = confirm_token(subscriber, "both")
    subscriber.interface_language = "zh-hans"
    subscriber.save()
    client.post(url_of(subscriber))  # unsubscribed now, after the link was sent
    page = client.get(f"/subscribe/confirm/{token}/").content.decode()
    assert "你在这个链接发出之后退订了" in page and 'href="/subscribe/"' in page

    Subscriber.objects.filter(pk=subscriber.pk).update(state=SubscriberState.BOUNCED)
    response = client.post(f"/en/subscribe/confirm/{token}/")
    assert response.status_code == 400
    page = response.content.decode()
    assert "bounced or was reported as spam after this link was sent" in page
    assert 'href="/en/subscribe/"' not in page  # a new link would not be sent to it
    subscriber.refresh_from_db()
    assert subscriber.state == SubscriberState.BOUNCED

    # Let subscribe again in the admin, it is pending: the old link still confirms nothing.
    admin = Client(HTTP_ACCEPT_LANGUAGE="en")
    admin.force_login(get_user_model().objects.create_superuser("lin", "lin@example.com", None))
    allow = {"action": "allow_again", "_selected_action": [subscriber.pk]}
    admin.post(reverse("admin:blog_subscriber_changelist"), allow)
    subscriber.refresh_from_db()
    assert subscriber.state == SubscriberState.PENDING
    assert client.post(f"/en/subscribe/confirm/{token}/").status_code == 400
    subscriber.refresh_from_db()
    assert subscriber.state == SubscriberState.PENDING
