"""What a link preview reads from a page: the share card as og:image (absolute, with its size,
type and description) and twitter:card=summary_large_image on every note, series, tag and the
home page, in both interfaces; a note's cover until its card exists; a summary card without
either. The cached page follows the card once the background runner has made it, and showing
it costs no query."""

import pytest
from bs4 import BeautifulSoup
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from blog.caching import pages as page_cache
from blog.models import Language, Note, Series, SiteSettings, Tag
from tests.background import run_queued_tasks
from tests.factories import make_note, make_series, make_tag

SITE = "https://notes.example.com"


@pytest.fixture(autouse=True)
def _site_url(settings):
    settings.SITE_URL = SITE


@pytest.fixture
def blog(db):
    SiteSettings.objects.create(title="笔记 biji", tagline_zh="GPU 与系统", tagline_en="GPUs")
    tag = make_tag("Scheduling", "调度")
    series = make_series(title_en="GPU notes", title_zh="GPU 笔记", slug="gpu-notes")
    note = make_note(
        title="CUDA warp 调度", slug="warp", tags=[tag], series=series, series_position=1
    )
    english = make_note(
        title="CUDA warp scheduling",
        slug="warp-en",
        language=Language.ENGLISH,
        tags=[tag],
        series=series,
        series_position=1,
    )
    note.translation = english
    note.save()
    return {"note": note, "english": english, "tag": tag, "series": series}


def head(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    return BeautifulSoup(response.content, "html.parser").head


def og(page, name):
    tag = page.find("meta", property=f"og:{name}")
    return tag["content"] if tag else None


def twitter(page, name):
    tag = page.find("meta", attrs={"name": f"twitter:{name}"})
    return tag["content"] if tag else None


def assert_shows_card(page, card, alt):
    assert card, "no card was made"
    assert og(page, "image") == f"{SITE}/media/{card}"
    assert og(page, "image:width") == "1200" and og(page, "image:height") == "630"
    assert og(page, "image:type") == "image/png"
    assert og(page, "image:alt") == alt
    assert twitter(page, "card") == "summary_large_image"
    assert twitter(page, "image") == og(page, "image")
    # What Telegram and WeChat read beside the image.
    assert og(page, "title") and og(page, "description") and og(page, "site_name") == "笔记 biji"
    assert page.find("meta", attrs={"name": "description"})["content"]


def stored(obj):
    return type(obj).objects.get(pk=obj.pk)


@pytest.mark.parametrize("prefix", ["", "/en"])
def test_a_note_page_shares_its_own_card_in_either_interface(client, blog, prefix):
    call_command("sharecards", verbosity=0)
    for note in (blog["note"], blog["english"]):
        note = stored(note)
        page = head(client, f"{prefix}/notes/{note.slug}/")
        assert_shows_card(page, note.card, note.title)  # a pair: each note its own card
    assert stored(blog["note"]).card != stored(blog["english"]).card


@pytest.mark.parametrize(("prefix", "field"), [("", "card_zh"), ("/en", "card_en")])
def test_series_tag_and_home_pages_share_their_card_in_the_interface_language(
    client, blog, prefix, field
):
    call_command("sharecards", verbosity=0)
    series, tag = stored(blog["series"]), stored(blog["tag"])
    site = SiteSettings.objects.get()
    page = head(client, f"{prefix}/series/gpu-notes/")
    assert_shows_card(page, getattr(series, field), og(page, "title"))
    assert "GPU" in og(page, "image:alt")
    page = head(client, f"{prefix}/tags/scheduling/")
    assert_shows_card(page, getattr(tag, field), og(page, "title"))
    for url in (f"{prefix}/", f"{prefix}/?page=1"):
        assert_shows_card(head(client, url), getattr(site, field), "笔记 biji")


def test_a_note_with_a_cover_and_no_card_yet_shares_its_cover(client, db):
    make_note(slug="with-cover", cover="covers/2026/gpu.jpg", cover_alt="A GPU on a desk")
    page = head(client, "/notes/with-cover/")
    assert og(page, "image") == f"{SITE}/media/covers/2026/gpu.jpg"
    assert og(page, "image:type") == "image/jpeg"
    assert og(page, "image:alt") == "A GPU on a desk"
    assert og(page, "image:width") is None  # not known without reading the file
    assert twitter(page, "card") == "summary_large_image"


def test_a_note_without_card_or_cover_shares_no_image(client, db):
    make_note(slug="plain")
    page = head(client, "/notes/plain/")
    assert og(page, "image") is None and twitter(page, "image") is None
    assert twitter(page, "card") == "summary"


@pytest.mark.django_db(transaction=True)
def test_the_cached_page_shows_the_card_once_the_background_runner_made_it(client):
    SiteSettings.objects.create(title="笔记 biji")
    tag = make_tag("Scheduling", "调度")
    note = make_note(title="CUDA warp 调度", slug="warp", tags=[tag])
    urls = [note.get_absolute_url(), "/tags/scheduling/", "/en/tags/scheduling/"]
    for url in urls:
        client.get(url)
        assert client.get(url)[page_cache.HEADER] == "hit"
        assert og(head(client, url), "image") is None
    run_queued_tasks()
    assert og(head(client, urls[0]), "image") == f"{SITE}/media/{stored(note).card}"
    assert og(head(client, urls[1]), "image") == f"{SITE}/media/{stored(tag).card_zh}"
    assert og(head(client, urls[2]), "image") == f"{SITE}/media/{stored(tag).card_en}"

    note.refresh_from_db()
    old = note.card
    note.title = "CUDA warp 调度：SM 里发生了什么"
    note.save()
    run_queued_tasks()
    card = stored(note).card
    assert card != old
    assert og(head(client, urls[0]), "image") == f"{SITE}/media/{card}"


def queries(client, url):
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


@override_settings(BIJI_PAGE_CACHE_SECONDS=0)
def test_sharing_the_card_costs_no_query(
    client, blog, django_assert_max_num_queries, django_capture_on_commit_callbacks
):
    urls = ["/notes/warp/", "/tags/scheduling/", "/series/gpu-notes/", "/"]
    for url in urls:
        client.get(url)  # memos and the settings' copy, at this content state
    before = {url: queries(client, url) for url in urls}
    with django_capture_on_commit_callbacks(execute=True):  # the cards' saves commit
        call_command("sharecards", verbosity=0)
    assert Note.objects.exclude(card="").count() == 2
    assert Series.objects.exclude(card_zh="").exists() and Tag.objects.exclude(card_zh="").exists()
    for url in urls:
        client.get(url)  # the same, at the state the cards moved to
    for url in urls:
        with django_assert_max_num_queries(before[url], info=url):
            page = head(client, url)
        assert og(page, "image"), url
