"""A note behind its other version tells its readers, under its title and in its feed entry,
in its own language: "原文已于 2026 年 11 月 2 日更新，本译文可能未包含这些修改" / "The original
was updated on 2 November 2026; this translation may not include the changes", with links to
the other version and to the parallel view; a published pair links its parallel view from both
notes.

The pairs are formed on 1 November 2026 and the other version's text edited on 2 November, so
that the notice's date reads the same on every run.
"""

from datetime import datetime, timedelta

import feedparser
import pytest
import time_machine
from bs4 import BeautifulSoup
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation

from blog.caching import pages as page_cache
from blog.caching import site_settings
from blog.models import Language, Note, SiteSettings, Status
from blog.models.revisions import recording
from blog.models.translation_sync import bring_in_line
from blog.models.translations import link_translation
from tests.factories import make_note, make_tag

SITE = "https://blog.example"
ORIGINAL_EN = (
    "The original was updated on 2 November 2026; this translation may not include the changes."
)
ORIGINAL_ZH = "原文已于 2026 年 11 月 2 日更新，本译文可能未包含这些修改。"
CHINESE_CHANGED = (
    "The Chinese version was updated on 2 November 2026; this page may not include the changes."
)
ENGLISH_CHANGED = "英文版已于 2026 年 11 月 2 日更新，本文可能未包含这些修改。"
INTERFACES = ["", "/en"]


def at(day, hour=10):
    return datetime(2026, 11, day, hour, tzinfo=timezone.get_current_timezone())


@pytest.fixture(autouse=True)
def _site(settings, db):
    settings.SITE_URL = SITE
    # What a fresh render shows: inside a test's transaction no change moves the page cache's
    # version (it moves after a commit); the page cache's own test below commits and turns it on.
    settings.BIJI_PAGE_CACHE_SECONDS = 0
    SiteSettings.objects.create(title="笔记 biji", author="Ada")
    translation.activate("zh-hans")  # a request to /en/ leaves English active in the thread
    yield
    translation.activate("zh-hans")


def pair(original_language, **translation_fields):
    """(original, translation), published and in line since 1 November; the translation holds
    the link, as a started translation does."""
    with time_machine.travel(at(1), tick=False):
        if original_language == Language.ENGLISH:
            original = make_note(
                title="Warp scheduling",
                slug="warps",
                language=Language.ENGLISH,
                body="## Warps\n\nA warp is 32 threads.\n\nThey are scheduled together.\n",
            )
            version = make_note(
                title="Warp 调度",
                slug="warps-zh",
                body="## Warp\n\n一个 warp 有 32 个线程。\n\n它们一起被调度。\n",
                **translation_fields,
            )
        else:
            original = make_note(
                title="Warp 调度",
                slug="warps",
                body="## Warp\n\n一个 warp 有 32 个线程。\n\n它们一起被调度。\n",
            )
            version = make_note(
                title="Warp scheduling",
                slug="warps-en",
                language=Language.ENGLISH,
                body="## Warps\n\nA warp is 32 threads.\n\nThey are scheduled together.\n",
                **translation_fields,
            )
        link_translation(version, original)
    return Note.objects.get(pk=original.pk), Note.objects.get(pk=version.pk)


def edit_body(note, old, new, day=2):
    with time_machine.travel(at(day), tick=False):
        note.body = note.body.replace(old, new)
        note.save()


def edit_text(note):
    """A change of what the note says."""
    if note.language == Language.ENGLISH:
        edit_body(note, "32 threads.", "32 threads on every GPU so far.")
    else:
        edit_body(note, "32 个线程。", "32 个线程，至今的每种 GPU 都是如此。")


def page(client, note, interface=""):
    response = client.get(f"{interface}/notes/{note.slug}/")
    assert response.status_code == 200
    return BeautifulSoup(response.content, "html.parser")


def notices(soup):
    return soup.select(".translation-notice")


def notice_text(soup):
    found = notices(soup)
    assert len(found) == 1, "one notice, under the title"
    return " ".join(found[0].get_text().split())


# The note's page.


@pytest.mark.parametrize("interface", INTERFACES)
def test_an_english_translation_says_its_original_changed_in_english_in_both_interfaces(
    client, interface
):
    original, english = pair(Language.CHINESE)
    edit_text(original)
    soup = page(client, english, interface)
    notice = notices(soup)[0]
    assert notice_text(soup).startswith(ORIGINAL_EN)
    assert notice["lang"] == "en"
    assert notice.time["datetime"] == "2026-11-02"
    # Under the title, part of the note's header: read once, after the heading, not announced
    # again as a live region.
    assert notice.find_previous_sibling().name == "h1"
    assert notice.find_parent("header") is not None
    assert not notice.has_attr("aria-live") and not notice.has_attr("role")


@pytest.mark.parametrize("interface", INTERFACES)
def test_a_chinese_translation_says_its_original_changed_in_chinese_in_both_interfaces(
    client, interface
):
    """Needs the Chinese catalogue to hold the notice's strings."""
    original, chinese = pair(Language.ENGLISH)
    edit_text(original)
    soup = page(client, chinese, interface)
    assert notice_text(soup).startswith(ORIGINAL_ZH)
    assert notices(soup)[0]["lang"] == "zh-Hans"


def test_the_notice_links_the_other_version_and_the_parallel_view(client):
    original, english = pair(Language.CHINESE)
    edit_text(original)
    for interface in INTERFACES:
        links = notices(page(client, english, interface))[0].find_all("a")
        # The original in its own language's interface, as the page's translation link; the
        # parallel view in the reader's interface.
        assert [(a["href"], a.get("hreflang")) for a in links] == [
            ("/notes/warps/", "zh-Hans"),
            (f"{interface}/notes/warps-en/parallel/", None),
        ]
        assert [a.get_text() for a in links] == ["Read the original", "Read side by side"]


def test_an_original_whose_translation_changed_names_the_translations_language(client):
    original, chinese = pair(Language.ENGLISH)
    edit_text(chinese)
    assert notice_text(page(client, original)).startswith(CHINESE_CHANGED)
    assert not notices(page(client, chinese))


def test_a_chinese_original_whose_translation_changed_names_english(client):
    """Needs the Chinese catalogue to hold the notice's strings."""
    original, english = pair(Language.CHINESE)
    edit_text(english)
    assert notice_text(page(client, original, "/en")).startswith(ENGLISH_CHANGED)


def test_a_pair_in_line_shows_no_notice(client):
    original, english = pair(Language.CHINESE)
    assert not notices(page(client, english)) and not notices(page(client, original))


def test_no_notice_after_a_title_a_tag_or_a_whitespace_edit(client):
    original, english = pair(Language.CHINESE)
    with time_machine.travel(at(2), tick=False):
        original.title = "Warp 调度（修订）"
        original.save()
        original.tags.add(make_tag("GPU", "图形处理器"))
    edit_body(original, "\n\n它们一起", "\n\n\n   它们一起")
    edit_body(original, "被调度。\n", "被调度。   \n\n")
    assert Note.objects.get(pk=original.pk).body != english.body  # the edits were stored
    assert not notices(page(client, english))


def test_no_notice_after_a_rerender(client):
    original, english = pair(Language.CHINESE)
    with time_machine.travel(at(2), tick=False):
        Note.objects.get(pk=original.pk).render()
        call_command("rerender", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert not notices(page(client, english))


def test_no_notice_while_the_changed_version_is_a_draft(client):
    original, english = pair(Language.CHINESE)
    edit_text(original)
    original.status, original.published_at = Status.DRAFT, None
    original.save()
    assert not notices(page(client, english))


def test_bringing_the_note_in_line_takes_the_notice_away(
    client, django_capture_on_commit_callbacks
):
    original, english = pair(Language.CHINESE)
    edit_text(original)
    assert notices(page(client, english))
    # Committed, as the admin's action is: what a page shows is kept per content version,
    # which moves after the commit.
    with django_capture_on_commit_callbacks(execute=True), recording(None, "Brought in line"):
        bring_in_line(english, Note.objects.get(pk=original.pk))
    assert not notices(page(client, english))


@pytest.mark.parametrize("interface", INTERFACES)
def test_both_notes_of_a_published_pair_link_the_parallel_view(client, interface):
    original, english = pair(Language.CHINESE)
    label = "Read side by side" if interface else "对照阅读"
    for note in (original, english):
        links = page(client, note, interface).select(".translation-link a")
        assert [a["href"] for a in links][-1] == f"{interface}/notes/{note.slug}/parallel/"
        assert links[-1].get_text() == label, "in the interface's language"


def test_no_parallel_link_while_the_other_version_is_a_draft(client):
    original, english = pair(Language.CHINESE, status=Status.DRAFT, published_ago=None)
    assert not page(client, original).select('a[href$="/parallel/"]')


# Feeds.


def entry_for(client, path, note):
    response = client.get(path)
    assert response.status_code == 200
    parsed = feedparser.parse(response.content)
    assert parsed.bozo == 0, parsed.get("bozo_exception")
    link = f"{SITE}{'/en' if note.language == Language.ENGLISH else ''}/notes/{note.slug}/"
    return next(entry for entry in parsed.entries if entry.link == link)


def content_soup(entry):
    return BeautifulSoup(entry.content[0].value, "html.parser")


@pytest.mark.parametrize("fmt", ["rss", "atom"])
def test_the_feed_entry_starts_with_the_notice_in_the_notes_language(client, fmt):
    original, english = pair(Language.CHINESE)
    edit_text(original)
    path = "/feed/" if fmt == "rss" else "/feed/atom/"
    soup = content_soup(entry_for(client, path, english))
    first = soup.find("p")
    assert " ".join(first.get_text().split()).startswith(ORIGINAL_EN)
    assert [a["href"] for a in first.find_all("a")] == [
        f"{SITE}/notes/warps/",
        f"{SITE}/en/notes/warps-en/parallel/",
    ]
    assert "translation-notice" not in entry_for(client, path, original).content[0].value


def test_the_language_feed_carries_the_notice_in_the_notes_language(client):
    """The English feed of a Chinese blog: written in English; the Chinese feed in Chinese."""
    original, english = pair(Language.CHINESE)
    edit_text(original)
    soup = content_soup(entry_for(client, "/lang/en/feed/", english))
    assert " ".join(soup.find("p").get_text().split()).startswith(ORIGINAL_EN)


def test_no_notice_in_the_feed_for_a_pair_in_line(client):
    original, english = pair(Language.CHINESE)
    assert "translation-notice" not in entry_for(client, "/feed/", english).content[0].value


def test_no_notice_in_the_feed_while_the_changed_version_is_a_draft(client):
    original, english = pair(Language.CHINESE)
    edit_text(original)
    original.status, original.published_at = Status.DRAFT, None
    original.save()
    assert "translation-notice" not in entry_for(client, "/lang/en/feed/", english).content[0].value


@pytest.mark.parametrize("path", ["/feed/", "/feed/atom/", "/lang/en/feed/"])
def test_the_feeds_query_count_does_not_grow_with_pairs_behind(client, path):

    def count():
        site_settings()  # a warm settings cache, as in production
        with CaptureQueriesContext(connection) as queries:
            assert client.get(path).status_code == 200
        return len(queries)

    plain = count()
    for n in range(4):
        with time_machine.travel(at(1) - timedelta(hours=n), tick=False):
            original = make_note(slug=f"o{n}", body=f"原文 {n}。\n")
            make_note(slug=f"t{n}", language=Language.ENGLISH, body=f"Text {n}.\n")
            link_translation(Note.objects.get(slug=f"t{n}"), original)
        edit_body(Note.objects.get(pk=original.pk), "原文", "修改过的原文")
    assert count() == plain
    assert client.get(path).content.decode().count("translation-notice") == 4


# The page cache: a change of the pair's state empties the pages and feeds that show it.


@pytest.mark.django_db(transaction=True)
def test_the_cached_translation_page_and_feed_show_the_notice_at_once(client, settings):
    settings.BIJI_PAGE_CACHE_SECONDS = 86400
    original, english = pair(Language.CHINESE)
    # The English feed holds the English note alone: only the edited original's part moves.
    urls = ["/notes/warps-en/", "/en/notes/warps-en/", "/lang/en/feed/"]
    for url in urls:
        client.get(url)
        assert client.get(url)[page_cache.HEADER] == "hit", url
    edit_text(original)
    for url in urls:
        response = client.get(url)
        assert response[page_cache.HEADER] == "miss", url
        assert "translation-notice" in response.content.decode(), url
    with recording(None, "Brought in line"):
        bring_in_line(Note.objects.get(pk=english.pk), Note.objects.get(pk=original.pk))
    for url in urls:
        assert "translation-notice" not in client.get(url).content.decode(), url
