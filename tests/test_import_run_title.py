"""An import run's page shows its time in the site's time zone, the title as its fields."""

import html
from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from blog.models import ImportRun


@pytest.mark.django_db
def test_the_title_of_a_run_is_in_local_time(staff_client, settings):
    settings.TIME_ZONE = "Asia/Singapore"  # UTC+8: 23:30 UTC is 07:30 the next day
    run = ImportRun.objects.create(
        user=User.objects.get(username="author"), archive_name="site.zip", format="auto"
    )
    ImportRun.objects.filter(pk=run.pk).update(created_at=datetime(2026, 12, 5, 23, 30, tzinfo=UTC))
    run.refresh_from_db()
    assert str(run) == "site.zip (2026-12-06 07:30)"
    page = html.unescape(
        staff_client.get(
            reverse("admin:blog_importrun_change", args=[run.pk]), HTTP_ACCEPT_LANGUAGE="en"
        ).text
    )
    assert "<h2>site.zip (2026-12-06 07:30)</h2>" in page
    assert "<title>site.zip (2026-12-06 07:30)" in page
    assert "Dec. 6, 2026, 7:30 a.m." in page  # its "uploaded" field, as before
    assert "2026-12-05 23:30" not in page
