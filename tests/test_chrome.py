"""The header, footer and head links are kept once per content state and language
(blog.caching.chrome), and never show one interface's chrome in the other, an old title, or
last year's copyright line."""

import re
from datetime import datetime
from unittest import mock

import pytest
from django.test import override_settings
from django.utils import timezone

from blog.models import SiteSettings

pytestmark = pytest.mark.django_db

NO_PAGE_CACHE = override_settings(BIJI_PAGE_CACHE_SECONDS=0)


def nav(html):
    return re.search(r'<nav class="site-nav".*?</nav>', html, re.S).group(0)


@NO_PAGE_CACHE
def test_each_interface_keeps_its_own_header_and_footer(client):
    SiteSettings.objects.create(title="笔记 biji")
    for _ in range(2):  # the second round is served from the kept chrome
        chinese = client.get("/").content.decode()
        english = client.get("/en/").content.decode()
        assert ">笔记</a>" in nav(chinese) and 'href="/archive/"' in nav(chinese)
        assert ">Notes</a>" in nav(english) and 'href="/en/archive/"' in nav(english)
        assert 'href="/lang/zh-hans/feed/"' in chinese and 'href="/lang/en/feed/"' in english
        assert "Made with biji" in english and "Made with biji" not in chinese


@NO_PAGE_CACHE
def test_a_settings_edit_shows_in_the_chrome_at_once(client):
    site = SiteSettings.objects.create(title="Old title", tagline_zh="Old tagline")
    assert "Old tagline" in client.get("/").content.decode()
    site.title, site.tagline_zh = "New title", "New tagline"
    site.save()
    html = client.get("/tags/").content.decode()
    assert "New tagline" in html and 'rel="home">New title</a>' in html
    assert "Old" not in html


@NO_PAGE_CACHE
def test_the_copyright_year_follows_the_clock(client):
    SiteSettings.objects.create(title="笔记 biji", author="Ada")
    assert f"© {timezone.now().year} Ada" in client.get("/").content.decode()
    next_year = datetime(timezone.now().year + 1, 1, 1, 12, tzinfo=timezone.get_current_timezone())
    with mock.patch("django.template.defaulttags.datetime") as clock:  # what {% now %} reads
        clock.now.return_value = next_year
        assert f"© {next_year.year} Ada" in client.get("/").content.decode()
