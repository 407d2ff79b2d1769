"""The home page and a note's page show what a reader needs: title, date, excerpt, tags and
series in lists; body, TOC, series box, translation, source, reading time and related notes
on the note."""

import pytest
from bs4 import BeautifulSoup

from tests.factories import make_note

pytest_plugins = ["tests.site_data"]
pytestmark = pytest.mark.usefixtures("chinese_interface")


def soup(response):
    assert response.status_code == 200
    return BeautifulSoup(response.content, "html.parser")


def test_home_lists_notes_newest_first_with_excerpt_tags_and_series(client, blog):
    page = soup(client.get("/"))
    items = page.select(".note-item")
    titles = [item.select_one(".note-item-title > a").get_text(strip=True) for item in items]
    # The newest note, "Beating cuBLAS on H100", translates part 2: the Chinese home lists the
    # pair once, as part 2 (tests/test_language_lists.py).
    assert titles == [f"第 {i} 部分：调度" for i in range(5, 0, -1)]
    item = items[-1]
    assert item.select_one(".excerpt").get_text(strip=True)
    assert item.select_one("time")["datetime"]
    assert item.select_one(".series-link").get_text() == "GPU 笔记"
    assert {a.get_text() for a in item.select(".tags a")} == {"图形处理器", "调度"}
    read = item.select_one(".read-more a")
    assert read.get_text(" ", strip=True).startswith("阅读笔记")
    assert read["href"] == "/notes/part-1/"


def test_home_paginates_by_ten(client, db):
    for i in range(12):
        make_note(slug=f"n-{i}")
    first = soup(client.get("/"))
    assert len(first.select(".note-item")) == 10
    assert first.select_one('.pagination a[rel="next"]')["href"] == "?page=2"
    second = soup(client.get("/?page=2"))
    assert len(second.select(".note-item")) == 2
    assert second.select_one('.pagination a[rel="prev"]')["href"] == "/"


def test_note_page_body_toc_tags_and_dates(client, blog):
    page = soup(client.get("/notes/part-3/"))
    assert page.h1.get_text() == "第 3 部分：调度"
    assert page.select_one(".prose h2")
    assert page.select_one(".toc a[href^='#']")
    tags = [a.get_text(" ", strip=True) for a in page.select(".note-header .tags a")]
    assert tags == ["图形处理器 GPU", "调度 Scheduling"]
    assert page.select_one(".note-meta time")["datetime"]
    assert "阅读约 1 分钟" in page.select_one(".note-meta").get_text()


def test_series_box_with_previous_and_next(client, blog):
    page = soup(client.get("/notes/part-2/"))
    box = page.select_one(".series-box")
    assert "第 2 部分，共 5 部分" in box.get_text()
    assert box.select_one('a[rel="prev"]')["href"] == "/notes/part-1/"
    assert box.select_one('a[rel="next"]')["href"] == "/notes/part-3/"
    assert len(box.select(".series-parts li")) == 5
    assert box.select_one('[aria-current="page"]').get_text() == "第 2 部分：调度"


def test_first_and_last_parts_have_one_neighbour(client, blog):
    first = soup(client.get("/notes/part-1/")).select_one(".series-box")
    assert not first.select_one('a[rel="prev"]') and first.select_one('a[rel="next"]')
    last = soup(client.get("/notes/part-5/")).select_one(".series-box")
    assert last.select_one('a[rel="prev"]') and not last.select_one('a[rel="next"]')


def test_translation_link_and_source_attribution(client, blog):
    zh = soup(client.get("/notes/part-2/"))
    assert zh.select_one(".translation-link a")["href"] == "/en/notes/beating-cublas/"
    en = soup(client.get("/en/notes/beating-cublas/"))
    link = en.select_one(".translation-link a")
    assert link["href"] == "/notes/part-2/" and link["lang"] == "zh-Hans"
    source = en.select_one(".source-box")
    text = source.get_text(" ", strip=True)
    assert "Outperforming cuBLAS on H100" in text and "Pranjal Shankhdhar" in text
    assert source.select_one("a")["href"] == "https://example.com/cublas"


def test_related_notes_share_tags(client, blog):
    page = soup(client.get("/notes/part-1/"))
    related = [a["href"] for a in page.select(".related a")]
    assert related[:2] == ["/notes/part-5/", "/notes/part-3/"]  # two shared tags, newest first
    assert "/notes/part-1/" not in related
    assert len(related) <= 4


def test_note_language_on_content_blocks(client, blog):
    page = soup(client.get("/notes/part-1/"))
    assert page.select_one("#note-title")["lang"] == "zh-Hans"
    assert page.select_one(".prose")["lang"] == "zh-Hans"


@pytest.mark.parametrize("url", ["/", "/notes/part-1/", "/tags/", "/en/archive/"])
def test_page_chrome(client, blog, url):
    page = soup(client.get(url))
    assert page.select_one("a.skip-link[href='#main']")
    assert page.select_one("main#main")
    form = page.select_one("form[role=search]")
    assert form["action"].endswith("/search/") and form["method"] == "get"
    field = form.select_one("input[name=q]")
    assert page.select_one(f"label[for={field['id']}]")
    assert page.select_one("#theme-toggle")
    assert len(page.select(".lang-switch a[hreflang]")) == 2
    assert len(page.find_all("h1")) == 1


def test_toc_placed_in_the_body_is_not_repeated(client, db):
    make_note(slug="own-toc", body="[TOC]\n\n## 一\n\ntext\n\n## 二\n\nmore\n")
    page = soup(client.get("/notes/own-toc/"))
    assert len(page.select(".toc")) == 1
    assert page.select_one(".prose .toc")
