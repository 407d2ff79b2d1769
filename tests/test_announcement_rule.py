"""The one rule by which a note is news (blog.models.announcement), tested once for the three
channels that follow it: email, the feeds' WebSub ping and the fediverse. A note is announced at
its first publication by the author, now or when its scheduled time comes; a task queued for a
time the note has since left announces nothing."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone

from blog.fediverse.ids import actor_names
from blog.fediverse.keys import actor_key
from blog.models import Follower, Note, Status, Wants
from blog.models.announcement import (
    Publication,
    due_time,
    is_first_publication,
    queued_for,
    still_due,
)
from tests import smtp_server as smtp
from tests.background import run_queued_tasks
from tests.factories import make_scheduled, note_form_data
from tests.fediverse_inbox import InboxServer
from tests.mail_data import make_subscriber, received_by
from tests.websub_hub import StubHub

NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)
HOUR = timedelta(hours=1)
NEW = Publication()
DRAFT = Publication(Status.DRAFT, None)
smtp_server = smtp.smtp_server  # the fixture: a real SMTP server for the test

CASES = {
    "a new note published now": (Status.PUBLISHED, NOW, None, NEW, True),
    "a draft published": (Status.PUBLISHED, NOW, None, DRAFT, True),
    "a new note scheduled": (Status.PUBLISHED, NOW + 2 * HOUR, None, NEW, True),
    "a scheduled note moved": (
        Status.PUBLISHED,
        NOW + 5 * HOUR,
        None,
        Publication(Status.PUBLISHED, NOW + 2 * HOUR),
        True,
    ),
    "dated a few hours back": (Status.PUBLISHED, NOW - 20 * HOUR, None, DRAFT, True),
    "an edit of a live note": (
        Status.PUBLISHED,
        NOW,
        None,
        Publication(Status.PUBLISHED, NOW - HOUR),
        False,
    ),
    "taken back and published again": (Status.PUBLISHED, NOW, NOW - HOUR, DRAFT, False),
    "dated back more than a day": (Status.PUBLISHED, NOW - 25 * HOUR, None, DRAFT, False),
    "saved as a draft": (Status.DRAFT, None, None, NEW, False),
}


@pytest.mark.parametrize("case", CASES)
def test_a_change_is_news_only_at_a_first_publication(case):
    status, published_at, announced_at, before, news = CASES[case]
    note = Note(status=status, published_at=published_at, announced_at=announced_at)
    assert is_first_publication(note, before, now=NOW) is news


def test_the_news_is_due_now_or_at_its_time():
    assert due_time(NOW - HOUR, NOW) is None and due_time(NOW, NOW) is None
    assert due_time(NOW + HOUR, NOW) == NOW + HOUR


@pytest.mark.django_db
def test_a_queued_announcement_holds_while_the_note_keeps_its_time():
    note = make_scheduled()
    queued = queued_for(note)
    due = Note.objects.filter(pk=note.pk).filter
    assert not due(still_due(queued)).exists()  # not yet
    with time_machine.travel(note.published_at + HOUR, tick=False):
        assert due(still_due(queued)).exists()
        Note.objects.filter(pk=note.pk).update(published_at=note.published_at + HOUR / 2)
        assert not due(still_due(queued)).exists()  # moved: the task of its new time
        Note.objects.filter(pk=note.pk).update(published_at=note.published_at)
        Note.objects.filter(pk=note.pk).update(status=Status.DRAFT)
        assert not due(still_due(queued)).exists()  # taken back


@pytest.fixture
def channels(settings, smtp_server):
    """A subscriber, a hub and a follower of the English actor: each channel's audience."""
    settings.SITE_URL = "https://blog.example"
    settings.BIJI_MAIL_RATE = 0
    settings.BIJI_FEDIVERSE = True
    make_subscriber("reader@example.com", Wants.BOTH)
    keys = {actor_key(name)[0]: actor_key(name)[2] for name in actor_names()}
    with StubHub() as hub, InboxServer(keys) as inboxes:
        settings.BIJI_WEBSUB_HUB = hub.url
        settings.BIJI_FEDIVERSE_PRIVATE_HOSTS = [inboxes.host]
        Follower.objects.create(
            actor="en",
            remote_actor=inboxes.url("/users/ann"),
            inbox=inboxes.url("/users/ann/inbox"),
            follow_id=inboxes.url("/follows/ann"),
        )

        def announced():
            """What each channel has said so far: emails, feeds pinged, activities."""
            run_queued_tasks()
            return (
                received_by(smtp_server).get("reader@example.com", []),
                sorted(hub.pinged_urls()),
                inboxes.got("/users/ann/inbox"),
            )

        yield announced


def when(moment):
    local = timezone.localtime(moment)
    return {"published_at_0": f"{local:%Y-%m-%d}", "published_at_1": f"{local:%H:%M:%S}"}


@pytest.mark.django_db(transaction=True)
def test_every_channel_announces_a_scheduled_note_once_at_its_time(staff_client, channels):
    start = timezone.now()
    fields = {"title": "Scheduled", "language": "en", "emails_subscribers": "on"}
    data = note_form_data(status=Status.PUBLISHED, **fields, **when(start + 5 * HOUR))
    assert staff_client.post(reverse("admin:blog_note_add"), data).status_code == 302
    note = Note.objects.latest("pk")
    data = note_form_data(note, emails_subscribers="on", **when(start + 2 * HOUR))  # sooner
    assert staff_client.post(reverse("admin:blog_note_change", args=[note.pk]), data).status_code
    assert channels() == ([], [], [])  # not due
    with time_machine.travel(start + 3 * HOUR, tick=False):
        emails, feeds, activities = channels()
        assert emails == ["Scheduled"] and activities == [("Create", "en")]
        assert {"https://blog.example/feed/", "https://blog.example/lang/en/feed/"} <= set(feeds)
    with time_machine.travel(start + 6 * HOUR, tick=False):
        # The tasks of its first time: the note is no longer news at that time.
        assert channels() == (emails, feeds, activities)
