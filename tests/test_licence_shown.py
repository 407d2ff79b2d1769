"""The site's licence (site settings) where readers look for it, the footer, in both languages,
and where the author sets it, the site settings' admin page."""

import pytest
from bs4 import BeautifulSoup

from blog.models import SiteSettings

pytestmark = pytest.mark.django_db


def licence_line(client, url):
    html = BeautifulSoup(client.get(url).content, "html.parser")
    return html.select_one("footer.site-footer .licence")


@pytest.mark.parametrize(
    ("url", "words"),
    [("/", "笔记采用 CC BY-SA 4.0 许可协议"), ("/en/", "Notes licensed under CC BY-SA 4.0")],
)
def test_the_footer_names_the_licence_and_links_it(client, url, words):
    SiteSettings(
        title="笔记 biji",
        footer="自己的页脚。",
        licence="CC BY-SA 4.0",
        licence_url="https://creativecommons.org/licenses/by-sa/4.0/",
    ).save()
    line = licence_line(client, url)
    assert line.get_text(" ", strip=True) == words
    link = line.select_one('a[rel="license"]')
    assert link["href"] == "https://creativecommons.org/licenses/by-sa/4.0/"


def test_a_licence_without_an_address_is_named_alone(client):
    SiteSettings(title="笔记 biji", licence="CC0").save()
    line = licence_line(client, "/en/")
    assert line.get_text(strip=True) == "Notes licensed under CC0" and not line.select("a")


def test_without_a_licence_the_footer_claims_none(client):
    SiteSettings(title="笔记 biji", licence_url="https://example.com/").save()
    assert licence_line(client, "/") is None


def test_the_site_settings_page_sets_the_licence(admin_client):
    SiteSettings(title="笔记 biji").save()
    html = admin_client.get("/admin/blog/sitesettings/1/change/").content.decode()
    assert 'name="licence"' in html and 'name="licence_url"' in html
