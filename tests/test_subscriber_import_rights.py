"""A subscriber import writes only what its user may write. With the permission to add
subscribers alone, a file cannot turn an address here off, confirm one, or bring a new one in
confirmed: every new address comes in pending and gets the site's double opt-in (a
confirmation email, through a real SMTP server), and the report says, by kind of row, what
was done and what was refused and why, in the user's language. With the permission to change
subscribers, the file is written as it says."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from blog.mail.subscriber_csv import COLUMNS
from blog.models.subscribers import Subscriber, SubscriberState
from tests import smtp_server as smtp
from tests.background import run_queued_tasks
from tests.factories import author_with

smtp_server = smtp.smtp_server  # the fixture: a real SMTP server for the test

# Confirmation emails are queued after the commit and sent by the worker: transactional.
pytestmark = pytest.mark.django_db(transaction=True)

S = SubscriberState
LINK = re.compile(r"https?://[^\s\"<>]+/subscribe/confirm/[^\s\"<>/]+/")


def biji_file(*rows):
    """biji's own export format, each row an (email, state)."""
    lines = [",".join(COLUMNS)]
    for email, state in rows:
        cells = dict.fromkeys(COLUMNS, "")
        cells.update(email=email, state=state, language="both", interface_language="en")
        lines.append(",".join(cells[name] for name in COLUMNS))
    return ("\n".join(lines) + "\n").encode()


# The review's file: two confirmed readers reported gone, a stranger confirmed, and the rest.
FILE = biji_file(
    ("reader1@example.com", "unsubscribed"),
    ("reader2@example.com", "bounced"),
    ("stranger@example.com", "confirmed"),
    ("waiting@example.com", "confirmed"),
    ("newly-left@example.com", "unsubscribed"),
    ("plain@example.com", "pending"),
    ("left-here@example.com", "confirmed"),
)


@pytest.fixture
def readers():
    now = timezone.now()
    for email in ("reader1@example.com", "reader2@example.com"):
        Subscriber.objects.create(email=email, state=S.CONFIRMED, confirmed_at=now)
    Subscriber.objects.create(email="waiting@example.com", state=S.PENDING)
    Subscriber.objects.create(email="left-here@example.com", state=S.UNSUBSCRIBED)


def logged_in(user, language="en"):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def upload(client, data, **fields):
    return client.post(
        reverse("admin:blog_subscriber_import"),
        {"file": SimpleUploadedFile("list.csv", data, "text/csv"), "wants": "both", **fields},
    )


def text_of(response):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


def states():
    return dict(Subscriber.objects.values_list("email", "state"))


def test_with_the_add_permission_alone_nothing_here_changes_and_new_addresses_must_opt_in(
    readers, smtp_server
):
    adder = logged_in(author_with("add_subscriber", "view_subscriber", username="adder"))
    response = upload(adder, FILE)
    assert response.status_code == 200
    assert states() == {
        "reader1@example.com": S.CONFIRMED,
        "reader2@example.com": S.CONFIRMED,
        "stranger@example.com": S.PENDING,
        "waiting@example.com": S.PENDING,
        "plain@example.com": S.PENDING,
        "left-here@example.com": S.UNSUBSCRIBED,
    }
    stranger = Subscriber.objects.get(email="stranger@example.com")
    assert stranger.confirmed_at is None
    form = adder.get(reverse("admin:blog_subscriber_import"))
    assert 'name="send_confirmations"' not in form.content.decode()  # no choice: they opt in

    page = text_of(response)
    for said in (
        "1 new address added as pending: it receives nothing until it confirms.",
        "1 new address added as pending, not as confirmed: the file says it confirmed, but "
        "only a user who may change subscribers imports addresses as confirmed.",
        "1 address not added: the file says it unsubscribed or bounced, and recording that "
        "needs the permission to change subscribers.",
        "2 addresses here already left on: the file says they unsubscribed or bounced, but "
        "turning an address off needs the permission to change subscribers.",
        "1 pending address here already left pending: the file says it confirmed, but "
        "confirming an address needs the permission to change subscribers.",
        "1 address unsubscribed or bounced here left so: the file says it is subscribed, but "
        "an import never turns an address back on",
        "Confirmation requests are on their way to 2 addresses.",
    ):
        assert said in page

    # The double opt-in: a confirmation email to each new address, and only them.
    run_queued_tasks()
    received = smtp_server.wait_for(2)
    assert sorted(m.rcpt_tos[0] for m in received) == ["plain@example.com", "stranger@example.com"]
    (stranger_mail,) = smtp_server.to("stranger@example.com")
    assert LINK.search(stranger_mail.message.get_body(("plain",)).get_content())
    run_queued_tasks()
    assert len(smtp_server.received()) == 2


def test_the_report_is_in_the_importing_user_s_language(readers, smtp_server):
    adder = logged_in(author_with("add_subscriber", username="adder"), language="zh-hans")
    page = text_of(upload(adder, FILE))
    assert "新增 1 个地址为待确认，而不是已确认" in page
    assert "2 个已有地址未被停用" in page
    assert "被拒绝的操作及原因" in page
    assert "only a user who may change" not in page


def test_with_the_change_permission_the_file_is_written_as_it_says(readers, smtp_server):
    changer = logged_in(
        author_with("add_subscriber", "change_subscriber", "view_subscriber", username="chg")
    )
    response = upload(changer, FILE)
    assert states() == {
        "reader1@example.com": S.UNSUBSCRIBED,
        "reader2@example.com": S.BOUNCED,
        "stranger@example.com": S.CONFIRMED,
        "waiting@example.com": S.CONFIRMED,
        "newly-left@example.com": S.UNSUBSCRIBED,
        "plain@example.com": S.PENDING,
        "left-here@example.com": S.UNSUBSCRIBED,  # never turned back on, by anyone
    }
    page = text_of(response)
    assert "1 new address added as confirmed: the file says it confirmed." in page
    assert "2 addresses here already turned off" in page
    assert "1 pending address here already confirmed" in page
    assert "an import never turns an address back on" in page
    run_queued_tasks()
    assert smtp_server.received() == []  # requests only when asked for...
    upload(changer, biji_file(("later@example.com", "pending")), send_confirmations="on")
    run_queued_tasks()
    (received,) = smtp_server.wait_for(1)  # ...as here
    assert received.rcpt_tos == ["later@example.com"]
