"""List entries are rendered once per content version and language, and never outlive a change.

With the page cache off, so that every request renders its page: what a reader sees must
follow every edit at once, whichever list shows the note, in each language.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from blog.models import Note, Tag
from tests.factories import make_note, make_series, make_tag

pytestmark = [
    pytest.mark.django_db(transaction=True),  # the version moves after commits, as in production
    pytest.mark.usefixtures("page_cache_off"),
]


@pytest.fixture
def page_cache_off(settings):
    settings.BIJI_PAGE_CACHE_SECONDS = 0


@pytest.fixture
def notes():
    tag = make_tag("Scheduling", "调度")
    series = make_series(title_en="GPU notes", title_zh="GPU 笔记", slug="gpu-notes")
    first = make_note(title="第一篇", slug="first", tags=[tag], series=series, series_position=1)
    second = make_note(title="第二篇", slug="second", tags=[tag], series=series, series_position=2)
    return {"tag": tag, "series": series, "first": first, "second": second}


def html(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def test_a_page_whose_entries_are_kept_reads_no_tags(client, notes):
    html(client, "/")
    with CaptureQueriesContext(connection) as queries:
        page = html(client, "/")
    assert "第一篇" in page and "调度" in page  # the tags are in the kept entries
    assert not [q for q in queries if "blog_taggednote" in q["sql"]]


def test_entries_follow_every_change_on_every_list(client, notes):
    lists = ["/", "/tags/scheduling/", "/series/gpu-notes/", "/en/"]
    for url in lists:
        html(client, url)  # entries kept
    Tag.objects.filter(pk=notes["tag"].pk).update(name_zh="旧名")  # no signal: no bump
    assert "旧名" not in html(client, "/")  # kept entries are served while nothing moved
    tag = Tag.objects.get(pk=notes["tag"].pk)
    tag.name_zh = "排程"
    tag.save()
    note = Note.objects.get(pk=notes["first"].pk)
    note.title = "第一篇（修订）"
    note.save()
    series = notes["series"]
    series.title_zh = "GPU 笔记二"
    series.save()
    for url in lists[:3]:
        page = html(client, url)
        assert "排程" in page and "第一篇（修订）" in page, url
    assert "GPU 笔记二" in html(client, "/")


def test_each_language_has_its_own_entries(client, notes):
    from django.utils import translation

    with translation.override("zh-hans"):
        read_zh = translation.pgettext("link from a list to the whole note", "Read note")
    assert read_zh != "Read note"
    assert read_zh in html(client, "/") and "Read note" not in html(client, "/")
    assert "Read note" in html(client, "/en/") and read_zh not in html(client, "/en/")


def test_a_series_page_and_the_home_page_keep_their_own_entries(client, notes):
    home = html(client, "/")  # kept first: the same notes, shown with their series
    assert 'class="series-link"' in home and 'class="part"' not in home
    series = html(client, "/series/gpu-notes/")
    assert 'class="series-link"' not in series  # the page is the series
    assert series.count('class="part"') == 2
    assert series.index("第一篇") < series.index("第二篇")
    assert html(client, "/") == home


def test_entries_are_rendered_when_the_cache_is_down(client, notes, monkeypatch):
    from django.core.cache import caches

    from blog.caching import store as safe_cache

    def broken(*args, **kwargs):
        raise ConnectionError("cache down")

    backend = caches["default"]
    for operation in ("get", "set", "get_many", "set_many"):
        monkeypatch.setattr(backend, operation, broken)
    try:
        page = html(client, "/")
        assert "第一篇" in page and "调度" in page
    finally:
        safe_cache.reset()
