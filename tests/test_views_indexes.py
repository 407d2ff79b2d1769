"""Tag, series and archive indexes count published notes; their pages list them in order."""

import pytest
from bs4 import BeautifulSoup

pytest_plugins = ["tests.site_data"]
pytestmark = pytest.mark.usefixtures("chinese_interface")


def soup(response):
    assert response.status_code == 200
    return BeautifulSoup(response.content, "html.parser")


def test_tag_index_with_counts(client, blog):
    page = soup(client.get("/en/tags/"))
    rows = {
        li.select_one("a")["href"]: li.select_one(".count").get_text()
        for li in page.select(".tag-cloud li")
    }
    # A translated pair counts once (tests/test_language_lists.py).
    assert rows == {"/en/tags/gpu/": "5 notes", "/en/tags/scheduling/": "3 notes"}


def test_tag_page_lists_its_notes(client, blog):
    page = soup(client.get("/tags/scheduling/"))
    assert page.h1.get_text(" ", strip=True) == "调度 Scheduling"
    hrefs = [a["href"] for a in page.select(".note-item-title a")]
    assert hrefs == ["/notes/part-5/", "/notes/part-3/", "/notes/part-1/"]


def test_series_index_with_counts(client, blog):
    page = soup(client.get("/en/series/"))
    item = page.select_one(".series-item")
    assert item.select_one("h2 a")["href"] == "/en/series/gpu-notes/"
    assert "5 parts" in item.get_text()


def test_series_page_in_reading_order(client, blog):
    page = soup(client.get("/series/gpu-notes/"))
    hrefs = [a["href"] for a in page.select(".note-item-title a")]
    assert hrefs == [f"/notes/part-{i}/" for i in range(1, 6)]
    assert page.select_one("ol.series-parts-list")["start"] == "1"
    assert "第 1 部分" in page.select_one(".note-item .part").get_text()


def test_archive_index_counts_by_year_and_month(client, blog):
    page = soup(client.get("/en/archive/"))
    total = sum(int(span.get_text().split()[0]) for span in page.select(".archive-months .count"))
    assert total == 5  # part 2 and its English translation are one entry
    year_link = page.select_one(".archive-years h2 a")["href"]
    year_page = soup(client.get(year_link))
    assert len(year_page.select(".note-item")) >= 1
    month_link = page.select_one(".archive-months a")["href"]
    month_page = soup(client.get(month_link))
    assert month_page.select(".note-item")


def test_month_archive_lists_that_month_only(client, blog):
    note = blog["parts"][0]
    from django.utils.timezone import localtime

    when = localtime(note.published_at)
    page = soup(client.get(f"/archive/{when.year}/{when.month}/"))
    for item in page.select(".note-item time"):
        assert item["datetime"].startswith(f"{when.year}-{when.month:02d}")


@pytest.mark.parametrize("url", ["/pages/about/", "/en/pages/about/"])
def test_page_detail(client, blog, url):
    page = soup(client.get(url))
    assert page.h1.get_text() == "About"
    assert "GPU" in page.select_one(".prose").get_text()
