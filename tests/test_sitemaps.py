"""The sitemap lists only what readers can see, on SITE_URL, with lastmod from updated_at:
an index (/sitemap.xml) of per-section sitemaps in pages of at most 5,000 URLs."""

import xml.etree.ElementTree as ET
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.utils import timezone
from django.utils.timezone import localtime

from blog.models import Note
from blog.public.sitemaps import SiteURLSitemap
from tests.factories import make_draft, make_note, make_page, make_scheduled, make_series, make_tag

pytest_plugins = ["tests.site_data"]
pytestmark = pytest.mark.usefixtures("chinese_interface")

SITE = "https://notes.example.com"
NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}


@pytest.fixture(autouse=True)
def _site_url(settings):
    settings.SITE_URL = SITE


def parse(response):
    assert response.status_code == 200
    assert response["Content-Type"] == "application/xml"
    return ET.fromstring(response.content)  # noqa: S314 (our own sitemap)


def index(client):
    """The index's entries: {location: lastmod text}."""
    root = parse(client.get("/sitemap.xml", HTTP_HOST="localhost"))
    assert root.tag == f"{{{NS['s']}}}sitemapindex"
    return {
        entry.findtext("s:loc", namespaces=NS): entry.findtext("s:lastmod", namespaces=NS)
        for entry in root.findall("s:sitemap", NS)
    }


def fetch(client, location):
    assert location.startswith(SITE + "/")
    parts = urlsplit(location)
    return client.get(parts.path, dict(p.split("=") for p in filter(None, [parts.query])))


def sitemap(client):
    """Every URL of every sitemap the index names: {location: <url> element}."""
    urls = {}
    for location in index(client):
        for url in parse(fetch(client, location)).findall("s:url", NS):
            loc = url.find("s:loc", NS).text
            assert loc not in urls, loc
            urls[loc] = url
    return urls


def test_sitemap_lists_published_content_on_site_url(client, blog):
    urls = sitemap(client)
    assert all(loc.startswith(SITE + "/") for loc in urls)
    for path in (
        "/",
        "/en/",
        "/tags/",
        "/series/",
        "/archive/",
        "/notes/part-1/",
        "/en/notes/beating-cublas/",
        "/series/gpu-notes/",
        "/en/series/gpu-notes/",
        "/tags/gpu/",
        "/pages/about/",
    ):
        assert SITE + path in urls, path


def test_note_lastmod_is_its_update_date(client, blog):
    urls = sitemap(client)
    note = blog["parts"][0]
    assert (
        urls[SITE + "/notes/part-1/"].find("s:lastmod", NS).text
        == localtime(note.updated_at).date().isoformat()
    )


def test_bilingual_entries_carry_hreflang_alternates(client, blog):
    entry = sitemap(client)[SITE + "/tags/gpu/"]
    alternates = {link.get("hreflang"): link.get("href") for link in entry.findall("x:link", NS)}
    assert alternates["en"] == SITE + "/en/tags/gpu/"
    assert alternates["zh-hans"] == SITE + "/tags/gpu/"


def test_sitemap_holds_only_published(client, db):
    tag = make_tag("Hidden", "隐藏")
    series = make_series(slug="hidden-series")
    make_draft(slug="a-draft", tags=[tag], series=series, series_position=1)
    make_scheduled(slug="a-scheduled", tags=[tag])
    make_page(title="Secret page", slug="secret", is_published=False)
    text = "".join(ET.tostring(url, encoding="unicode") for url in sitemap(client).values())
    for hidden in ("a-draft", "a-scheduled", "/tags/hidden/", "hidden-series", "/pages/secret/"):
        assert hidden not in text


def test_index_names_each_section_on_site_url(client, blog):
    sections = {urlsplit(location).path for location in index(client)}
    assert sections == {
        "/sitemap-sections.xml",
        "/sitemap-notes.xml",
        "/sitemap-series.xml",
        "/sitemap-tags.xml",
        "/sitemap-pages.xml",
        "/sitemap-glossary.xml",
    }


@pytest.fixture
def small_pages(monkeypatch):
    """Sitemap pages of 3 URLs instead of 5,000, so a few notes fill several pages."""
    monkeypatch.setattr(SiteURLSitemap, "limit", 3)


def test_large_sections_are_split_into_pages_each_with_its_own_lastmod(client, db, small_pages):
    now = timezone.now()
    notes = [make_note(slug=f"n{i}", published_at=now - timedelta(days=10 - i)) for i in range(7)]
    # The newest edit lands on the first page: each page's lastmod is its own notes' newest.
    Note.objects.filter(pk=notes[1].pk).update(updated_at=now + timedelta(days=3))
    Note.objects.filter(pk=notes[4].pk).update(updated_at=now - timedelta(days=30))
    entries = index(client)
    pages = [loc for loc in entries if "/sitemap-notes.xml" in loc]
    assert pages == [
        SITE + "/sitemap-notes.xml",
        SITE + "/sitemap-notes.xml?p=2",
        SITE + "/sitemap-notes.xml?p=3",
    ]
    by_page = [Note.objects.order_by("pk")[i : i + 3] for i in (0, 3, 6)]
    for location, notes_on_page in zip(pages, by_page, strict=True):
        newest = max(localtime(note.updated_at) for note in notes_on_page)
        assert entries[location] == newest.isoformat(), location
        listed = parse(fetch(client, location)).findall("s:url", NS)
        assert len(listed) == len(notes_on_page) <= 3
    assert len([loc for loc in sitemap(client) if "/notes/" in loc]) == 7
    assert client.get("/sitemap-notes.xml", {"p": "4"}).status_code == 404
    assert client.get("/sitemap-notes.xml", {"p": "x"}).status_code == 404
    assert client.get("/sitemap-nothing.xml").status_code == 404


def test_sections_with_nothing_published_are_left_out_of_the_index(client, db):
    make_note(slug="only-note")
    sections = {urlsplit(location).path for location in index(client)}
    assert "/sitemap-pages.xml" not in sections and "/sitemap-notes.xml" in sections
