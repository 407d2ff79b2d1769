"""The shared page cache never serves what a reader should not see: a draft, a preview, a page
older than the last edit (of any kind), a page in the other language, or a scheduled note
late.

These tests commit (``transaction=True``): the content version moves after a commit, as it
does in production; inside a test transaction the cache steps aside (blog.caching.pages).
"""

from datetime import timedelta

import pytest
import time_machine
from django.core.cache import caches
from django.test import override_settings
from django.urls import resolve
from django.utils import timezone

from blog.caching import pages as page_cache
from blog.caching import store as safe_cache
from blog.models import NavigationLink, SiteSettings
from blog.models.share_links import make_share_token
from tests.factories import make_draft, make_note, make_page, make_scheduled, make_series, make_tag

pytestmark = pytest.mark.django_db(transaction=True)

HEADER = page_cache.HEADER


@pytest.fixture
def site(db):
    site = SiteSettings.objects.create(title="笔记 biji", author="Ada")
    site.navigation.create(label_zh="系列", label_en="Series", url="/series/")
    return site


@pytest.fixture
def content(site):
    tag = make_tag("Scheduling", "调度")
    series = make_series(title_en="GPU notes", title_zh="GPU 笔记", slug="gpu-notes")
    note = make_note(
        title="第一篇：调度", slug="first", tags=[tag], series=series, series_position=1
    )
    page = make_page(title="About", slug="about")
    return {"tag": tag, "series": series, "note": note, "page": page, "site": site}


def warm(client, url):
    """Fetch ``url`` until it comes from the cache; return that cached response."""
    first = client.get(url)
    assert first.status_code == 200, url
    assert first[HEADER] == "miss", url
    second = client.get(url)
    assert second[HEADER] == "hit", url
    assert second.content == first.content
    return second


def text(response):
    return response.content.decode()


def test_a_second_anonymous_get_is_served_from_the_cache(client, content):
    for url in ["/", "/en/", "/notes/first/", "/tags/", "/series/gpu-notes/", "/feed/"]:
        hit = warm(client, url)
        assert hit.has_header("ETag") and hit.has_header("Last-Modified")
        assert "s-maxage=" in hit["Cache-Control"] and "public" in hit["Cache-Control"]


def test_a_hit_costs_one_query(client, content, django_assert_num_queries):
    warm(client, "/notes/first/")
    with django_assert_num_queries(1):  # the content version
        assert client.get("/notes/first/")[HEADER] == "hit"


def test_pages_in_each_language_are_kept_apart(client, content):
    chinese = warm(client, "/tags/")
    english = client.get("/en/tags/")
    assert english[HEADER] == "miss"
    assert chinese["Content-Language"] == "zh-hans" and english["Content-Language"] == "en"
    assert '<html lang="zh-Hans"' in text(chinese) and '<html lang="en"' in text(english)
    assert client.get("/tags/")["Content-Language"] == "zh-hans"
    assert client.get("/en/tags/")["Content-Language"] == "en"


def test_compressed_and_plain_copies_are_kept_apart(client, content):
    warm(client, "/notes/first/")
    gzipped = client.get("/notes/first/", HTTP_ACCEPT_ENCODING="gzip")
    assert gzipped[HEADER] == "miss" and gzipped["Content-Encoding"] == "gzip"
    assert client.get("/notes/first/", HTTP_ACCEPT_ENCODING="gzip")[HEADER] == "hit"
    plain = client.get("/notes/first/")
    assert not plain.has_header("Content-Encoding") and "第一篇" in text(plain)


def test_a_draft_is_never_served_to_readers(client, staff_client, content):
    # The author looks at the draft (a session: the cache is not consulted, nothing stored).
    make_draft(title="草稿：未完成", slug="wip")
    preview = staff_client.get("/notes/wip/")
    assert preview.status_code == 200 and "草稿" in text(preview)
    assert not preview.has_header(HEADER)
    staff_client.logout()
    from django.test import Client

    reader = Client()
    assert reader.get("/notes/wip/").status_code == 404
    assert reader.get("/notes/wip/").status_code == 404
    assert "草稿" not in text(reader.get("/"))


def test_staff_never_get_the_readers_copy(staff_client, content):
    from django.test import Client

    warm(Client(), "/notes/first/")
    response = staff_client.get("/notes/first/")
    assert response.status_code == 200 and not response.has_header(HEADER)


def test_share_links_are_never_cached(client, content):
    note = make_draft(title="草稿", slug="wip")
    url = f"/notes/wip/share/{make_share_token(note)}/"
    for _ in range(2):
        response = client.get(url)
        assert response.status_code == 200 and not response.has_header(HEADER)
        assert "no-store" in response["Cache-Control"]


def test_publishing_a_draft_shows_it_at_once(client, content):
    note = make_draft(title="新发布的笔记", slug="wip")
    warm(client, "/")
    note.status, note.published_at = "published", timezone.now() - timedelta(minutes=1)
    note.save()
    home = client.get("/")
    assert home[HEADER] == "miss" and "新发布的笔记" in text(home)
    assert client.get("/notes/wip/").status_code == 200


EDITS = {
    "note": ("/notes/first/", lambda c: _save(c["note"], title="第一篇：改过了"), "改过了"),
    "note body": ("/notes/first/", lambda c: _save(c["note"], body="新的正文 ZYX"), "ZYX"),
    "tag rename": ("/notes/first/", lambda c: _save(c["tag"], name_zh="排程改名"), "排程改名"),
    "note retagged": (
        "/notes/first/",
        lambda c: c["note"].tags.add(make_tag("Kernels", "内核新标签")),
        "内核新标签",
    ),
    "series": ("/notes/first/", lambda c: _save(c["series"], title_zh="GPU 新系列名"), "新系列名"),
    "page": ("/pages/about/", lambda c: _save(c["page"], body="关于页改过 QRS"), "QRS"),
    "site settings": ("/", lambda c: _save(c["site"], title="新站名 ABC"), "新站名 ABC"),
    "navigation link": (
        "/",
        lambda c: c["site"].navigation.create(label_zh="归档新链接", label_en="A", url="/archive/"),
        "归档新链接",
    ),
    "navigation link deleted": (
        "/",
        lambda c: NavigationLink.objects.filter(label_zh="系列").delete(),
        None,
    ),
    "note deleted": ("/tags/", lambda c: c["note"].delete(), None),
}


def _save(obj, **fields):
    for name, value in fields.items():
        setattr(obj, name, value)
    obj.save()


@pytest.mark.parametrize("edit", EDITS)
def test_every_kind_of_edit_replaces_the_cached_page(client, content, edit):
    url, change, expected = EDITS[edit]
    before = warm(client, url)
    change(content)
    after = client.get(url)
    assert after[HEADER] == "miss", edit
    assert after.content != before.content, edit
    if expected:
        assert expected in text(after), edit
    assert after["ETag"] != before["ETag"]


def test_a_scheduled_note_appears_on_time(client, content):
    note = make_scheduled(title="定时发布的笔记", slug="later")
    due = note.published_at
    home = warm(client, "/")
    assert "定时发布的笔记" not in text(home)
    # Browsers and CDNs may not keep the page past the publication either.
    max_age = int(home["Cache-Control"].split("max-age=")[1].split(",")[0])
    assert max_age <= (due - timezone.now()).total_seconds() + 1
    with time_machine.travel(due - timedelta(seconds=1), tick=False):
        assert "定时发布的笔记" not in text(client.get("/"))
    with time_machine.travel(due + timedelta(seconds=1), tick=False):
        response = client.get("/")
        assert response[HEADER] == "miss" and "定时发布的笔记" in text(response)
        assert client.get("/notes/later/").status_code == 200
        assert "定时发布的笔记" in text(client.get("/feed/"))


def test_search_is_never_kept(client, content):
    response = client.get("/search/", {"q": "调度"})
    assert (
        "no-cache" in response["Cache-Control"] and "max-age=300" not in response["Cache-Control"]
    )
    assert not response.has_header(HEADER)
    make_note(title="刚发布：调度新笔记", slug="fresh")
    assert "刚发布" in text(client.get("/search/", {"q": "调度"}))


def test_unknown_query_strings_are_served_but_not_stored(client, content):
    assert client.get("/", {"utm_source": "x"})[HEADER] == "miss"
    assert client.get("/", {"utm_source": "x"})[HEADER] == "miss"
    warm(client, "/?page=1")


def test_posts_are_not_cached(client, content):
    assert client.post("/").status_code == 405
    assert not client.post("/").has_header(HEADER)


@override_settings(BIJI_PAGE_CACHE_SECONDS=0)
def test_the_cache_can_be_turned_off(client, content):
    assert client.get("/")[HEADER] == "miss"
    assert client.get("/")[HEADER] == "miss"


def test_a_cache_outage_is_a_miss_not_an_error(client, content, monkeypatch):
    def broken(*args, **kwargs):
        raise ConnectionError("cache down")

    backend = caches["default"]
    monkeypatch.setattr(backend, "get", broken)
    monkeypatch.setattr(backend, "set", broken)
    try:
        for _ in range(2):
            response = client.get("/notes/first/")
            assert response.status_code == 200 and response[HEADER] == "miss"
    finally:
        safe_cache.reset()


def test_responses_that_set_cookies_or_are_private_are_not_storable(rf):
    from django.http import HttpResponse

    request = rf.get("/")
    match = resolve("/")
    ok = HttpResponse("x")
    ok["Cache-Control"] = "public, max-age=60"
    assert page_cache.storable(request, ok, match)
    cookie = HttpResponse("x")
    cookie["Cache-Control"] = "public, max-age=60"
    cookie.set_cookie("a", "b")
    assert not page_cache.storable(request, cookie, match)
    for policy in ("private, max-age=60", "public, no-store", "public, no-cache", "max-age=60"):
        response = HttpResponse("x")
        response["Cache-Control"] = policy
        assert not page_cache.storable(request, response, match), policy
    varying = HttpResponse("x")
    varying["Cache-Control"] = "public"
    varying["Vary"] = "Cookie"
    assert not page_cache.storable(request, varying, match)
    missing = HttpResponse("x", status=404)
    missing["Cache-Control"] = "public"
    assert not page_cache.storable(request, missing, match)


def test_only_a_views_own_parameters_make_a_storable_page(rf):
    """``?p=`` pages a sitemap (stored); on a note page it is noise (served, never stored), so
    made-up query strings cannot fill the cache."""
    from django.http import HttpResponse

    response = HttpResponse("x")
    response["Cache-Control"] = "public, max-age=60"
    assert page_cache.storable(
        rf.get("/sitemap-notes.xml?p=2"), response, resolve("/sitemap-notes.xml")
    )
    assert not page_cache.storable(rf.get("/?p=2"), response, resolve("/"))
    assert page_cache.storable(rf.get("/?page=2"), response, resolve("/"))


def test_sitemap_index_and_pages_are_cached_conditional_and_follow_edits(client, content):
    from blog.public.sitemaps import SiteURLSitemap

    make_note(title="第二篇", slug="second")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(SiteURLSitemap, "limit", 1)  # two notes: two pages
        for url in ("/sitemap.xml", "/sitemap-notes.xml?p=2"):
            hit = warm(client, url)
            assert client.get(url, HTTP_IF_NONE_MATCH=hit["ETag"]).status_code == 304, url
        make_note(title="第三篇", slug="third")
        index = client.get("/sitemap.xml")
        assert index[HEADER] == "miss" and "sitemap-notes.xml?p=3" in text(index)
        assert "/notes/third/" in text(client.get("/sitemap-notes.xml?p=3"))


def test_a_new_release_never_serves_the_last_ones_pages(client, content, settings):
    from blog.caching import release

    release.fingerprint.cache_clear()
    try:
        settings.BIJI_RELEASE = "before-deploy"
        old = warm(client, "/notes/first/")
        release.fingerprint.cache_clear()
        settings.BIJI_RELEASE = "after-deploy"
        new = client.get("/notes/first/")
        assert new[HEADER] == "miss" and new["ETag"] != old["ETag"]
        assert client.get("/notes/first/", HTTP_IF_NONE_MATCH=old["ETag"]).status_code == 200
    finally:
        release.fingerprint.cache_clear()
