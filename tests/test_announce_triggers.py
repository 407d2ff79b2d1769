"""When a note is emailed: its first publication by the admin, "publish now", or its scheduled
time coming due; never an edit, a re-publication, an import or a bulk "Publish"."""

from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from blog.mail.announce import send_by_hand
from blog.models import Delivery, Note, Status, SubscriberState, Wants
from tests import smtp_server as smtp
from tests.factories import make_draft, note_form_data
from tests.imports import import_through_admin, site_folder, zipped
from tests.mail_data import make_subscriber, received_by, send_queued

pytestmark = pytest.mark.django_db(transaction=True)
smtp_server = smtp.smtp_server  # the fixture: a real SMTP server for the test

ADDRESS = "reader@example.com"
ON = {"emails_subscribers": "on"}  # the switch's checkbox, ticked as a new note has it


@pytest.fixture
def reader(settings):
    settings.BIJI_MAIL_RATE = 0
    return make_subscriber(ADDRESS, Wants.BOTH)


def add_note(client, **fields):
    """Save a new note through the admin's add form; the note."""
    response = client.post(reverse("admin:blog_note_add"), note_form_data(**{**ON, **fields}))
    assert response.status_code == 302, response.content.decode()[:2000]
    return Note.objects.latest("pk")


def change_note(client, note, **fields):
    data = note_form_data(note, **fields)
    if note.emails_subscribers and "emails_subscribers" not in fields:
        data.update(ON)
    response = client.post(reverse("admin:blog_note_change", args=[note.pk]), data)
    assert response.status_code == 302, response.content.decode()[:2000]
    note.refresh_from_db()
    return note


def action(client, name, *notes):
    client.post(
        reverse("admin:blog_note_changelist"),
        {"action": name, "_selected_action": [note.pk for note in notes]},
    )


def when(moment):
    return {
        "published_at_0": timezone.localtime(moment).strftime("%Y-%m-%d"),
        "published_at_1": timezone.localtime(moment).strftime("%H:%M:%S"),
    }


def sent(smtp_server):
    send_queued()
    return received_by(smtp_server).get(ADDRESS, [])


def test_a_note_published_in_the_admin_is_emailed_once(staff_client, reader, smtp_server):
    note = add_note(staff_client, title="First", status=Status.PUBLISHED)
    assert sent(smtp_server) == ["First"]
    assert Note.objects.get(pk=note.pk).announced_at is not None
    # An edit of the live note, and another, email nobody.
    change_note(staff_client, note, body="Edited.")
    change_note(staff_client, note, title="First, edited")
    assert sent(smtp_server) == ["First"]


def test_a_draft_is_emailed_when_it_is_published_not_before(staff_client, reader, smtp_server):
    note = add_note(staff_client, title="Draft")
    change_note(staff_client, note, body="Still a draft.")
    assert sent(smtp_server) == []
    change_note(staff_client, note, status=Status.PUBLISHED)
    assert sent(smtp_server) == ["Draft"]


def test_a_note_taken_back_and_published_again_is_not_emailed_again(
    staff_client, reader, smtp_server
):
    note = add_note(staff_client, title="Once", status=Status.PUBLISHED)
    assert sent(smtp_server) == ["Once"]
    change_note(staff_client, note, status=Status.DRAFT)
    change_note(staff_client, note, status=Status.PUBLISHED)
    action(staff_client, "unpublish", note)
    action(staff_client, "publish_now", note)
    assert sent(smtp_server) == ["Once"]


def test_publish_now_emails_and_the_bulk_publish_action_does_not(staff_client, reader, smtp_server):
    bulk, now = make_draft(title="Bulk"), make_draft(title="Now")
    action(staff_client, "publish", bulk)
    action(staff_client, "publish_now", now)
    assert Note.objects.get(pk=bulk.pk).is_published()
    assert sent(smtp_server) == ["Now"]
    # Live since the bulk action: its edits are edits, not a publication.
    change_note(staff_client, Note.objects.get(pk=bulk.pk), body="Edited.")
    assert sent(smtp_server) == ["Now"]


def test_the_dont_email_switch(staff_client, reader, smtp_server):
    note = add_note(staff_client, title="Quiet", status=Status.PUBLISHED, emails_subscribers="")
    assert sent(smtp_server) == []
    # Its first publication has passed: switched on and published again, still nothing...
    change_note(staff_client, note, status=Status.DRAFT)
    change_note(staff_client, note, status=Status.PUBLISHED, emails_subscribers="on")
    assert sent(smtp_server) == []
    # ...until the author sends it by hand, once however often asked.
    assert send_by_hand(note) == 1
    assert send_by_hand(note) == 0
    assert sent(smtp_server) == ["Quiet"]


def test_a_note_published_with_an_old_date_is_not_news(staff_client, reader, smtp_server):
    old = timezone.now() - timedelta(days=400)
    add_note(staff_client, title="From the archive", status=Status.PUBLISHED, **when(old))
    assert sent(smtp_server) == []


def test_an_import_emails_nobody(staff_client, reader, smtp_server, tmp_path):
    today = timezone.localdate().isoformat()
    folder = site_folder(
        tmp_path / "site",
        {"content/posts/new.md": f'---\ntitle: "Imported today"\ndate: {today}\n---\n\nBody.\n'},
    )
    import_through_admin(staff_client, zipped(folder))
    assert Note.objects.get(title="Imported today").is_published()
    assert sent(smtp_server) == []


def test_a_scheduled_note_is_emailed_once_when_it_comes_due(staff_client, reader, smtp_server):
    start = timezone.now()
    add_note(
        staff_client, title="Scheduled", status=Status.PUBLISHED, **when(start + timedelta(hours=2))
    )
    assert sent(smtp_server) == []  # not due: the worker leaves it
    with time_machine.travel(start + timedelta(hours=2, minutes=1), tick=False):
        assert sent(smtp_server) == ["Scheduled"]
        assert sent(smtp_server) == ["Scheduled"]
    with time_machine.travel(start + timedelta(days=1), tick=False):
        assert sent(smtp_server) == ["Scheduled"]


def test_a_note_scheduled_again_is_emailed_at_its_new_time(staff_client, reader, smtp_server):
    start = timezone.now()
    note = add_note(
        staff_client, title="Moved", status=Status.PUBLISHED, **when(start + timedelta(hours=2))
    )
    change_note(staff_client, note, **when(start + timedelta(hours=5)))
    with time_machine.travel(start + timedelta(hours=3), tick=False):
        assert sent(smtp_server) == []  # the first time's task finds the note not due
    with time_machine.travel(start + timedelta(hours=6), tick=False):
        assert sent(smtp_server) == ["Moved"]


def test_a_scheduled_note_dated_back_instead_is_not_emailed(staff_client, reader, smtp_server):
    start = timezone.now()
    note = add_note(
        staff_client,
        title="Dated back",
        status=Status.PUBLISHED,
        **when(start + timedelta(hours=2)),
    )
    change_note(staff_client, note, **when(start - timedelta(days=400)))  # live, and old
    with time_machine.travel(start + timedelta(hours=3), tick=False):
        assert sent(smtp_server) == []  # the task of its old time finds another time


def test_a_scheduled_note_switched_off_or_taken_back_is_not_emailed(
    staff_client, reader, smtp_server
):
    start = timezone.now()
    due = start + timedelta(hours=2)
    off = add_note(staff_client, title="Off", status=Status.PUBLISHED, **when(due))
    back = add_note(staff_client, title="Back", status=Status.PUBLISHED, **when(due))
    change_note(staff_client, off, emails_subscribers="")
    change_note(staff_client, back, status=Status.DRAFT)
    with time_machine.travel(due + timedelta(minutes=1), tick=False):
        assert sent(smtp_server) == []


def test_unsubscribing_stops_the_next_note(staff_client, reader, smtp_server, client):
    add_note(staff_client, title="Before", status=Status.PUBLISHED)
    assert sent(smtp_server) == ["Before"]
    (received,) = smtp_server.received()
    link = received.message["List-Unsubscribe"].split(",")[0].strip().strip("<>")
    path = link.split("://", 1)[1].split("/", 1)[1]
    assert client.post(f"/{path}", {"List-Unsubscribe": "One-Click"}).status_code == 200
    reader.refresh_from_db()
    assert reader.state == SubscriberState.UNSUBSCRIBED
    add_note(staff_client, title="After", status=Status.PUBLISHED)
    assert sent(smtp_server) == ["Before"]
    assert not Delivery.objects.filter(note__title="After").exists()
