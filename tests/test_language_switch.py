"""The language switch takes the reader to the same thing in the other interface: a note's
translation, the same search, the same tag or series."""

import pytest
from bs4 import BeautifulSoup

from blog.models import Language
from tests.factories import make_note, make_series, make_tag

pytestmark = pytest.mark.django_db


def switch_links(client, url):
    response = client.get(url)
    assert response.status_code == 200
    page = BeautifulSoup(response.content, "html.parser")
    return {a["hreflang"]: a["href"] for a in page.select(".lang-switch a")}


def hreflang_links(client, url):
    page = BeautifulSoup(client.get(url).content, "html.parser")
    return {
        link["hreflang"]: link["href"] for link in page.select('link[rel="alternate"][hreflang]')
    }


def test_a_note_with_a_translation_switches_to_the_translation(client):
    original = make_note(title="Warp 调度", slug="warp-diaodu")
    make_note(
        title="Warp scheduling", slug="warp-scheduling", language=Language.ENGLISH,
        translation=original,
    )  # fmt: skip
    expected = {"zh-Hans": "/notes/warp-diaodu/", "en": "/en/notes/warp-scheduling/"}
    for url in ("/notes/warp-diaodu/", "/en/notes/warp-scheduling/", "/en/notes/warp-diaodu/"):
        assert switch_links(client, url) == expected, url
    # Search engines are told the same pairs.
    assert hreflang_links(client, original.get_absolute_url()) == {
        lang: "http://127.0.0.1:8000" + path for lang, path in expected.items()
    }


def test_an_unpublished_translation_is_not_a_target(client):
    original = make_note(slug="only-chinese")
    make_note(slug="draft-en", language=Language.ENGLISH, translation=original, status="draft",
              published_ago=None)  # fmt: skip
    assert switch_links(client, "/notes/only-chinese/")["en"] == "/en/notes/only-chinese/"


def test_the_search_keeps_its_query(client):
    make_note(title="调度笔记")
    links = switch_links(client, "/search/?q=%E8%B0%83%E5%BA%A6")
    assert links["en"] == "/en/search/?q=%E8%B0%83%E5%BA%A6"
    assert switch_links(client, "/en/search/?q=warp")["zh-Hans"] == "/search/?q=warp"


def test_tag_and_series_pages_keep_the_tag_and_series(client):
    tag = make_tag("Scheduling", "调度")
    series = make_series(slug="gpu-notes")
    make_note(tags=[tag], series=series, series_position=1)
    assert switch_links(client, "/tags/scheduling/")["en"] == "/en/tags/scheduling/"
    assert switch_links(client, "/en/series/gpu-notes/")["zh-Hans"] == "/series/gpu-notes/"


def test_an_archive_period_empty_in_the_other_language_switches_to_its_archive(client):
    """A pair is listed under the Chinese original's month in Chinese and the translation's
    month in English: the switch never leads to a 404, and no hreflang names one."""
    from datetime import datetime

    from django.utils import timezone

    may = timezone.make_aware(datetime(2025, 5, 20, 12))
    june = timezone.make_aware(datetime(2025, 6, 2, 12))
    both = timezone.make_aware(datetime(2025, 7, 1, 12))
    original = make_note(title="原文", slug="yuanwen", published_at=may)
    make_note(title="Translation", slug="translation", language=Language.ENGLISH,
              translation=original, published_at=june)  # fmt: skip
    make_note(title="七月", slug="july", published_at=both)
    for url, other, target in (
        ("/archive/2025/5/", "en", "/en/archive/"),
        ("/en/archive/2025/6/", "zh-Hans", "/archive/"),
        ("/archive/2025/7/", "en", "/en/archive/2025/7/"),  # July holds notes in both
        ("/archive/2025/", "en", "/en/archive/2025/"),
    ):
        links = switch_links(client, url)
        assert links[other] == target, url
        assert client.get(links[other]).status_code == 200, url
        alternates = hreflang_links(client, url)
        assert (other in alternates) == (target != "/en/archive/" and target != "/archive/"), url
    assert client.get("/en/archive/2025/5/").status_code == 404
    assert client.get("/archive/2025/6/").status_code == 404


def test_with_other_languages_hidden_a_tag_or_series_switches_to_the_index_where_it_is_empty(
    client,
):
    from blog.models import SiteSettings

    SiteSettings.objects.create(show_other_languages=False)
    only_zh, shared = make_tag("Chinese only", "只有中文"), make_tag("Shared", "共有")
    series = make_series(slug="zh-series")
    make_note(slug="zh-note", tags=[only_zh, shared], series=series, series_position=1)
    make_note(slug="en-note", language=Language.ENGLISH, tags=[shared])
    for url, target in (
        ("/tags/chinese-only/", "/en/tags/"),
        ("/series/zh-series/", "/en/series/"),
        ("/tags/shared/", "/en/tags/shared/"),
    ):
        links = switch_links(client, url)
        assert links["en"] == target, url
        assert client.get(target).status_code == 200, url
        assert ("en" in hreflang_links(client, url)) == (target == "/en/tags/shared/"), url
    assert client.get("/en/tags/chinese-only/").status_code == 404
