"""Conditional GETs are answered from the content version before any view runs: one query.

Committed data (``transaction=True``): the validators follow the version, which moves after
commits; inside a test transaction the middleware steps aside (blog.caching.pages).
"""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from django.utils.http import http_date

from blog.models import SiteSettings
from blog.public.views import HomeView
from tests.factories import make_note, make_page, make_series, make_tag

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def content(db):
    SiteSettings.objects.create(title="笔记 biji", author="Ada")
    tag = make_tag("Scheduling", "调度")
    series = make_series(title_en="GPU notes", title_zh="GPU 笔记", slug="gpu-notes")
    note = make_note(title="第一篇", slug="first", tags=[tag], series=series, series_position=1)
    make_page(title="About", slug="about")
    return {"note": note, "tag": tag}


def public_urls(note):
    year, month = note.published_at.year, note.published_at.month
    return [
        "/",
        "/?page=1",
        "/en/",
        "/notes/first/",
        "/en/notes/first/",
        "/tags/",
        "/tags/scheduling/",
        "/series/",
        "/series/gpu-notes/",
        "/archive/",
        f"/archive/{year}/",
        f"/archive/{year}/{month}/",
        "/pages/about/",
        "/feed/",
        "/feed/atom/",
        "/tags/scheduling/feed/",
        "/series/gpu-notes/feed/atom/",
        "/lang/en/feed/",
        "/sitemap.xml",
        "/sitemap-notes.xml",
    ]


def test_every_public_page_and_feed_answers_304_with_one_query(
    client, content, django_assert_max_num_queries
):
    # Seconds after the content was made: a date is judged only once the second of the last
    # change is over (blog.caching.validators), or it could stand for two states.
    with time_machine.travel(timezone.now() + timedelta(seconds=5)):
        for url in public_urls(content["note"]):
            first = client.get(url)
            assert first.status_code == 200, url
            etag, modified = first["ETag"], first["Last-Modified"]
            assert etag.startswith('W/"'), url
            with django_assert_max_num_queries(1, info=url):
                by_etag = client.get(url, HTTP_IF_NONE_MATCH=etag)
            assert by_etag.status_code == 304, url
            assert by_etag["ETag"] == etag and "public" in by_etag["Cache-Control"], url
            with django_assert_max_num_queries(1, info=url):
                by_date = client.get(url, HTTP_IF_MODIFIED_SINCE=modified)
            assert by_date.status_code == 304, url


def test_the_view_does_not_run(client, content, monkeypatch):
    etag = client.get("/")["ETag"]

    def fail(*args, **kwargs):
        raise AssertionError("the view ran")

    monkeypatch.setattr(HomeView, "get", fail)
    assert client.get("/", HTTP_IF_NONE_MATCH=etag).status_code == 304


def test_an_edit_changes_the_validators(client, content):
    first = client.get("/notes/first/")
    note = content["note"]
    note.title = "第一篇（修订）"
    note.save()
    again = client.get("/notes/first/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200 and "修订" in again.content.decode()
    assert again["ETag"] != first["ETag"]
    late = http_date((timezone.now() - timedelta(hours=1)).timestamp())
    assert client.get("/notes/first/", HTTP_IF_MODIFIED_SINCE=late).status_code == 200


def test_etags_differ_by_url_and_language(client, content):
    etags = {client.get(url)["ETag"] for url in ["/", "/en/", "/?page=1", "/tags/"]}
    assert len(etags) == 4
    chinese = client.get("/")["ETag"]
    assert client.get("/en/", HTTP_IF_NONE_MATCH=chinese).status_code == 200


def test_private_and_missing_pages_get_no_version_validators(client, staff_client, content):
    from django.test import Client

    reader = Client()
    assert reader.get("/notes/none/").status_code == 404
    assert not reader.get("/notes/none/").has_header("Last-Modified")
    version_etag = reader.get("/notes/first/")["ETag"]
    # The author's requests (a session) are left to the view: no version validators.
    response = staff_client.get("/notes/first/", HTTP_IF_NONE_MATCH=version_etag)
    assert response.status_code == 200 and response.get("ETag") != version_etag
