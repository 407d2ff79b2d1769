"""Unsubscribing: the link of every email opens a page with a button, and takes RFC 8058's
one-click POST from a mail client, with no cookie and no CSRF token; it never expires, stops
working once the address is deleted, and a second unsubscription is answered as the first.
"""

from datetime import timedelta
from urllib.parse import urlsplit

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from blog.caching.pages import HEADER
from blog.mail.tokens import confirm_token, read_unsubscribe_token, unsubscribe_token
from blog.mail.urls_for import unsubscribe_url
from blog.models import Subscriber, SubscriberState

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
