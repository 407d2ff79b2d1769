"""Search engines and link previews: titles, descriptions, canonical URLs on SITE_URL,
hreflang alternates, OpenGraph/Twitter tags, JSON-LD on notes and feed autodiscovery."""

import json

import pytest
from bs4 import BeautifulSoup

pytest_plugins = ["tests.site_data"]
pytestmark = pytest.mark.usefixtures("chinese_interface")


SITE = "https://notes.example.com"


@pytest.fixture(autouse=True)
def _site_url(settings):
    settings.SITE_URL = SITE


def soup(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    return BeautifulSoup(response.content, "html.parser")


PUBLIC = [
    "/",
    "/en/",
    "/?page=1",
    "/notes/part-2/",
    "/en/notes/part-2/",
    "/tags/",
    "/tags/gpu/",
    "/series/",
    "/series/gpu-notes/",
    "/archive/",
    "/pages/about/",
    "/en/pages/about/",
]


@pytest.mark.parametrize("url", PUBLIC)
def test_every_page_has_title_description_canonical_og_and_feeds(client, blog, url):
    page = soup(client, url)
    assert page.title.get_text(strip=True)
    assert page.find("meta", attrs={"name": "description"})["content"]
    assert page.find("meta", attrs={"name": "viewport"})
    canonical = page.find("link", rel="canonical")["href"]
    assert canonical == SITE + url.split("?")[0]
    assert page.find("meta", property="og:url")["content"] == canonical
    for prop in ("og:title", "og:description", "og:type", "og:site_name"):
        assert page.find("meta", property=prop)["content"], prop
    assert page.find("meta", attrs={"name": "twitter:card"})["content"] in (
        "summary",
        "summary_large_image",
    )
    feeds = {link["href"] for link in page.find_all("link", rel="alternate", type=True)}
    assert {"/feed/", "/feed/atom/"} <= feeds
    lang = "en" if url.startswith("/en/") else "zh-hans"
    assert f"/lang/{lang}/feed/" in feeds
    assert page.select_one('.site-footer a[href="/feed/"]')


def test_paginated_canonical_keeps_the_page(client, db):
    from tests.factories import make_note

    for _ in range(12):
        make_note()
    page = soup(client, "/?page=2")
    assert page.find("link", rel="canonical")["href"] == SITE + "/?page=2"
    assert "2" in page.title.get_text()


def test_interface_alternates(client, blog):
    page = soup(client, "/tags/gpu/")
    alternates = {
        link["hreflang"]: link["href"]
        for link in page.find_all("link", rel="alternate", hreflang=True)
    }
    assert alternates == {"zh-Hans": SITE + "/tags/gpu/", "en": SITE + "/en/tags/gpu/"}


def test_note_alternates_point_to_its_translation(client, blog):
    page = soup(client, "/notes/part-2/")
    alternates = {
        link["hreflang"]: link["href"]
        for link in page.find_all("link", rel="alternate", hreflang=True)
    }
    assert alternates == {
        "zh-Hans": SITE + "/notes/part-2/",
        "en": SITE + "/en/notes/beating-cublas/",
    }
    link = page.select_one(".translation-link a")
    assert link["href"] == "/en/notes/beating-cublas/"
    assert link["hreflang"] == "en" and link["lang"] == "en"


def test_tag_and_series_pages_advertise_their_feeds(client, blog):
    tag = soup(client, "/tags/gpu/")
    hrefs = {link["href"] for link in tag.find_all("link", rel="alternate", type=True)}
    assert {"/tags/gpu/feed/", "/tags/gpu/feed/atom/"} <= hrefs
    assert tag.select_one('.feed-links a[href="/tags/gpu/feed/"]')
    series = soup(client, "/series/gpu-notes/")
    hrefs = {link["href"] for link in series.find_all("link", rel="alternate", type=True)}
    assert {"/series/gpu-notes/feed/", "/series/gpu-notes/feed/atom/"} <= hrefs
    assert series.select_one('.feed-links a[href="/series/gpu-notes/feed/"]')


def test_note_jsonld_blogposting(client, blog, site_settings):
    page = soup(client, "/notes/beating-cublas/")
    scripts = page.find_all("script", type="application/ld+json")
    assert len(scripts) == 1
    data = json.loads(scripts[0].string)
    assert data["@type"] == "BlogPosting"
    assert data["headline"] == "Beating cuBLAS on H100"
    assert data["inLanguage"] == "en"
    assert data["url"] == SITE + "/notes/beating-cublas/"
    assert data["author"]["name"] == "Ada"
    assert data["datePublished"] and data["dateModified"]
    assert data["translationOfWork"]["author"]["name"] == "Pranjal Shankhdhar"
    assert page.find("meta", property="og:type")["content"] == "article"


def test_jsonld_cannot_break_out_of_its_script(client, db):
    from tests.factories import make_note

    make_note(title="</script><script>alert(1)</script>", slug="evil")
    html = client.get("/notes/evil/").content.decode()
    block = html.split('<script type="application/ld+json">', 1)[1].split("</script>", 1)[0]
    assert "<" not in block
    assert json.loads(block)["headline"] == "</script><script>alert(1)</script>"


def test_no_inline_executable_scripts_or_handlers(client, blog):
    for url in PUBLIC:
        page = soup(client, url)
        for script in page.find_all("script"):
            assert script.get("src") or script.get("type") == "application/ld+json", url
        assert not [
            tag for tag in page.find_all(True) if any(a.startswith("on") for a in tag.attrs)
        ]


def test_cover_image_in_og_and_twitter(client, db):
    from tests.factories import make_note

    make_note(slug="with-cover", cover="covers/2024/gpu.png", cover_alt="A GPU")
    page = soup(client, "/notes/with-cover/")
    assert page.find("meta", property="og:image")["content"] == SITE + "/media/covers/2024/gpu.png"
    assert page.find("meta", attrs={"name": "twitter:card"})["content"] == "summary_large_image"


def test_robots_txt_names_the_sitemap_and_hides_share_links(client, db):
    response = client.get("/robots.txt")
    assert response["Content-Type"].startswith("text/plain")
    text = response.content.decode()
    assert f"Sitemap: {SITE}/sitemap.xml" in text
    assert "Disallow: /admin/" in text
    assert "Disallow: /notes/*/share/" in text and "Disallow: /en/notes/*/share/" in text
