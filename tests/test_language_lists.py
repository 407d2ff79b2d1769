"""Lists know the reader's language: a translated pair is one entry, in the interface's
language; a note without a version in it keeps its own language and is marked."""

import pytest
from bs4 import BeautifulSoup

from blog.models import Language, Note
from tests.commits import committed
from tests.factories import make_draft, make_note, make_series, make_tag

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair_and_singles():
    tag = make_tag("Scheduling", "调度")
    series = make_series(slug="gpu-notes")
    zh = make_note(title="Warp 调度", slug="warp-zh", tags=[tag], series=series, series_position=1)
    en = make_note(
        title="Warp scheduling", slug="warp-en", language=Language.ENGLISH, translation=zh,
        tags=[tag],
    )  # fmt: skip
    only_zh = make_note(title="只有中文", slug="only-zh", tags=[tag])
    only_en = make_note(title="English only", slug="only-en", language=Language.ENGLISH, tags=[tag])
    return {"zh": zh, "en": en, "only_zh": only_zh, "only_en": only_en, "tag": tag}


def titles(client, url):
    page = BeautifulSoup(client.get(url).content, "html.parser")
    return [a.get_text() for a in page.select(".note-item-title > a")]


def markers(client, url):
    page = BeautifulSoup(client.get(url).content, "html.parser")
    return {
        item.a.get_text(): item.select_one(".lang-marker span[lang]").get_text()
        for item in page.select(".note-item-title")
        if item.select_one(".lang-marker")
    }


def test_the_queryset_rule(pair_and_singles):
    zh_list = set(Note.objects.published().in_interface("zh-hans").values_list("slug", flat=True))
    en_list = set(Note.objects.published().in_interface("en").values_list("slug", flat=True))
    assert zh_list == {"warp-zh", "only-zh", "only-en"}
    assert en_list == {"warp-en", "only-zh", "only-en"}
    only_own = Note.objects.published().in_interface("en", others=False)
    assert set(only_own.values_list("slug", flat=True)) == {"warp-en", "only-en"}


def test_an_unpublished_translation_does_not_hide_the_original(pair_and_singles):
    draft_en = make_draft(title="Draft", slug="only-zh-en", language=Language.ENGLISH)
    pair_and_singles["only_zh"].translation = draft_en
    pair_and_singles["only_zh"].save()
    en_list = Note.objects.published().in_interface("en").values_list("slug", flat=True)
    assert "only-zh" in en_list


@pytest.mark.parametrize("url", ["/", "/tags/scheduling/"])
def test_home_and_tag_pages_show_each_pair_once(client, pair_and_singles, url):
    assert sorted(titles(client, url)) == sorted(["Warp 调度", "只有中文", "English only"])
    assert sorted(titles(client, "/en" + url)) == sorted(
        ["Warp scheduling", "只有中文", "English only"]
    )


def test_notes_in_the_other_language_are_marked(client, pair_and_singles):
    assert markers(client, "/") == {"English only": "EN"}
    assert markers(client, "/en/") == {"只有中文": "中文"}
    page = BeautifulSoup(client.get("/").content, "html.parser")
    marker = page.select_one(".lang-marker")
    assert marker.select_one("[lang]")["lang"] == "en"
    assert marker.select_one(".visually-hidden").get_text() == "英文"


def test_counts_follow_the_same_rule(client, pair_and_singles):
    zh = BeautifulSoup(client.get("/tags/").content, "html.parser")
    assert "3 篇笔记" in zh.select_one(".tag-cloud").get_text()
    # The pair is one part (the translation shares its original's series and position).
    Note.objects.filter(slug="warp-en").update(series=pair_and_singles["zh"].series)
    series = BeautifulSoup(client.get("/series/").content, "html.parser")
    assert "1 部分" in series.select_one(".note-meta").get_text()
    archive = BeautifulSoup(client.get("/en/archive/").content, "html.parser")
    assert "3 notes" in archive.select_one(".archive-years").get_text()


def test_the_archive_lists_titles_under_their_month_paginated(client, pair_and_singles):
    page = BeautifulSoup(client.get("/archive/").content, "html.parser")
    section = page.select_one(".archive-titles")
    assert section.select("h3") and section.select_one("h3").get_text().endswith("月")
    assert sorted(a.get_text() for a in section.select(".archive-list a")) == sorted(
        ["Warp 调度", "只有中文", "English only"]
    )
    with committed():
        for i in range(100):
            make_note(title=f"填充 {i}", slug=f"filler-{i}")
    first = BeautifulSoup(client.get("/archive/").content, "html.parser")
    assert len(first.select(".archive-list li")) == 100
    last = BeautifulSoup(client.get("/archive/?page=2").content, "html.parser")
    assert len(last.select(".archive-list li")) == 3
    assert last.select_one('.pagination a[rel="prev"]')["href"] == "/archive/"


def test_the_site_can_leave_other_language_notes_out(client, pair_and_singles):
    from blog.models import SiteSettings

    SiteSettings.objects.create(show_other_languages=False)
    assert sorted(titles(client, "/")) == ["Warp 调度", "只有中文"]
    assert sorted(titles(client, "/en/")) == ["English only", "Warp scheduling"]
    zh = BeautifulSoup(client.get("/tags/").content, "html.parser")
    assert "2 篇笔记" in zh.select_one(".tag-cloud").get_text()
    import feedparser

    english_feed = feedparser.parse(client.get("/lang/en/feed/").content)
    assert sorted(e.title for e in english_feed.entries) == ["English only", "Warp scheduling"]


def test_the_language_feeds_follow_the_rule_and_the_main_feed_keeps_every_note(
    client, pair_and_singles
):
    import feedparser

    english = feedparser.parse(client.get("/lang/en/feed/").content)
    assert sorted(e.title for e in english.entries) == [
        "English only",
        "Warp scheduling",
        "只有中文",
    ]
    everything = feedparser.parse(client.get("/feed/").content)
    assert len(everything.entries) == 4


def test_search_finds_a_translated_pair_once_in_the_interfaces_language(
    client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):  # the index follows the commit
        original = make_note(title="Warp 调度笔记", slug="warp-zh", body="warp 调度")
        make_note(
            title="Warp scheduling", slug="warp-en", language=Language.ENGLISH, body="warp",
            translation=original,
        )  # fmt: skip
    found = BeautifulSoup(client.get("/search/?q=warp").content, "html.parser")
    assert [h.a.get_text() for h in found.select(".note-item-title")] == ["Warp 调度笔记"]
    found = BeautifulSoup(client.get("/en/search/?q=warp").content, "html.parser")
    assert [h.a.get_text() for h in found.select(".note-item-title")] == ["Warp scheduling"]
