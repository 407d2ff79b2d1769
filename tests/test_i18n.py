"""Both interfaces speak their language: / in Chinese, /en/ in English, with plain-link
switching, content lang attributes, bilingual tag and series names and complete catalogues."""

import gettext
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from django.conf import settings

pytest_plugins = ["tests.site_data"]
pytestmark = pytest.mark.usefixtures("chinese_interface")


LOCALE = Path(settings.BASE_DIR) / "blog" / "locale"


def soup(response):
    assert response.status_code == 200
    return BeautifulSoup(response.content, "html.parser")


@pytest.mark.parametrize(
    ("url", "lang", "strings"),
    [
        ("/", "zh-Hans", ["阅读笔记", "最新笔记", "订阅", "跳到正文", "搜索"]),
        ("/en/", "en", ["Read note", "Latest notes", "Subscribe", "Skip to content", "Search"]),
        ("/tags/", "zh-Hans", ["标签", "篇笔记"]),
        ("/en/tags/", "en", ["Tags", "notes"]),
        ("/series/", "zh-Hans", ["系列", "部分"]),
        ("/en/series/", "en", ["Series", "parts"]),
        ("/archive/", "zh-Hans", ["归档"]),
        ("/en/archive/", "en", ["Archive"]),
        ("/notes/part-2/", "zh-Hans", ["第 2 部分，共 5 部分", "目录", "发布于", "英文版"]),
        ("/en/notes/part-2/", "en", ["Part 2 of 5", "Contents", "Published", "Also in English"]),
        ("/pages/about/", "zh-Hans", ["更新于"]),
        ("/en/pages/about/", "en", ["Updated"]),
    ],
)
def test_pages_render_in_the_interface_language(client, blog, url, lang, strings):
    page = soup(client.get(url))
    assert page.html["lang"] == lang
    text = page.get_text(" ")
    for string in strings:
        assert string in text, (url, string)


def test_english_interface_has_no_chinese_chrome(client, blog):
    page = soup(client.get("/en/"))
    for selector in (".site-nav", ".search-form", ".site-footer .subscribe", ".pagination"):
        for element in page.select(selector):
            assert not any("\u4e00" <= ch <= "\u9fff" for ch in element.get_text()), selector


def test_language_switcher_is_plain_links_without_csrf(client, blog):
    response = client.get("/notes/part-2/")
    page = soup(response)
    links = {a["hreflang"]: a["href"] for a in page.select(".lang-switch a[hreflang]")}
    # Part 2 has an English translation: the switch goes to it (tests/test_language_switch.py).
    assert links == {"zh-Hans": "/notes/part-2/", "en": "/en/notes/beating-cublas/"}
    assert page.select_one('.lang-switch a[aria-current="page"]')["hreflang"] == "zh-Hans"
    # The subscribe form posts without a token by design (it sits on cached pages).
    assert not page.select("form[method=post]:not(.mail-subscribe-form)")
    assert "csrfmiddlewaretoken" not in response.content.decode()
    assert "Cookie" not in response.headers.get("Vary", "")
    assert not response.cookies


def test_chinese_note_in_english_interface_keeps_its_lang(client, blog):
    page = soup(client.get("/en/notes/part-2/"))
    assert page.html["lang"] == "en"
    assert page.select_one("h1#note-title")["lang"] == "zh-Hans"
    assert page.select_one(".prose")["lang"] == "zh-Hans"


def test_english_note_in_chinese_interface(client, blog):
    page = soup(client.get("/notes/beating-cublas/"))
    assert page.html["lang"] == "zh-Hans"
    assert page.select_one(".prose")["lang"] == "en"
    # A list in the English interface holds the English note and the Chinese-only parts, each
    # with its own lang.
    item_titles = soup(client.get("/en/")).select(".note-item-title")
    assert {t["lang"] for t in item_titles} == {"zh-Hans", "en"}


def test_tag_names_in_interface_language_with_other_beside(client, blog):
    zh = soup(client.get("/tags/"))
    first = zh.select_one(".tag-cloud a")
    assert first.get_text(" ", strip=True).startswith("图形处理器")
    assert first.select_one(".other-name")["lang"] == "en"
    assert first.select_one(".other-name").get_text() == "GPU"
    en = soup(client.get("/en/tags/"))
    first = en.select_one(".tag-cloud a")
    assert first.get_text(" ", strip=True).startswith("GPU")
    assert first.select_one(".other-name")["lang"] == "zh-Hans"


def test_series_names_in_interface_language(client, blog):
    assert (
        soup(client.get("/series/gpu-notes/")).h1.get_text(" ", strip=True) == "GPU 笔记 GPU notes"
    )
    assert (
        soup(client.get("/en/series/gpu-notes/")).h1.get_text(" ", strip=True)
        == "GPU notes GPU 笔记"
    )


def test_links_stay_in_the_english_interface(client, blog):
    page = soup(client.get("/en/"))
    hrefs = [a["href"] for a in page.select("main a[href^='/']")]
    assert hrefs and all(href.startswith("/en/") for href in hrefs)


def _po_entries(path):
    """(msgctxt, msgid, [msgstr…]) for each entry of a .po file (enough of the format for
    Django's catalogues; the tests must not need gettext tools or extra packages)."""
    entries = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        fields, key = {}, None
        for line in block.splitlines():
            if line.startswith("#"):
                continue
            match = re.match(r'^(msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?) "(.*)"$', line)
            if match:
                key = match.group(1)
                fields[key] = match.group(2)
            elif line.startswith('"') and key:
                fields[key] += line[1:-1]
        if fields.get("msgid"):
            strs = [v for k, v in fields.items() if k.startswith("msgstr")]
            entries.append((fields.get("msgctxt"), fields["msgid"], strs, "fuzzy" in block))
    return entries


def test_chinese_catalogue_is_complete_and_compiled():
    po = LOCALE / "zh_Hans" / "LC_MESSAGES" / "django.po"
    entries = _po_entries(po)
    assert len(entries) > 100
    assert not [msgid for _, msgid, strs, _ in entries if not all(strs)]
    assert not [msgid for _, msgid, _, fuzzy in entries if fuzzy]
    mo = LOCALE / "zh_Hans" / "LC_MESSAGES" / "django.mo"
    with mo.open("rb") as handle:
        catalog = gettext.GNUTranslations(handle)
    for msgctxt, msgid, strs, _ in entries:
        if "%" in msgid or msgid.startswith("%"):
            continue
        msgid = msgid.replace('\\"', '"')  # the .po escapes quotes; the catalogue's keys do not
        translated = catalog.pgettext(msgctxt, msgid) if msgctxt else catalog.gettext(msgid)
        assert translated == strs[0].replace('\\"', '"'), msgid


def test_english_catalogue_is_compiled():
    assert (LOCALE / "en" / "LC_MESSAGES" / "django.mo").exists()
