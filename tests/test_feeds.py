"""RSS and Atom feeds, read the way a feed reader reads them: through feedparser."""

import re
from datetime import timedelta
from xml.sax.saxutils import escape as xml_escape

import feedparser
import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from blog.caching import site_settings
from blog.models import Language, Note, SiteSettings
from blog.rendering.feed_html import feed_html
from tests.commits import committed
from tests.factories import make_draft, make_note, make_scheduled, make_series, make_tag

pytestmark = pytest.mark.django_db

SITE = "https://blog.example"
BODY = """## 调度

Read [the earlier part](/notes/earlier/) first. ![A warp](/media/x.png)

```python
def launch(kernel):
    return kernel.grid(128)
```

$$E = mc^2$$
"""
FORMATS = ["rss", "atom"]


@pytest.fixture(autouse=True)
def _site(settings):
    settings.SITE_URL = SITE
    SiteSettings.objects.create(title="笔记 Test", author="Ada Lovelace")


@pytest.fixture
def blog():
    """Two tags, two series, both languages, and a draft and a scheduled note in every scope."""
    scheduling, math = make_tag("Scheduling", "调度"), make_tag("Math", "数学")
    gpu, essays = make_series(slug="gpu"), make_series(slug="essays")
    zh = make_note(title="GPU 调度", body=BODY, tags=[scheduling, math], series=gpu)
    en = make_note(title="Warp scheduling", language=Language.ENGLISH, tags=[scheduling])
    other = make_note(title="随笔", tags=[math], series=essays, published_ago=timedelta(days=2))
    hidden = [
        make_draft(title="草稿", tags=[scheduling], series=gpu),
        make_scheduled(title="Scheduled", tags=[scheduling], series=gpu),
        make_draft(title="English draft", language=Language.ENGLISH),
        make_scheduled(title="English scheduled", language=Language.ENGLISH),
    ]
    return dict(scheduling=scheduling, math=math, gpu=gpu, zh=zh, en=en, other=other, hidden=hidden)


def url(scope, fmt, arg=None):
    name = f"feeds:{scope}-{fmt}"
    if scope == "all":
        return reverse(name)
    return reverse(name, kwargs={"language" if scope == "language" else "slug": arg})


def all_feed_urls(blog):
    scopes = [("all", None), ("tag", "scheduling"), ("series", "gpu")]
    scopes += [("language", "zh-hans"), ("language", "en")]
    return [url(scope, fmt, arg) for scope, arg in scopes for fmt in FORMATS]


def fetch(client, path, **headers):
    response = client.get(path, **headers)
    assert response.status_code == 200, path
    return response


def parse(client, path, sanitize=True):
    parsed = feedparser.parse(fetch(client, path).content, sanitize_html=sanitize)
    assert parsed.bozo == 0, (path, parsed.get("bozo_exception"))
    return parsed


def titles(parsed):
    return {entry.title for entry in parsed.entries}


def test_every_feed_parses_with_absolute_feed_and_entry_links(client, blog):
    for path in all_feed_urls(blog):
        parsed = parse(client, path)
        assert parsed.version in ("rss20", "atom10"), path
        assert parsed.entries, path
        assert "笔记 Test" in parsed.feed.title
        assert parsed.feed.link.startswith(SITE + "/")
        self_links = [link.href for link in parsed.feed.links if link.rel == "self"]
        assert self_links == [SITE + path]
        for entry in parsed.entries:
            assert entry.link.startswith(SITE + "/"), (path, entry.link)
            assert entry.link.endswith(f"/notes/{Note.objects.get(title=entry.title).slug}/")
            assert entry.get("published_parsed"), (path, entry.title)
            assert entry.author == "Ada Lovelace"


def test_atom_entries_have_an_updated_date_and_their_language(client, blog):
    parsed = parse(client, url("all", "atom"))
    for entry in parsed.entries:
        assert entry.updated_parsed >= entry.published_parsed
    languages = {entry.title: entry.content[0].language for entry in parsed.entries}
    assert languages["Warp scheduling"] == "en"
    assert languages["GPU 调度"] == "zh-hans"


@pytest.mark.parametrize("fmt", FORMATS)
def test_content_is_the_full_stored_html_with_absolute_urls(client, blog, fmt):
    note = blog["zh"]
    response = fetch(client, url("all", fmt))
    # The stored, sanitised HTML as feed_html() prepares it for readers
    # (tests/test_feed_content.py).
    entry_html = feed_html(note.body_html, SITE + note.get_absolute_url())
    assert xml_escape(entry_html) in response.content.decode()

    # As a reader sees it: the whole body, links and images pointing at the site. (feedparser
    # is given no base URL, so it cannot resolve a relative URL the feed left behind.)
    parsed = feedparser.parse(response.content)
    entry = next(e for e in parsed.entries if e.title == note.title)
    content = entry.content[0].value
    # The whole body, not just the excerpt: the highlighted code block and the MathML.
    assert "<pre" in content and "kernel.grid(128)" in re.sub(r"<[^>]+>", "", content)
    assert "<math" in content and "<math" not in entry.summary
    assert len(content) > len(entry.summary) > 0
    assert f'href="{SITE}/notes/earlier/"' in content
    assert f'src="{SITE}/media/x.png"' in content
    assert 'href="/' not in content and 'src="/' not in content


@pytest.mark.parametrize("fmt", FORMATS)
def test_categories_hold_both_tag_names(client, blog, fmt):
    parsed = parse(client, url("all", fmt))
    entry = next(e for e in parsed.entries if e.title == "GPU 调度")
    assert sorted(tag.term for tag in entry.tags) == ["Math / 数学", "Scheduling / 调度"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_ids_are_unique_and_survive_title_and_slug_edits(client, blog, fmt):
    before = parse(client, url("all", fmt))
    ids = [entry.id for entry in before.entries]
    assert len(set(ids)) == len(ids)
    note = blog["zh"]
    old_id = next(e.id for e in before.entries if e.title == note.title)
    assert old_id == f"tag:blog.example,{note.created_at.date().isoformat()}:note:{note.pk}"

    note.title, note.slug = "GPU 调度（修订）", "gpu-scheduling-revised"
    with committed():
        note.save()
    after = parse(client, url("all", fmt))
    edited = next(e for e in after.entries if e.title == note.title)
    assert edited.id == old_id
    assert edited.link == f"{SITE}/notes/gpu-scheduling-revised/"
    assert sorted(e.id for e in after.entries) == sorted(ids)


@pytest.mark.parametrize("fmt", FORMATS)
def test_scoped_feeds_hold_only_their_notes(client, blog, fmt):
    tag = parse(client, url("tag", fmt, "scheduling"))
    assert titles(tag) == {"GPU 调度", "Warp scheduling"}
    assert "Scheduling" in tag.feed.title and "调度" in tag.feed.title
    assert tag.feed.link == f"{SITE}/tags/scheduling/"

    assert titles(parse(client, url("tag", fmt, "math"))) == {"GPU 调度", "随笔"}
    series = parse(client, url("series", fmt, "gpu"))
    assert titles(series) == {"GPU 调度"}
    assert series.feed.link == f"{SITE}/series/gpu/"

    # Language feeds follow the lists' rule (tests/test_language_lists.py): notes with no
    # version in the feed's language are in it, in their own.
    english = parse(client, url("language", fmt, "en"))
    assert titles(english) == {"Warp scheduling", "GPU 调度", "随笔"}
    assert english.feed.link == f"{SITE}/en/"
    assert english.feed.language == "en"
    assert titles(parse(client, url("language", fmt, "zh-hans"))) == {
        "GPU 调度",
        "随笔",
        "Warp scheduling",
    }


def test_drafts_and_scheduled_notes_never_appear(client, blog):
    hidden = {note.title for note in blog["hidden"]}
    for path in all_feed_urls(blog):
        body = fetch(client, path).content.decode()
        assert not titles(feedparser.parse(body)) & hidden, path
        for note in blog["hidden"]:
            assert f"/notes/{note.slug}/" not in body and f":note:{note.pk}<" not in body


@pytest.mark.parametrize(
    "path",
    [
        "/tags/no-such-tag/feed/",
        "/tags/no-such-tag/feed/atom/",
        "/series/no-such-series/feed/",
        "/series/no-such-series/feed/atom/",
        "/lang/fr/feed/",
        "/lang/zh/feed/atom/",
        "/lang/EN/feed/",
    ],
)
def test_unknown_tag_series_or_language_is_404(client, blog, path):
    assert client.get(path).status_code == 404


def test_only_the_latest_20_notes(client):
    for hours in range(25):
        make_note(title=f"Note {hours:02}", published_ago=timedelta(hours=hours + 1))
    for fmt in FORMATS:
        parsed = parse(client, url("all", fmt))
        assert [e.title for e in parsed.entries] == [f"Note {h:02}" for h in range(20)]


def test_an_empty_feed_is_valid_and_stable(client):
    make_tag("Unused", "未用")
    for fmt in FORMATS:
        path = url("tag", fmt, "unused")
        first = fetch(client, path)
        assert feedparser.parse(first.content).bozo == 0
        assert not feedparser.parse(first.content).entries
        again = fetch(client, path)
        assert again.content == first.content
        assert again["Last-Modified"] == first["Last-Modified"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_output_depends_on_the_database_only(client, settings, blog, fmt):
    settings.ALLOWED_HOSTS = ["*"]
    path = url("all", fmt)
    first = fetch(client, path).content
    assert fetch(client, path).content == first
    assert fetch(client, path, HTTP_HOST="other.example:8080").content == first
    assert fetch(client, path, HTTP_ACCEPT_LANGUAGE="en").content == first
    assert b"testserver" not in first and b"other.example" not in first


def test_feed_strings_follow_the_feed_language_not_the_request(client, blog):
    english = parse(client, url("language", "rss", "en"), sanitize=False)
    assert english.feed.title == "笔记 Test · English"
    assert english.feed.description == "The latest notes in English on 笔记 Test."
    response = fetch(client, url("language", "rss", "en"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.content == fetch(client, url("language", "rss", "en")).content
    assert response["Content-Language"] == "en"


def test_a_control_character_in_a_title_does_not_break_the_feed(client):
    make_note(title="Bad\x0bchar & <angle>", body="text \x08 here")
    for fmt in FORMATS:
        parsed = parse(client, url("all", fmt), sanitize=False)
        assert parsed.entries[0].title == "Badchar & <angle>"


@pytest.mark.parametrize("fmt", FORMATS)
def test_query_count_does_not_grow_with_items(client, settings, fmt, django_assert_max_num_queries):
    settings.BIJI_PAGE_CACHE_SECONDS = 0  # what building the feed costs, not a cached copy
    tags = [make_tag(f"Tag {i}", f"标签 {i}") for i in range(3)]
    series = make_series(slug="gpu")

    def count(path):
        site_settings()  # a warm settings cache, as in production
        with CaptureQueriesContext(connection) as queries:
            fetch(client, path)
        return len(queries)

    with committed():  # each count is the first request after a change: nothing memoised
        for _ in range(5):
            make_note(tags=tags, series=series)
    small = {path: count(path) for path in (url("all", fmt), url("series", fmt, "gpu"))}
    with committed():
        for _ in range(15):
            make_note(tags=tags, series=series)
    large = {path: count(path) for path in small}
    assert large == small
    with django_assert_max_num_queries(4):
        parsed = parse(client, url("all", fmt))
    assert len(parsed.entries) == 20
    assert all(len(entry.tags) == 3 for entry in parsed.entries)


@pytest.mark.parametrize("fmt", FORMATS)
def test_conditional_get_answers_304_for_both_validators(client, blog, fmt):
    path = url("all", fmt)
    response = fetch(client, path)
    etag, last_modified = response["ETag"], response["Last-Modified"]
    assert response["Cache-Control"] == "public, max-age=600, s-maxage=300"

    not_modified = client.get(path, HTTP_IF_NONE_MATCH=etag)
    assert not_modified.status_code == 304
    assert not_modified["ETag"] == etag
    assert "max-age=600" in not_modified["Cache-Control"]

    not_modified = client.get(path, HTTP_IF_MODIFIED_SINCE=last_modified)
    assert not_modified.status_code == 304
    assert not_modified["Last-Modified"] == last_modified
    assert "max-age=600" in not_modified["Cache-Control"]

    # A stale ETag wins over a fresh date: HTTP lets If-None-Match decide.
    both = client.get(path, HTTP_IF_NONE_MATCH='"stale"', HTTP_IF_MODIFIED_SINCE=last_modified)
    assert both.status_code == 200


def test_if_modified_since_is_answered_without_building_the_feed(client, blog):
    site_settings()
    last_modified = fetch(client, url("all", "rss"))["Last-Modified"]
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url("all", "rss"), HTTP_IF_MODIFIED_SINCE=last_modified)
    assert response.status_code == 304
    assert len(queries) == 1  # the newest date; no notes, no tags


def test_validators_change_when_a_note_is_edited_or_published(client, blog):
    path = url("all", "atom")
    first = fetch(client, path)
    note = blog["zh"]
    note.title = "GPU 调度 v2"
    with time_machine.travel(timezone.now() + timedelta(minutes=1)), committed():
        note.save()
    edited = client.get(
        path, HTTP_IF_NONE_MATCH=first["ETag"], HTTP_IF_MODIFIED_SINCE=first["Last-Modified"]
    )
    assert edited.status_code == 200
    assert edited["ETag"] != first["ETag"]
    assert client.get(path, HTTP_IF_MODIFIED_SINCE=first["Last-Modified"]).status_code == 200

    # A scheduled note whose time comes moves Last-Modified, though nobody saved it again.
    with time_machine.travel(timezone.now() + timedelta(days=4)):
        went_live = client.get(path, HTTP_IF_MODIFIED_SINCE=edited["Last-Modified"])
    assert went_live.status_code == 200
    assert "Scheduled" in titles(feedparser.parse(went_live.content))


@pytest.mark.parametrize(
    "scope, arg", [("tag", "scheduling"), ("series", "gpu"), ("language", "en")]
)
def test_scoped_feeds_answer_if_modified_since_from_the_url_alone(client, blog, scope, arg):
    site_settings()
    last_modified = fetch(client, url(scope, "atom", arg))["Last-Modified"]
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url(scope, "atom", arg), HTTP_IF_MODIFIED_SINCE=last_modified)
    assert response.status_code == 304
    assert len(queries) == 1  # no tag or series loaded, no site settings


def test_last_modified_covers_the_whole_scope_not_only_the_items_shown(client):
    for hours in range(21):
        make_note(title=f"Note {hours:02}", published_ago=timedelta(hours=hours + 1))
    path = url("all", "rss")
    first = fetch(client, path)
    # An edit of the 21st note, which the feed does not show: the date the 200 carries and the
    # date If-Modified-Since is compared with are the same, so the edit is seen either way.
    note = Note.objects.get(title="Note 20")
    note.summary = "edited"
    with time_machine.travel(timezone.now() + timedelta(minutes=1)), committed():
        note.save()
    assert client.get(path, HTTP_IF_MODIFIED_SINCE=first["Last-Modified"]).status_code == 200
    assert fetch(client, path)["Last-Modified"] != first["Last-Modified"]


def test_site_settings_are_read_once_per_request(client, settings, monkeypatch):
    for _ in range(3):
        make_note()
    settings.BIJI_PAGE_CACHE_SECONDS = 0  # build each feed, not a cached copy
    calls = []

    def counting_site_settings(*args, **kwargs):
        calls.append(1)
        return site_settings(*args, **kwargs)

    # Every way a feed reaches the settings: its own code and the template context.
    monkeypatch.setattr("blog.public.feeds.notes.site_settings", counting_site_settings)
    monkeypatch.setattr("blog.public.context_processors.site_settings", counting_site_settings)
    for fmt in FORMATS:
        calls.clear()
        assert len(parse(client, url("all", fmt)).entries) == 3
        assert len(calls) == 1, fmt


def test_an_unknown_tag_is_not_cached_as_public(client):
    response = client.get(url("tag", "rss", "no-such-tag"))
    assert response.status_code == 404
    assert "public" not in response.get("Cache-Control", "")
