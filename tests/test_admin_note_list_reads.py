"""The admin's note list at any size: its date drill-down probes the years, months and days
through the date index instead of reading every note (blog/templatetags/admin_dates.py), its
translation filters start from the notes in a pair, and its search box reads the search index,
not every body."""

from datetime import datetime

import pytest
from bs4 import BeautifulSoup
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from blog.templatetags import admin_dates
from tests.factories import make_draft, make_note

pytestmark = pytest.mark.django_db

LIST = reverse("admin:blog_note_changelist")


def drilldown(client, query=""):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(LIST + query, headers={"accept-language": "en"})
    assert response.status_code == 200
    page = BeautifulSoup(response.content, "html.parser")
    links = [a.get_text(" ", strip=True) for a in page.select("nav.toplinks a")]
    return links, [q["sql"] for q in queries]


def at(*args):
    return timezone.make_aware(datetime(*args, 12))


@pytest.mark.parametrize("read_whole", [admin_dates.READ_WHOLE, 0], ids=["read", "probed"])
def test_the_drilldown_offers_the_years_months_and_days_that_hold_notes(
    staff_client, monkeypatch, read_whole
):
    monkeypatch.setattr(admin_dates, "READ_WHOLE", read_whole)
    make_note(title="a", published_ago=None, published_at=at(2023, 5, 1))
    make_note(title="b", published_ago=None, published_at=at(2025, 3, 14))
    make_note(title="c", published_ago=None, published_at=at(2025, 3, 20))
    make_note(title="d", published_ago=None, published_at=at(2025, 11, 2))
    make_draft(title="undated")
    years, queries = drilldown(staff_client)
    assert years == ["2023", "2025"]  # 2024 holds nothing
    assert not [sql for sql in queries if "DISTINCT" in sql or "TRUNC" in sql.upper()]
    months, _ = drilldown(staff_client, "?published_at__year=2025")
    assert months == ["‹ All dates", "March 2025", "November 2025"]
    days, _ = drilldown(staff_client, "?published_at__year=2025&published_at__month=3")
    assert days == ["‹ 2025", "March 14", "March 20"]


def test_a_searched_list_offers_the_dates_its_matches_hold(staff_client, monkeypatch):
    """A search matching many notes: on PostgreSQL its dates are read in one pass, not probed
    year by year (each probe would match the text again); SQLite, which truncates dates in
    Python row by row, probes."""
    monkeypatch.setattr(admin_dates, "READ_WHOLE", 0)
    make_note(title="调度 a", published_ago=None, published_at=at(2023, 5, 1))
    make_note(title="b", published_ago=None, published_at=at(2024, 3, 14))
    make_note(title="调度 c", published_ago=None, published_at=at(2025, 3, 20))
    make_note(title="e", published_ago=None, published_at=at(2025, 3, 14))
    make_note(title="调度 d", published_ago=None, published_at=at(2025, 11, 2))
    years, queries = drilldown(staff_client, "?q=调度")
    assert years == ["2023", "2025"]
    one_pass = [sql for sql in queries if "DISTINCT" in sql]
    assert len(one_pass) == (0 if connection.vendor == "sqlite" else 1)
    months, _ = drilldown(staff_client, "?q=调度&published_at__year=2025")
    assert months == ["‹ All dates", "March 2025", "November 2025"]
    days, _ = drilldown(staff_client, "?q=调度&published_at__year=2025&published_at__month=3")
    assert days == ["‹ 2025", "March 20"]


def test_a_bad_date_in_the_address_is_answered_not_an_error(staff_client):
    for query in (
        "?published_at__year=x",
        "?published_at__year=0",
        "?published_at__year=99999",
        "?published_at__year=2025&published_at__month=13",
        "?published_at__year=2025&published_at__month=2&published_at__day=31",
    ):
        response = staff_client.get(LIST + query)
        assert response.status_code in (200, 302), query


def listed(client, search):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(LIST, {"q": search}, headers={"accept-language": "en"})
    assert response.status_code == 200
    page = BeautifulSoup(response.content, "html.parser")
    titles = {a.get_text(strip=True) for a in page.select("#result_list tbody th a")}
    return titles, [q["sql"] for q in queries]


def test_the_search_box_finds_text_by_its_words_through_the_index(
    staff_client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):  # indexed after each save's commit
        make_note(title="Warp scheduling notes", slug="warp-scheduling", body="关于调度器。")
        make_draft(title="草稿", slug="draft-one", body="The scoreboard tracks **dependencies**.")
        make_note(title="Unrelated", slug="unrelated", body="Nothing here.")
    assert listed(staff_client, "sched")[0] == {"Warp scheduling notes"}  # a part of a title
    assert listed(staff_client, "draft-o")[0] == {"草稿"}  # a part of a slug
    assert listed(staff_client, "调度")[0] == {"Warp scheduling notes"}  # a word of the text
    titles, queries = listed(staff_client, "dependencies")
    assert titles == {"草稿"}  # drafts too
    assert not [sql for sql in queries if '"body" LIKE' in sql or "body::text" in sql]


@pytest.mark.parametrize("query", ["?sync=behind", "?sync=in-line", "?terms=with"])
def test_the_translation_filters_read_the_notes_in_a_pair_by_key(staff_client, query):
    """SQLite's planner, given the state computed per row, walked every note in the list's date
    order to find the few in a pair (1 s at 100,000 notes); from the pairs' ids it reads those."""
    original = make_note(title="Original", language="en")
    make_note(title="译文", translation=original)
    make_note(title="Alone")
    with CaptureQueriesContext(connection) as queries:
        assert staff_client.get(LIST + query).status_code == 200
    counted = [q["sql"] for q in queries if q["sql"].startswith("SELECT COUNT(*)")]
    filtered = [sql for sql in counted if "UNION ALL" in sql]
    assert filtered, counted
    if connection.vendor == "sqlite":  # PostgreSQL's planner chooses by its statistics
        plan = explain(filtered[0])
        assert "SEARCH blog_note USING INTEGER PRIMARY KEY" in plan, plan


def explain(sql):
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {sql}")
        return "\n".join(str(row[-1]) for row in cursor.fetchall())
