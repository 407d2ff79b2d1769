"""Values kept once per content version (blog.caching.memo: counts, feed dates, related notes,
sitemap dates) follow every change at once, with the page cache off so each page is rebuilt."""

import pytest
from bs4 import BeautifulSoup
from django.db import connection
from django.test.utils import CaptureQueriesContext

from blog.models import Note
from tests.factories import make_note, make_tag

pytestmark = pytest.mark.django_db(transaction=True)  # versions move after commits


@pytest.fixture(autouse=True)
def _page_cache_off(settings):
    settings.BIJI_PAGE_CACHE_SECONDS = 0


def related(client, slug):
    page = BeautifulSoup(client.get(f"/notes/{slug}/").content, "html.parser")
    return [a["href"] for a in page.select(".related a")]


def test_related_notes_follow_new_notes_and_tag_changes(client):
    tag = make_tag("Scheduling", "调度")
    make_note(slug="subject", tags=[tag])
    make_note(slug="older", tags=[tag])
    assert related(client, "subject") == ["/notes/older/"]
    with CaptureQueriesContext(connection) as queries:
        assert related(client, "subject") == ["/notes/older/"]
    assert not [q for q in queries if "AS shared" in q["sql"]]  # kept, not searched again
    assert related(client, "older") == ["/notes/subject/"]  # each note keeps its own
    make_note(slug="newer", tags=[tag])
    assert related(client, "subject") == ["/notes/newer/", "/notes/older/"]
    Note.objects.get(slug="older").tags.clear()
    assert related(client, "subject") == ["/notes/newer/"]
