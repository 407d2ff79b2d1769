"""A search's statements stop at ``BIJI_SEARCH_SECONDS``, and the page says so."""

import time

import pytest
from django.db import connection
from django.urls import reverse

from blog.public.views import search as search_view
from blog.search.index import rebuild
from blog.search.query import Listed
from tests.factories import make_note

pytestmark = pytest.mark.django_db

# A statement that takes seconds on either engine, as a query no plan foresaw would.
SLOW = {
    "postgresql": "SELECT pg_sleep(20)",
    "sqlite": "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1e9) "
    "SELECT count(*) FROM n",
}


def slow_ranked(query, hidden):
    with connection.cursor() as cursor:
        cursor.execute(SLOW[connection.vendor])
    return Listed([])


def test_a_search_past_its_time_is_stopped_and_the_page_says_so(client, settings, monkeypatch):
    note = make_note(title="调度 notes")
    rebuild()
    settings.BIJI_SEARCH_SECONDS = 0.2
    monkeypatch.setattr(search_view, "ranked", slow_ranked)
    started = time.monotonic()
    response = client.get(reverse("blog:search"), {"q": "调度"})
    assert time.monotonic() - started < 10  # the statement alone takes 20 s and more
    assert response.status_code == 200
    page = response.content.decode()
    assert "这次搜索在 0.2 秒后被停止" in page
    assert "篇笔记" not in page  # no count of results it did not find
    # The connection is usable again, and the same search in time lists the note.
    monkeypatch.undo()
    again = client.get(reverse("blog:search"), {"q": "调度"}).content.decode()
    assert note.get_absolute_url() in again
