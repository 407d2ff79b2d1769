"""Saving a published note in the admin keeps its publication time to the microsecond unless
the author changed it: the Chinese admin shows the time to the minute, the English one to the
second, and a form sent back as shown must not cut off the rest."""

from datetime import datetime

import pytest
from bs4 import BeautifulSoup
from django.urls import reverse
from django.utils import timezone

from tests.factories import make_note, note_form_data

pytestmark = pytest.mark.django_db

PUBLISHED = timezone.make_aware(datetime(2025, 3, 14, 9, 30, 42, 123456))


def shown_time(client, note, language):
    """The date and time inputs as the change form shows them to an author in ``language``."""
    html = client.get(
        reverse("admin:blog_note_change", args=[note.pk]), HTTP_ACCEPT_LANGUAGE=language
    ).content
    page = BeautifulSoup(html, "html.parser")
    return (
        page.select_one("input[name=published_at_0]")["value"],
        page.select_one("input[name=published_at_1]")["value"],
    )


def save(client, note, language, **changes):
    response = client.post(
        reverse("admin:blog_note_change", args=[note.pk]),
        note_form_data(note, **changes),
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    note.refresh_from_db()
    return note


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_an_unchanged_time_keeps_its_seconds(staff_client, language):
    note = make_note(published_at=PUBLISHED)
    date, time = shown_time(staff_client, note, language)
    save(staff_client, note, language, title="改过的标题", published_at_0=date, published_at_1=time)
    assert note.title == "改过的标题"
    assert note.published_at == PUBLISHED


def test_the_chinese_admin_shows_minutes_and_a_changed_minute_is_saved(staff_client):
    note = make_note(published_at=PUBLISHED)
    date, time = shown_time(staff_client, note, "zh-hans")
    assert (date, time) == ("2025/03/14", "09:30")  # the case this guards: no seconds shown
    save(staff_client, note, "zh-hans", published_at_0=date, published_at_1="09:31")
    assert timezone.localtime(note.published_at).replace(tzinfo=None) == datetime(
        2025, 3, 14, 9, 31
    )


def test_a_changed_date_with_the_same_time_is_saved(staff_client):
    note = make_note(published_at=PUBLISHED)
    _date, time = shown_time(staff_client, note, "zh-hans")
    save(staff_client, note, "zh-hans", published_at_0="2025/03/15", published_at_1=time)
    assert timezone.localtime(note.published_at).replace(tzinfo=None) == datetime(
        2025, 3, 15, 9, 30
    )
