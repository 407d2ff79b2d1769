"""sitemap.xml lists only what readers can see, on SITE_URL, with lastmod from updated_at."""

import xml.etree.ElementTree as ET

import pytest
from django.utils.timezone import localtime

from tests.factories import make_draft, make_page, make_scheduled, make_series, make_tag

pytest_plugins = ["tests.site_data"]
pytestmark = pytest.mark.usefixtures("chinese_interface")

SITE = "https://notes.example.com"
NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}


@pytest.fixture(autouse=True)
def _site_url(settings):
    settings.SITE_URL = SITE


def sitemap(client):
    response = client.get("/sitemap.xml", HTTP_HOST="localhost")
    assert response.status_code == 200
    root = ET.fromstring(response.content)  # noqa: S314 (our own sitemap)
    return {url.find("s:loc", NS).text: url for url in root.findall("s:url", NS)}


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
    text = client.get("/sitemap.xml").content.decode()
    for hidden in ("a-draft", "a-scheduled", "/tags/hidden/", "hidden-series", "/pages/secret/"):
        assert hidden not in text


def test_sitemap_is_cacheable(client, blog):
    assert "public" in client.get("/sitemap.xml")["Cache-Control"]
