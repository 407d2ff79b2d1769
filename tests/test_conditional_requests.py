"""Conditional requests never answer 304 for a page that changed or does not exist, and
``gzip;q=0`` gets no gzip (issue 17, item 10).

- Dates have one-second resolution: two edits in one second gave a client revalidating by
  ``If-Modified-Since`` alone a stale 304 for the second edit. The date is tied to the content
  state (blog.caching.validators): given out once its second is over.
- ``If-None-Match: *`` and ``If-Modified-Since`` (a future date, or any date) say nothing about
  whether a URL exists: a 404 stays a 404.
- A feed's own date (its newest entry) does not move when a tag is renamed or the site title
  changes: only the version's date decides.

Committed data (``transaction=True``): the version moves after a commit.
"""

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone
from django.utils.http import http_date

from blog.caching import pages as page_cache
from blog.caching.encoding import accepts_gzip
from blog.models import SiteSettings
from tests.factories import make_note

pytestmark = pytest.mark.django_db(transaction=True)

HEADER = page_cache.HEADER


@pytest.fixture
def content(db):
    site = SiteSettings.objects.create(title="笔记 biji", author="Ada")
    note = make_note(title="第一篇", slug="first", body="正文。" * 200)  # long enough for gzip
    return {"site": site, "note": note}


@pytest.fixture
def later():
    """Whole seconds well after the content was made (and on a fresh second boundary)."""
    start = (timezone.now() + timedelta(minutes=5)).replace(microsecond=200_000)
    return lambda seconds=0.0: time_machine.travel(start + timedelta(seconds=seconds), tick=False)


def edit(note, title):
    note.title = title
    note.save()


def test_two_edits_in_one_second_never_give_a_date_only_client_a_stale_304(client, content, later):
    note = content["note"]
    with later(0.0):
        edit(note, "第一篇：上午")
    with later(0.3):
        first = client.get("/notes/first/")
        assert "上午" in first.content.decode()
    with later(0.6):
        edit(note, "第一篇：下午")  # the same second as the first edit
    with later(30):
        again = client.get("/notes/first/", HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert again.status_code == 200
    assert "下午" in again.content.decode()


def test_the_date_of_a_second_that_is_over_answers_304(
    client, content, later, django_assert_max_num_queries
):
    with later(0.0):
        edit(content["note"], "第一篇：改过")
    with later(0.5):
        early = client.get("/notes/first/")
    with later(5):
        settled = client.get("/notes/first/")
        assert settled["Last-Modified"] != early["Last-Modified"]
        with django_assert_max_num_queries(1):
            by_date = client.get("/notes/first/", HTTP_IF_MODIFIED_SINCE=settled["Last-Modified"])
        assert by_date.status_code == 304
        assert by_date["Last-Modified"] == settled["Last-Modified"]
        # The date given within the second of the edit is older than the edit.
        assert (
            client.get("/notes/first/", HTTP_IF_MODIFIED_SINCE=early["Last-Modified"]).status_code
            == 200
        )


def test_a_feed_revalidated_by_date_shows_a_new_site_title(client, content, later):
    with later(5):
        first = client.get("/feed/")
        assert first.status_code == 200
    with later(10):
        site = content["site"]
        site.title = "新的站名"
        site.save()
    with later(20):
        again = client.get("/feed/", HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert again.status_code == 200
    assert "新的站名" in again.content.decode()


@pytest.mark.parametrize(
    "precondition",
    [
        {"HTTP_IF_NONE_MATCH": "*"},
        {"HTTP_IF_MODIFIED_SINCE": "future"},
        {"HTTP_IF_MODIFIED_SINCE": "the site's date"},
    ],
    ids=["if-none-match-star", "future-if-modified-since", "if-modified-since"],
)
def test_a_url_that_is_a_404_never_gets_a_304(client, content, later, precondition):
    with later(5):
        home = client.get("/")
        dates = {
            "future": http_date((timezone.now() + timedelta(days=365)).timestamp()),
            "the site's date": home["Last-Modified"],
        }
        headers = {name: dates.get(value, value) for name, value in precondition.items()}
        for url in ("/notes/no-such-note/", "/tags/no-such-tag/", "/notes/no-such-note/"):
            assert client.get(url, **headers).status_code == 404, url
        # The same preconditions on a page that exists: 304, from the cached copy.
        assert client.get("/", **headers).status_code == 304


def test_if_none_match_star_on_a_page_not_yet_cached_runs_the_view(client, content, later):
    with later(5):
        response = client.get("/notes/first/", HTTP_IF_NONE_MATCH="*")
    assert response.status_code == 304


REFUSALS = [
    "gzip;q=0",
    "deflate, gzip;q=0",
    "gzip; q=0.0, identity",
    "GZIP;Q=0",
    "br;q=1, gzip;q=0",
]


@pytest.mark.parametrize("accept", REFUSALS)
def test_a_client_that_refuses_gzip_never_gets_it(content, accept):
    reader = Client()
    # Fresh, then from the cache after a gzip client's visit.
    fresh = reader.get("/notes/first/", HTTP_ACCEPT_ENCODING=accept)
    assert fresh.status_code == 200 and not fresh.has_header("Content-Encoding")
    gzip_client = Client(HTTP_ACCEPT_ENCODING="gzip")
    assert gzip_client.get("/feed/")["Content-Encoding"] == "gzip"
    assert gzip_client.get("/feed/")[HEADER] == "hit"
    for _ in range(2):
        feed = reader.get("/feed/", HTTP_ACCEPT_ENCODING=accept)
        assert feed.status_code == 200 and not feed.has_header("Content-Encoding"), accept
        assert "第一篇" in feed.content.decode()


def test_gzip_is_sent_to_clients_that_take_it(content):
    for accept in ("gzip", "gzip, deflate, br", "gzip;q=0.5", "deflate;q=0, gzip;q=1"):
        response = Client().get("/notes/first/", HTTP_ACCEPT_ENCODING=accept)
        assert response["Content-Encoding"] == "gzip", accept


def test_accepts_gzip_reads_quality_values():
    assert accepts_gzip("gzip") and accepts_gzip("x-gzip") and accepts_gzip("GZip;q=0.001")
    for header in ("", "*", "identity", "gzip;q=0", "gzip;q=0.000", "gzip;q=abc", "br, deflate"):
        assert not accepts_gzip(header), header
