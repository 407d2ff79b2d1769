"""Subscribing by email with double opt-in: the form on the home page, after every note and
on /subscribe/, in both interfaces; a confirmation email (through a real SMTP server, sent by
the background runner) with a signed link that expires; confirming is the button on the
page the link opens, never the link itself; the same answer whatever the address's state.
"""

import re
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
import time_machine
from django.core import mail
from django.template.loader import render_to_string
from django.test import Client
from django.utils import timezone, translation
from django_tasks_db.models import DBTaskResult

from blog.caching.pages import HEADER
from blog.mail.confirmation import send_confirmation
from blog.mail.tokens import confirm_token, unsubscribe_token
from blog.models import Subscriber, SubscriberState
from tests import smtp_server as smtp
from tests.background import run_queued_tasks
from tests.factories import make_note, make_series, make_tag

smtp_server = smtp.smtp_server  # the fixture: a real SMTP server for the test

ADDRESS = "Reader@Example.COM"
STORED = "Reader@example.com"  # the domain lower-cased, the local part as given
LINK = re.compile(r"https?://[^\s\"<>]+/subscribe/confirm/[^\s\"<>/]+/")


def subscribe(client, address=ADDRESS, wants="en", language="en", **fields):
    prefix = "/en" if language == "en" else ""
    return client.post(f"{prefix}/subscribe/", {"email": address, "wants": wants, **fields})


def text_and_html(message):
    """The text/plain and text/html parts of an email.message.EmailMessage."""
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    return text, html


def path_of(url):
    return urlsplit(url).path


def queued_confirmations():
    """Confirmations queued (after the commit: tests counting them are transactional)."""
    return DBTaskResult.objects.filter(task_path__endswith="send_confirmation").count()


# --- the whole loop, through the background runner and a real SMTP server --------------------


@pytest.mark.django_db(transaction=True)
def test_subscribe_confirm_from_the_email_and_only_then_subscribed(smtp_server):
    client = Client()
    answer = subscribe(client)
    assert answer.status_code == 200
    assert "Check your inbox" in answer.content.decode()
    subscriber = Subscriber.objects.get()
    assert subscriber.email == STORED
    assert subscriber.state == SubscriberState.PENDING
    assert (subscriber.wants, subscriber.interface_language) == ("en", "en")
    assert smtp_server.received() == []  # the form did not wait for the mail server

    run_queued_tasks()
    (received,) = smtp_server.wait_for(1)
    assert received.rcpt_tos == [STORED]
    message = received.message
    assert "Confirm your subscription" in message["Subject"]
    assert message["Auto-Submitted"] == "auto-generated"
    assert message["From"].addresses[0].display_name == "笔记 biji"  # named after the site
    assert "List-Unsubscribe" not in message  # nothing to unsubscribe from yet
    text, html = text_and_html(message)
    (link,) = set(LINK.findall(text))
    assert link in html
    assert path_of(link).startswith("/en/subscribe/confirm/")  # the interface it came from
    assert "English" in text and "3 days" in text

    # Opening the link (a person, or a mail provider's link scanner) confirms nothing.
    page = client.get(path_of(link))
    assert page.status_code == 200
    assert '<button type="submit">Confirm my subscription</button>' in page.content.decode()
    client.head(path_of(link))
    subscriber.refresh_from_db()
    assert subscriber.state == SubscriberState.PENDING and subscriber.confirmed_at is None

    # The button does, from a browser with no cookie and no CSRF token.
    confirmed = Client(enforce_csrf_checks=True).post(path_of(link))
    assert confirmed.status_code == 200
    assert "You are subscribed" in confirmed.content.decode()
    subscriber.refresh_from_db()
    assert subscriber.state == SubscriberState.CONFIRMED and subscriber.confirmed_at
    assert len(smtp_server.received()) == 1  # a confirmation and nothing else


@pytest.mark.django_db(transaction=True)
def test_the_chinese_interface_sends_a_chinese_confirmation_with_chinese_links(smtp_server):
    subscribe(Client(), "duzhe@例子.中国", wants="zh-hans", language="zh")
    run_queued_tasks()
    (received,) = smtp_server.wait_for(1)
    assert received.message["Content-Language"] == "zh-Hans"
    text, html = text_and_html(received.message)
    assert '<html lang="zh-Hans">' in html
    (link,) = set(LINK.findall(text))
    assert path_of(link).startswith("/subscribe/confirm/")  # the Chinese interface: no /en/
    subscriber = Subscriber.objects.get()
    assert (subscriber.wants, subscriber.interface_language) == ("zh-hans", "zh-hans")
    assert subscriber.email == "duzhe@例子.中国"


@pytest.mark.django_db(transaction=True)
def test_a_mail_server_saying_try_again_is_retried_and_the_confirmation_arrives(
    smtp_server, settings
):
    settings.TASKS = {
        "default": {
            **settings.TASKS["default"],
            "OPTIONS": {"max_attempts": 3, "retry_delay": 0},
        }
    }
    smtp_server.refuse = 1
    subscribe(Client())
    run_queued_tasks()
    run_queued_tasks()
    assert smtp_server.refused == 1
    assert len(smtp_server.wait_for(1)) == 1


# --- what the email and the link say ---------------------------------------------------------


@pytest.fixture
def pending(db):
    return Subscriber.objects.create(email=STORED, interface_language="en")


def test_the_confirmation_names_the_series_asked_for_and_confirming_applies_it(client, pending):
    series = make_series(title_en="GPU notes", title_zh="GPU 笔记")
    send_confirmation.call(pending.pk, "both", series.pk, None, "en")
    (message,) = mail.outbox
    assert "Only the series: GPU notes" in message.body
    assert "Both languages" in message.body
    (link,) = set(LINK.findall(message.body))
    page = client.get(path_of(link)).content.decode()
    assert "GPU notes" in page and "Both languages" in page
    client.post(path_of(link))
    pending.refresh_from_db()
    assert (pending.state, pending.wants, pending.series) == ("confirmed", "both", series)


def test_a_link_tampered_with_is_refused_with_a_way_to_subscribe_again(client, pending):
    token = confirm_token(pending, "en")
    value, timestamp, signature = token.split(":")
    for forged in (
        f"{value.replace('.en.', '.both.')}:{timestamp}:{signature}",  # another choice
        f"{value}:{timestamp}:{signature[:-1]}{'A' if signature[-1] != 'A' else 'B'}",
        f"{value}:{timestamp}",
        "garbage",
        "x" * 2000,
        unsubscribe_token(pending),  # signed for another purpose
    ):
        for method in (client.get, client.post):
            response = method(f"/en/subscribe/confirm/{forged}/")
            assert response.status_code == 400, forged
            page = response.content.decode()
            assert "This link does not work" in page
            assert 'href="/en/subscribe/"' in page
    pending.refresh_from_db()
    assert pending.state == SubscriberState.PENDING


def test_a_link_expires_after_three_days(client, pending, settings):
    assert settings.BIJI_CONFIRM_MAX_AGE == 3 * 86400
    url = f"/en/subscribe/confirm/{confirm_token(pending, 'en')}/"
    with time_machine.travel(timezone.now() + timedelta(days=3, minutes=-1)):
        assert client.get(url).status_code == 200
    with time_machine.travel(timezone.now() + timedelta(days=3, minutes=1)):
        assert client.get(url).status_code == 400
        assert client.post(url).status_code == 400
    pending.refresh_from_db()
    assert pending.state == SubscriberState.PENDING


def test_a_link_dated_in_the_future_is_refused(client, pending):
    with time_machine.travel(timezone.now() + timedelta(hours=2)):
        url = f"/en/subscribe/confirm/{confirm_token(pending, 'en')}/"
    assert client.get(url).status_code == 400


def test_a_link_for_an_address_deleted_since_no_longer_works(client, pending):
    url = f"/en/subscribe/confirm/{confirm_token(pending, 'en')}/"
    pending.delete()
    assert client.post(url).status_code == 400
    assert not Subscriber.objects.exists()


def test_a_link_for_a_series_deleted_since_no_longer_works(client, pending):
    series = make_series()
    url = f"/en/subscribe/confirm/{confirm_token(pending, 'en', series_id=series.pk)}/"
    series.delete()  # takes nothing else: the pending row has no series yet
    assert client.post(url).status_code == 400
    pending.refresh_from_db()
    assert pending.state == SubscriberState.PENDING


def test_pages_the_links_open_are_never_cached(client, pending):
    url = f"/en/subscribe/confirm/{confirm_token(pending, 'en')}/"
    for _ in range(2):
        response = client.get(url)
        assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]
        assert response.get(HEADER) != "hit"
        assert "noindex" in response["X-Robots-Tag"]
    assert not client.cookies  # no session, no CSRF cookie


# --- the same answer, whoever asks -----------------------------------------------------------


def test_the_answer_is_the_same_whatever_the_address_is(client, db):
    states = {
        "confirmed": SubscriberState.CONFIRMED,
        "pending": SubscriberState.PENDING,
        "unsubscribed": SubscriberState.UNSUBSCRIBED,
        "bounced": SubscriberState.BOUNCED,
    }
    for name, state in states.items():
        Subscriber.objects.create(email=f"{name}@example.com", state=state)
    answers = []
    for index, name in enumerate(["new", *states]):
        response = subscribe(client, f"{name}@example.com", REMOTE_ADDR=f"198.51.100.{index}")
        # Every header but the clock's (Date and never_cache's Expires move with the second).
        headers = sorted((k, v) for k, v in response.items() if k not in {"Date", "Expires"})
        answers.append((response.status_code, response.content, headers))
    assert all(answer == answers[0] for answer in answers), "the answer tells them apart"
    assert answers[0][0] == 200


@pytest.mark.django_db(transaction=True)
def test_a_confirmed_address_keeps_its_choice_until_it_confirms_a_new_one(client):
    subscriber = Subscriber.objects.create(
        email="ann@example.com",
        wants="zh-hans",
        state=SubscriberState.CONFIRMED,
        confirmed_at=timezone.now() - timedelta(days=30),
    )
    subscribe(client, "ann@example.com", wants="en")
    subscriber.refresh_from_db()
    assert (subscriber.state, subscriber.wants) == ("confirmed", "zh-hans")
    assert queued_confirmations() == 1  # so the owner can change the language


def test_an_unsubscribed_address_stays_off_until_it_confirms_again(client, db):
    subscriber = Subscriber.objects.create(
        email="ann@example.com", state=SubscriberState.UNSUBSCRIBED
    )
    subscribe(client, "ann@example.com")
    subscriber.refresh_from_db()
    assert subscriber.state == SubscriberState.UNSUBSCRIBED
    client.post(f"/en/subscribe/confirm/{confirm_token(subscriber, 'en')}/")
    subscriber.refresh_from_db()
    assert subscriber.state == SubscriberState.CONFIRMED and subscriber.unsubscribed_at is None


@pytest.mark.django_db(transaction=True)
def test_a_bounced_address_gets_no_confirmation(client):
    Subscriber.objects.create(email="gone@example.com", state=SubscriberState.BOUNCED)
    assert subscribe(client, "gone@example.com").status_code == 200
    assert queued_confirmations() == 0


@pytest.mark.django_db(transaction=True)
def test_one_confirmation_a_day_whatever_the_spelling(client, settings):
    settings.BIJI_SUBSCRIBE_ADDRESS_LIMIT = 100  # the throttle aside: the daily rule alone
    for index, spelling in enumerate(["ann@example.com", "ANN@Example.com", " ann@EXAMPLE.com "]):
        assert subscribe(client, spelling, REMOTE_ADDR=f"198.51.100.{index}").status_code == 200
    assert Subscriber.objects.count() == 1
    assert queued_confirmations() == 1
    with time_machine.travel(timezone.now() + timedelta(hours=23)):
        subscribe(client, "ann@example.com", REMOTE_ADDR="198.51.100.9")
    assert queued_confirmations() == 1
    with time_machine.travel(timezone.now() + timedelta(hours=24, minutes=1)):
        subscribe(client, "ann@example.com", REMOTE_ADDR="198.51.100.10")
    assert queued_confirmations() == 2


@pytest.mark.django_db(transaction=True)
def test_a_malformed_address_gets_the_form_back_with_a_message(client):
    response = subscribe(client, "not an address")
    assert response.status_code == 400
    page = response.content.decode()
    assert "Enter an email address such as name@example.com." in page
    assert 'aria-invalid="true"' in page and 'value="not an address"' in page
    assert "no-store" in response["Cache-Control"]
    assert not Subscriber.objects.exists() and queued_confirmations() == 0


# --- the forms -------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_the_form_is_on_the_home_page_after_a_note_and_on_its_own_page(client, db, language):
    note = make_note(slug="warp")
    prefix = "/en" if language == "en" else ""
    for path in ("/", "/notes/warp/", "/subscribe/"):
        page = client.get(prefix + path).content.decode()
        form = page[page.index('<section class="mail-subscribe"') :]
        assert f'action="{prefix}/subscribe/"' in form, path
        assert 'type="email" name="email"' in form
        assert f'name="wants" value="{language}" checked' in form  # the interface's language
        assert "csrfmiddlewaretoken" not in page  # the pages are cached for everyone
    assert note.pk


def test_the_english_interface_speaks_english(client, db):
    page = client.get("/en/subscribe/").content.decode()
    assert "<h1" in page and "Subscribe by email" in page
    assert "<legend>Notes in</legend>" in page
    assert '<span lang="zh-Hans">中文</span>' in page
    sent = subscribe(client).content.decode()
    assert "Check your inbox" in sent and '<html lang="en"' in sent


def test_the_subscribe_page_is_cached_like_any_page_and_the_answer_is_not(client, db):
    assert client.get("/subscribe/")[HEADER] == "miss"
    assert client.get("/subscribe/")[HEADER] == "hit"
    answer = subscribe(client, language="zh-hans")
    assert "no-store" in answer["Cache-Control"] and not answer.has_header(HEADER)


def test_a_series_or_a_tag_can_be_chosen(client, db):
    series = make_series(title_en="GPU notes", title_zh="GPU 笔记", slug="gpu")
    tag = make_tag("CUDA", "CUDA")
    make_note(series=series, tags=[tag])
    page = client.get("/en/subscribe/?series=gpu").content.decode()
    assert '<option value="series:gpu" selected>GPU notes</option>' in page
    assert f'<option value="tag:{tag.slug}">CUDA</option>' in page
    subscribe(client, "ann@example.com", only="series:gpu")
    assert Subscriber.objects.get().series == series
    subscribe(client, "bob@example.com", only=f"tag:{tag.slug}", REMOTE_ADDR="198.51.100.2")
    assert Subscriber.objects.get(email="bob@example.com").tag == tag
    response = subscribe(client, "cy@example.com", only="series:gone", REMOTE_ADDR="198.51.100.3")
    assert response.status_code == 400
    assert "That series or tag does not exist any more." in response.content.decode()


def test_on_a_series_or_tag_page_the_form_asks_for_that_one(client, db):
    """The include as series_detail.html and tag_detail.html would use it."""
    series = make_series(title_en="GPU notes", title_zh="GPU 笔记", slug="gpu")
    tag = make_tag("CUDA", "CUDA")
    with translation.override("en"):
        on_series = render_to_string("includes/subscribe_form.html", {"only_series": series})
        on_tag = render_to_string("includes/subscribe_form.html", {"only_tag": tag})
    assert '<input type="hidden" name="only" value="series:gpu">' in on_series
    assert "“GPU notes” by email" in on_series
    assert f'<input type="hidden" name="only" value="tag:{tag.slug}">' in on_tag
    assert "Notes tagged “CUDA” by email" in on_tag
    assert 'name="only"' not in render_to_string("includes/subscribe_form.html", {})
