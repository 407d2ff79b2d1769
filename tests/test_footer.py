"""The footer: the feed a reader subscribes to is their interface language's, the other feeds
stay linked, and the demo's own footer text neither repeats those links nor stays Chinese on
the English pages."""

import re
from io import StringIO

import pytest
from bs4 import BeautifulSoup
from django.core.management import call_command

from blog.models import SiteSettings
from tests.shared_data import module_data

pytestmark = pytest.mark.django_db

HAN = re.compile(r"[\u4e00-\u9fff]")


def footer(client, url):
    response = client.get(url)
    assert response.status_code == 200
    return BeautifulSoup(response.content, "html.parser").select_one("footer.site-footer")


@pytest.mark.parametrize(("url", "language"), [("/", "zh-hans"), ("/en/", "en")])
def test_subscribe_leads_to_the_interface_languages_feed(client, url, language):
    subscribe = footer(client, url).select_one(".subscribe")
    rss, atom, *others = subscribe.select("a")
    assert rss["href"] == f"/lang/{language}/feed/" and rss["type"] == "application/rss+xml"
    assert atom["href"] == f"/lang/{language}/feed/atom/"
    assert "/feed/" in [a["href"] for a in others]  # both languages, still linked


@module_data
def demo_loaded():
    """The demo blog, loaded once for the tests that read it (tests/shared_data.py)."""
    call_command("load_demo", stdout=StringIO())


@pytest.fixture
def demo(demo_loaded, db):
    return SiteSettings.load()


@pytest.mark.parametrize("url", ["/", "/en/"])
def test_the_demo_footer_links_each_feed_once(client, demo, url):
    hrefs = [a["href"] for a in footer(client, url).select("a")]
    feeds = [href for href in hrefs if "feed" in href]
    assert feeds and len(feeds) == len(set(feeds)), hrefs


def test_the_demo_footer_has_no_chinese_on_the_english_pages(client, demo):
    text = footer(client, "/en/").get_text(" ", strip=True)
    assert "CC BY-NC-SA" in text
    without_names = text.replace(demo.author, "").replace(demo.title, "")
    assert not HAN.search(without_names), text
