"""Subscribers in the admin: the list with states, filters and search; an address never
confirmed by hand; the CSV export (the whole list, the selection) and import (each format, bad
files answered with a 400); deleting an address deletes what was sent to it; one address's
data exported on request. On the note's side: delivery counts in the list (no query per
note), the panel on its page, a test email to the author through a real SMTP server, and
sending by hand after a confirmation page."""

import csv
import io
import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone, translation

from blog.mail.subscriber_csv import COLUMNS
from blog.models.subscribers import Delivery, DeliveryState, Subscriber, SubscriberState, Wants
from tests.background import run_queued_tasks
from tests.factories import author_with, make_note, make_series

pytestmark = pytest.mark.django_db
pytest_plugins = ["tests.smtp_server"]

S = SubscriberState
LIST = "admin:blog_subscriber_changelist"


@pytest.fixture
def author(client):
    user = get_user_model().objects.create_superuser("lin", "lin@example.com", None)
    client.force_login(user)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"  # the English admin unless a test asks
    return client


def add(email, state=S.CONFIRMED, **kwargs):
    return Subscriber.objects.create(email=email, state=state, **kwargs)


_ids = iter(range(1, 10**6))


def deliver(note, subscriber, state=DeliveryState.SENT, **kwargs):
    return Delivery.objects.create(
        note=note, subscriber=subscriber, message_id=f"<t.{next(_ids)}@example.com>",
        state=state, sent_at=timezone.now() if state == DeliveryState.SENT else None, **kwargs,
    )  # fmt: skip


def text_of(response):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def messages_of(response):
    return [str(message) for message in response.context["messages"]]


# --- the list -----------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_the_list_shows_each_address_its_language_what_it_follows_and_its_state(author, language):
    series = make_series(title_en="GPU kernels", title_zh="GPU 内核")
    add("ann@example.com", wants=Wants.CHINESE, series=series)
    add("bo@example.com", state=S.PENDING, wants=Wants.ENGLISH)
    add("cy@example.com", state=S.BOUNCED)
    page = text_of(author.get(reverse(LIST), HTTP_ACCEPT_LANGUAGE=language))
    with translation.override(language):
        for email, state in [
            ("ann@example.com", S.CONFIRMED),
            ("bo@example.com", S.PENDING),
            ("cy@example.com", S.BOUNCED),
        ]:
            row = re.search(re.escape(email) + r".*?(?=\w+@example\.com|$)", page)[0]
            assert str(state.label) in row, (email, row)
        assert series.display_name in page


def test_filters_by_state_and_language_and_search_by_address(author):
    add("ann@example.com", wants=Wants.CHINESE)
    add("bo@example.com", state=S.BOUNCED, wants=Wants.ENGLISH)
    add("annie@example.org", state=S.PENDING, wants=Wants.ENGLISH)

    def listed(**query):
        response = author.get(reverse(LIST), query)
        return sorted(s.email for s in response.context["cl"].result_list)

    assert listed(state="bounced") == ["bo@example.com"]
    assert listed(wants="en") == ["annie@example.org", "bo@example.com"]
    assert listed(q="ann") == ["ann@example.com", "annie@example.org"]


def test_an_address_is_never_confirmed_nor_changed_by_hand(author):
    pending = add("wait@example.com", state=S.PENDING)
    url = reverse("admin:blog_subscriber_change", args=[pending.pk])
    page = author.get(url).content.decode()
    assert 'name="state"' not in page and 'name="email"' not in page
    author.post(
        url,
        {"email": "other@example.com", "state": "confirmed", "wants": "en",
         "interface_language": "en"},
    )  # fmt: skip
    pending.refresh_from_db()
    assert (pending.email, pending.state, pending.wants) == ("wait@example.com", S.PENDING, "en")


def test_an_address_added_by_hand_is_pending(author):
    author.post(
        reverse("admin:blog_subscriber_add"),
        {"email": "New@Example.COM", "wants": "both", "interface_language": "zh-hans"},
    )
    added = Subscriber.objects.get()
    assert (added.email, added.state, added.source) == ("New@example.com", S.PENDING, "admin")


def test_the_unsubscribe_action_turns_the_selected_addresses_off(author):
    on, waiting, bounced = (
        add("on@example.com"),
        add("w@example.com", S.PENDING),
        add("b@example.com", S.BOUNCED),
    )
    response = author.post(
        reverse(LIST),
        {"action": "unsubscribe", "_selected_action": [on.pk, waiting.pk, bounced.pk]},
        follow=True,
    )
    states = dict(Subscriber.objects.values_list("email", "state"))
    assert states == {
        "on@example.com": S.UNSUBSCRIBED,
        "w@example.com": S.UNSUBSCRIBED,
        "b@example.com": S.BOUNCED,
    }
    assert "2 addresses unsubscribed." in messages_of(response)
    assert "lin" in Subscriber.objects.get(email="on@example.com").state_reason


@pytest.mark.django_db(transaction=True)
def test_pending_addresses_get_a_confirmation_request_at_most_once_a_day(client, smtp_server):
    client.force_login(get_user_model().objects.create_superuser("lin", "lin@example.com", None))
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    waiting, on = add("wait@example.com", S.PENDING), add("on@example.com")
    action = {"action": "request_confirmation", "_selected_action": [waiting.pk, on.pk]}
    response = client.post(reverse(LIST), action, follow=True)
    assert "A confirmation request is on its way to 1 address." in messages_of(response)
    run_queued_tasks()
    (received,) = smtp_server.wait_for(1)
    assert received.rcpt_tos == ["wait@example.com"]
    again = client.post(reverse(LIST), action, follow=True)
    assert "sent one in the last day" in messages_of(again)[0]
    run_queued_tasks()
    assert len(smtp_server.received()) == 1


def test_a_bounced_address_may_be_let_subscribe_again_but_stays_unconfirmed(author):
    bounced, on = (
        add("b@example.com", S.BOUNCED, state_reason="Postmark: bounced"),
        add("on@example.com"),
    )
    author.post(reverse(LIST), {"action": "allow_again", "_selected_action": [bounced.pk, on.pk]})
    assert dict(Subscriber.objects.values_list("email", "state")) == {
        "b@example.com": S.PENDING,
        "on@example.com": S.CONFIRMED,
    }


# --- export --------------------------------------------------------------------------------


def rows_of(response):
    assert response["Content-Disposition"].startswith("attachment;")
    assert response["Content-Type"].startswith("text/csv")
    text = b"".join(response.streaming_content).decode("utf-8-sig")
    return list(csv.reader(io.StringIO(text)))


def test_the_csv_export_holds_every_address_under_its_documented_columns(author):
    series = make_series(slug="kernels")
    add("ann@example.com", wants=Wants.CHINESE, series=series, confirmed_at=timezone.now())
    add("bo@example.com", state=S.UNSUBSCRIBED)
    header, *rows = rows_of(author.get(reverse("admin:blog_subscriber_export")))
    assert header == COLUMNS
    by_email = {row[0]: dict(zip(header, row, strict=True)) for row in rows}
    assert set(by_email) == {"ann@example.com", "bo@example.com"}
    ann = by_email["ann@example.com"]
    assert (ann["language"], ann["series"], ann["state"]) == ("zh-hans", "kernels", "confirmed")
    assert ann["confirmed_at"].endswith("+00:00")


def test_the_selected_addresses_export_as_csv(author):
    ann, _bo = add("ann@example.com"), add("bo@example.com")
    response = author.post(
        reverse(LIST), {"action": "export_selected", "_selected_action": [ann.pk]}
    )
    assert [row[0] for row in rows_of(response)[1:]] == ["ann@example.com"]


def test_one_address_s_data_is_exported_with_every_delivery(author):
    ann, bo = add("ann@example.com", source="form"), add("bo@example.com")
    note = make_note(title="Warp scheduling")
    deliver(note, ann)
    deliver(make_note(), bo)
    response = author.get(reverse("admin:blog_subscriber_data", args=[ann.pk]))
    assert response["Content-Disposition"] == f'attachment; filename="subscriber-{ann.pk}.json"'
    data = json.loads(response.content)
    assert (data["email"], data["state"], data["source"]) == (
        "ann@example.com",
        "confirmed",
        "form",
    )
    assert [d["note"] for d in data["deliveries"]] == ["Warp scheduling"]
    assert data["deliveries"][0]["note_url"].startswith("http")
    assert "bo@example.com" not in response.content.decode()
    change_page = author.get(reverse("admin:blog_subscriber_change", args=[ann.pk]))
    assert reverse("admin:blog_subscriber_data", args=[ann.pk]) in change_page.content.decode()


def test_deleting_an_address_lists_and_deletes_its_deliveries(author):
    ann, bo = add("ann@example.com"), add("bo@example.com")
    for _ in range(2):
        deliver(make_note(), ann)
    deliver(make_note(), bo)
    url = reverse("admin:blog_subscriber_delete", args=[ann.pk])
    confirm = text_of(author.get(url))
    with translation.override("en"):
        assert "deliveries: 2" in confirm.lower()
    author.post(url, {"post": "yes"})
    assert not Subscriber.objects.filter(email="ann@example.com").exists()
    assert list(Delivery.objects.values_list("subscriber__email", flat=True)) == ["bo@example.com"]


# --- import --------------------------------------------------------------------------------

GHOST = (
    "id,email,name,note,subscribed_to_emails,complimentary_plan,stripe_customer_id,created_at,"
    "deleted_at,labels,tiers\n"
    "1,on@example.com,Ann,,true,false,,2019-10-30T14:52:08.000Z,,,\n"
    "2,unsaid@example.com,Bo,,,false,,2019-10-30T14:52:08.000Z,,,\n"
    "3,not an address,Cy,,true,false,,,,,\n"
)


def upload(author, data, name="members.csv", language="en", **fields):
    return author.post(
        reverse("admin:blog_subscriber_import"),
        {"file": SimpleUploadedFile(name, data, "text/csv"), "wants": "both", **fields},
        HTTP_ACCEPT_LANGUAGE=language,
    )


def test_an_import_reports_what_came_in_and_each_bad_line(author):
    response = upload(author, GHOST.encode())
    assert response.status_code == 200
    page = text_of(response)
    assert "Imported from Ghost" in page
    assert "1 new address added as confirmed" in page
    assert "1 new address added as pending" in page
    assert re.search(r"\b4 “not an address” is not an email address", page)
    states = dict(Subscriber.objects.values_list("email", "state"))
    assert states == {"on@example.com": S.CONFIRMED, "unsaid@example.com": S.PENDING}
    assert Subscriber.objects.get(email="on@example.com").source == "import: members.csv"


@pytest.mark.parametrize("language", ["zh-hans", "en"])
@pytest.mark.parametrize(
    "data",
    [b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00", b"name,city\nAnn,Paris\n", b""],
    ids=["binary", "unknown-columns", "empty"],
)
def test_a_file_that_cannot_be_read_is_a_400_with_its_reason(author, data, language):
    response = upload(author, data, language=language)
    assert response.status_code == 400
    errors = response.context["form"].errors["file"]
    assert errors and errors[0]
    assert "errorlist" in response.content.decode()
    assert not Subscriber.objects.exists()


def test_importing_needs_the_permission_to_add_subscribers(client):
    client.force_login(author_with("view_subscriber", username="viewer"))
    assert client.get(reverse("admin:blog_subscriber_import")).status_code == 403
    assert upload(client, GHOST.encode()).status_code == 403
    assert not Subscriber.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_confirmation_requests_go_out_only_when_asked_and_only_to_pending_addresses(
    client, smtp_server
):
    user = get_user_model().objects.create_superuser("lin", "lin@example.com", None)
    client.force_login(user)
    upload(client, GHOST.encode())
    run_queued_tasks()
    assert smtp_server.received() == []
    Subscriber.objects.all().delete()

    upload(client, GHOST.encode(), send_confirmations="on")
    run_queued_tasks()
    (received,) = smtp_server.wait_for(1)
    assert received.rcpt_tos == ["unsaid@example.com"]


# --- a note's emails -------------------------------------------------------------------------


def test_the_note_list_shows_each_note_s_email_counts_in_one_query(author):
    readers = [add(f"r{i}@example.com") for i in range(4)]
    note = make_note(title="Emailed note")
    deliver(note, readers[0])
    deliver(note, readers[1])
    deliver(note, readers[2], state=DeliveryState.FAILED, error="550 no such user")
    deliver(note, readers[3], state=DeliveryState.QUEUED)

    def list_queries():
        with CaptureQueriesContext(connection) as queries:
            response = author.get(reverse("admin:blog_note_changelist"))
        assert response.status_code == 200
        return response, len(queries)

    list_queries()  # once for what a process reads once
    response, few = list_queries()
    row = re.search(r"Emailed note.*?</tr>", response.content.decode(), re.S)[0]
    assert "✉ 2 sent, 1 failed, 1 waiting" in row
    for i in range(5):
        deliver(make_note(title=f"Other {i}"), readers[i % 4])
    assert list_queries()[1] == few

    failed = author.get(reverse("admin:blog_note_changelist"), {"emails": "failed"})
    assert [n.title for n in failed.context["cl"].result_list] == ["Emailed note"]


def test_the_note_page_shows_its_emails_and_the_buttons(author):
    note = make_note(announced_at=timezone.now())
    deliver(note, add("a@example.com"))
    deliver(note, add("b@example.com"), state=DeliveryState.FAILED, error="550 mailbox unknown")
    page = author.get(reverse("admin:blog_note_change", args=[note.pk])).content.decode()
    assert "1 sent, 1 failed" in page
    assert "b@example.com: 550 mailbox unknown" in page
    assert reverse("admin:blog_note_test_email", args=[note.pk]) in page
    assert reverse("admin:blog_note_send_email", args=[note.pk]) in page
    assert 'name="emails_subscribers"' in page


def test_a_note_published_before_subscribers_can_be_sent_by_hand_after_a_confirmation(author):
    note = make_note(title="Old news", announced_at=timezone.now())
    add("ann@example.com", wants=Wants.CHINESE)
    add("bo@example.com", wants=Wants.ENGLISH)  # the note is Chinese: not for Bo
    add("cy@example.com", state=S.PENDING)
    url = reverse("admin:blog_note_send_email", args=[note.pk])
    page = text_of(author.get(url))
    assert "will be emailed to 1 subscriber" in page
    assert not Delivery.objects.exists()
    response = author.post(url, follow=True)
    assert list(Delivery.objects.values_list("subscriber__email", flat=True)) == ["ann@example.com"]
    assert "“Old news” is on its way to 1 subscriber." in messages_of(response)
    again = author.post(url, follow=True)
    assert Delivery.objects.count() == 1
    assert "was sent it already" in messages_of(again)[0]


def test_a_draft_cannot_be_sent_to_subscribers(author):
    draft = make_note(status="draft", published_ago=None)
    add("ann@example.com")
    response = author.post(reverse("admin:blog_note_send_email", args=[draft.pk]), follow=True)
    assert not Delivery.objects.exists()
    assert "Only a published note" in messages_of(response)[0]


def test_a_test_email_arrives_at_the_author_s_address(author, smtp_server):
    note = make_note(title="Warp 调度")
    url = reverse("admin:blog_note_test_email", args=[note.pk])
    assert "lin@example.com" in text_of(author.get(url))
    assert smtp_server.received() == []  # the page sends nothing
    response = author.post(url, follow=True)
    (received,) = smtp_server.wait_for(1)
    assert received.rcpt_tos == ["lin@example.com"]
    assert "Warp 调度" in received.message["Subject"]
    assert "A test email of “Warp 调度” was sent to lin@example.com." in messages_of(response)
    assert not Delivery.objects.exists()  # a test is no delivery: subscribers still get it


def test_a_test_email_that_cannot_be_sent_says_so(author, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 2
    note = make_note()
    response = author.post(reverse("admin:blog_note_test_email", args=[note.pk]), follow=True)
    assert response.status_code == 200
    assert "could not be sent" in messages_of(response)[0]
