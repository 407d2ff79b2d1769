"""One SITE_URL joiner: pages, feeds and the sitemap give a note the same absolute URL.

The blog may be mounted below the root (``SITE_URL = "https://example.com/blog"``). A proxy may
strip the prefix before Django sees the path, or the server may pass it as ``SCRIPT_NAME`` so
that ``reverse()`` adds it; either way the prefix must appear exactly once.
"""

import xml.etree.ElementTree as ET

import feedparser
import pytest
from django.urls import clear_script_prefix, set_script_prefix

from blog.text.site_url import absolute_url
from tests.factories import make_note

MOUNTED = "https://example.com/blog"
NOTE_URL = MOUNTED + "/notes/kernel-launch/"
SITEMAP_NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}


# --- absolute_url ------------------------------------------------------------------------------


def test_origin_site_url(settings):
    settings.SITE_URL = "https://blog.example"
    assert absolute_url("/notes/x/") == "https://blog.example/notes/x/"
    assert absolute_url("notes/x/") == "https://blog.example/notes/x/"
    assert absolute_url("/") == "https://blog.example/"
    assert absolute_url("") == "https://blog.example/"


@pytest.mark.parametrize("path", ["/notes/x/", "/blog/notes/x/"])
def test_sub_path_site_url_adds_the_prefix_once(settings, path):
    settings.SITE_URL = MOUNTED
    assert absolute_url(path) == "https://example.com/blog/notes/x/"


def test_sub_path_site_url_root_and_lookalike_prefixes(settings):
    settings.SITE_URL = MOUNTED
    assert absolute_url("/") == "https://example.com/blog/"
    assert absolute_url("/blog") == "https://example.com/blog"
    # Starts with the prefix's letters but is not below it.
    assert absolute_url("/blogroll/") == "https://example.com/blog/blogroll/"


@pytest.mark.parametrize("site_url", ["https://blog.example", MOUNTED])
@pytest.mark.parametrize(
    "url", ["https://elsewhere.example/a/", "http://example.com/blog/x/", "mailto:a@example.com"]
)
def test_full_urls_pass_through(settings, site_url, url):
    settings.SITE_URL = site_url
    assert absolute_url(url) == url


# --- end to end, with the blog mounted at /blog -----------------------------------------------


@pytest.fixture(params=["prefix stripped by a proxy", "prefix passed as SCRIPT_NAME"])
def mounted(request, settings, db):
    """Request headers for a blog at /blog; the note ``kernel-launch`` is published."""
    settings.SITE_URL = MOUNTED
    make_note(title="Kernel launch", slug="kernel-launch")
    if request.param.endswith("SCRIPT_NAME"):
        set_script_prefix("/blog/")  # what Django's WSGI handler does with SCRIPT_NAME
        yield {"SCRIPT_NAME": "/blog"}
        clear_script_prefix()
    else:
        yield {}


@pytest.mark.parametrize("path", ["/feed/", "/feed/atom/"])
def test_feed_links_on_a_mounted_site(client, mounted, path):
    response = client.get(path, **mounted)
    assert response.status_code == 200
    parsed = feedparser.parse(response.content)
    assert [entry.link for entry in parsed.entries] == [NOTE_URL]
    assert parsed.feed.link == MOUNTED + "/"
    assert [link.href for link in parsed.feed.links if link.rel == "self"] == [MOUNTED + path]


def test_sitemap_location_on_a_mounted_site(client, mounted):
    index = ET.fromstring(client.get("/sitemap.xml", **mounted).content)  # noqa: S314 (ours)
    sitemaps = [loc.text for loc in index.findall("s:sitemap/s:loc", SITEMAP_NS)]
    assert MOUNTED + "/sitemap-notes.xml" in sitemaps
    assert all(loc.startswith(MOUNTED + "/sitemap-") for loc in sitemaps)
    response = client.get("/sitemap-notes.xml", **mounted)
    assert response.status_code == 200
    root = ET.fromstring(response.content)  # noqa: S314 (our own sitemap)
    locations = [loc.text for loc in root.findall("s:url/s:loc", SITEMAP_NS)]
    assert NOTE_URL in locations
    assert all(loc.startswith(MOUNTED + "/") for loc in locations)
    assert not [loc for loc in locations if "/blog/blog/" in loc]


def test_canonical_link_on_a_mounted_site(client, mounted):
    response = client.get("/notes/kernel-launch/", **mounted)
    assert response.status_code == 200
    assert f'<link rel="canonical" href="{NOTE_URL}">' in response.content.decode()
