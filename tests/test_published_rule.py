"""The one published rule: status published and a publication time not in the future."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from blog.models import Note, Status
from tests.factories import make_draft, make_note, make_scheduled

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("status", "offset", "visible"),
    [
        (Status.PUBLISHED, timedelta(days=-1), True),
        (Status.PUBLISHED, timedelta(seconds=-1), True),
        (Status.PUBLISHED, timedelta(hours=1), False),  # scheduled
        (Status.DRAFT, timedelta(days=-1), False),
        (Status.DRAFT, timedelta(hours=1), False),
    ],
)
def test_truth_table(status, offset, visible):
    note = make_note(status=status, published_ago=None, published_at=timezone.now() + offset)
    assert (note in Note.objects.published()) is visible
    assert note.is_published() is visible


def test_a_draft_without_date_is_not_published():
    note = make_draft()
    assert note.published_at is None
    assert not Note.objects.published().exists()
    assert not note.is_published()


def test_publishing_without_a_date_publishes_now():
    note = make_draft()
    note.status = Status.PUBLISHED
    note.save()
    assert note.published_at is not None
    assert note.published_at <= timezone.now()
    assert list(Note.objects.published()) == [note]


def test_a_scheduled_note_appears_when_its_time_comes():
    note = make_scheduled()
    assert note.is_scheduled
    assert not Note.objects.published().exists()
    with time_machine.travel(note.published_at + timedelta(minutes=1)):
        assert list(Note.objects.published()) == [note]
        assert not note.is_scheduled


def test_the_database_refuses_a_published_note_without_a_date():
    from django.db import IntegrityError

    note = make_draft()
    with pytest.raises(IntegrityError):
        Note.objects.filter(pk=note.pk).update(status=Status.PUBLISHED)
