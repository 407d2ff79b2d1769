"""Related notes under a note (blog.public.related): found across the whole blog by shared tags
and series, ranked by what is shared, glossary terms among equals, and the newest first."""

from datetime import timedelta

import pytest
from bs4 import BeautifulSoup
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from blog.models import Language, Note, Status, TaggedNote, Term
from blog.public import related
from tests.factories import make_note, make_series, make_tag

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _page_cache_off(settings):
    settings.BIJI_PAGE_CACHE_SECONDS = 0


def related_on(client, slug):
    page = BeautifulSoup(client.get(f"/notes/{slug}/").content, "html.parser")
    return [a["href"] for a in page.select(".related a")]


def filler(count, days_ago):
    """``count`` published notes with no tag, a minute apart from ``days_ago`` on."""
    now = timezone.now()
    Note.objects.bulk_create(
        Note(
            title=f"Filler {n}",
            slug=f"filler-{n}",
            language=Language.CHINESE,
            status=Status.PUBLISHED,
            published_at=now - timedelta(days=days_ago, minutes=n),
        )
        for n in range(count)
    )


def test_a_note_years_away_sharing_tags_is_found(client):
    """600 notes between them (the 250 on each side were all that was looked at before)."""
    gpu, cuda = make_tag("GPU", "GPU"), make_tag("CUDA", "CUDA")
    make_note(slug="subject", tags=[gpu, cuda], published_ago=timedelta(days=1))
    make_note(slug="years-ago", tags=[gpu, cuda], published_ago=timedelta(days=3 * 365))
    filler(600, days_ago=30)
    assert related_on(client, "subject") == ["/notes/years-ago/"]
    assert related_on(client, "years-ago") == ["/notes/subject/"]


def test_most_shared_first_then_terms_then_newest(client):
    gpu, cuda, memory = make_tag("GPU", "GPU"), make_tag("CUDA", "CUDA"), make_tag("Memory", "内存")
    Term.objects.create(english="warp", chinese="线程束")
    make_note(slug="subject", tags=[gpu, cuda], body="一个线程束有 32 个线程。")
    make_note(slug="both-tags-old", tags=[gpu, cuda, memory], published_ago=timedelta(days=900))
    make_note(slug="one-tag-new", tags=[gpu], published_ago=timedelta(hours=1))
    make_note(
        slug="one-tag-term", tags=[cuda], body="线程束的调度。", published_ago=timedelta(days=50)
    )
    make_note(slug="one-tag-old", tags=[gpu], published_ago=timedelta(days=40))
    make_note(slug="nothing-shared", body="线程束", published_ago=timedelta(hours=2))
    assert related_on(client, "subject") == [
        "/notes/both-tags-old/",  # two tags shared
        "/notes/one-tag-term/",  # one tag and the term
        "/notes/one-tag-new/",
        "/notes/one-tag-old/",
    ]


def test_parts_of_the_same_series_are_related_without_a_tag(client):
    series = make_series("GPU notes", "GPU 笔记")
    make_note(slug="part-1", series=series, series_position=1, published_ago=timedelta(days=9))
    make_note(slug="part-2", series=series, series_position=2)
    make_note(slug="elsewhere")
    assert related_on(client, "part-2") == ["/notes/part-1/"]


def test_only_published_notes_in_the_reader_s_language_and_a_pair_once(client):
    tag = make_tag("GPU", "GPU")
    make_note(slug="subject", tags=[tag])
    make_note(slug="draft", tags=[tag], status=Status.DRAFT, published_ago=None)
    make_note(slug="scheduled", tags=[tag], published_ago=-timedelta(days=2))
    english = make_note(slug="english", tags=[tag], language=Language.ENGLISH)
    make_note(slug="chinese", tags=[tag], translation=english, published_ago=timedelta(days=2))
    assert related_on(client, "subject") == ["/notes/chinese/"]


def test_what_a_query_reads_is_bounded_by_the_note_not_the_blog(client, monkeypatch):
    """Each tag offers its newest PER_GROUP notes: an older one sharing more is out of reach,
    which is the price of a query that does not grow with the blog."""
    monkeypatch.setattr(related, "PER_GROUP", 3)
    gpu, cuda = make_tag("GPU", "GPU"), make_tag("CUDA", "CUDA")
    oldest = make_note(slug="oldest", tags=[gpu, cuda], published_ago=timedelta(days=99))
    subject = make_note(slug="subject", tags=[gpu])
    for n in range(4):
        make_note(slug=f"gpu-{n}", tags=[gpu], published_ago=timedelta(days=n + 2))
    found = related.related_notes(subject, [gpu.pk], exclude=set())
    assert oldest not in found and len(found) == 3
    with CaptureQueriesContext(connection) as queries:
        related.related_notes(subject, [gpu.pk, cuda.pk], exclude=set())
    assert len(queries) == 1
    assert queries[0]["sql"].count("LIMIT 3") == 2  # one bounded read per tag
    monkeypatch.setattr(related, "MAX_TAGS", 1)
    with CaptureQueriesContext(connection) as queries:
        related.related_notes(subject, [gpu.pk, cuda.pk], exclude=set())
    assert queries[0]["sql"].count("LIMIT 3") == 1  # and so many tags at most


def test_both_queries_read_indexes_not_every_note(client):
    """At 3,000 notes with one of ten tags each: a tag's newest notes come from the (tag, note)
    index, the candidates by key (SQLite's planner, handed the publication condition, chose the date
    index and read every published note: 30 ms at 100,000 notes, against 6)."""
    tags = [make_tag(f"Topic {n}", f"主题 {n}") for n in range(10)]
    gpu = tags[0]
    filler(3000, days_ago=10)
    TaggedNote.objects.bulk_create(
        TaggedNote(content_object_id=pk, tag=tags[pk % 10])
        for pk in Note.objects.values_list("pk", flat=True)
    )
    subject = make_note(slug="subject", tags=[gpu])
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")  # as autovacuum does after a bulk load (SQLite: never)
    with CaptureQueriesContext(connection) as queries:
        assert len(related.related_notes(subject, [gpu.pk], exclude=set())) == 4
    (plan,) = (explain(query["sql"]) for query in queries)
    assert "blog_taggednote_tag_note_idx" in plan, plan
    if connection.vendor == "sqlite":  # PostgreSQL's planner, with statistics, reads by key at
        # 100,000 notes and rightly scans 3,000 (docs/performance.md)
        assert "blog_note_pub_idx" not in plan, plan
        assert "USING INTEGER PRIMARY KEY" in plan, plan


def explain(sql):
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            cursor.execute(f"EXPLAIN QUERY PLAN {sql}")
            return "\n".join(str(row[-1]) for row in cursor.fetchall())
        cursor.execute(f"EXPLAIN {sql}")
        return "\n".join(row[0] for row in cursor.fetchall())
