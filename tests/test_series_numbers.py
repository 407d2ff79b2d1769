"""The part numbers readers see are the parts' positions in the series: a scheduled part that
appears later does not renumber the parts already out, and nothing names it before then. One
count everywhere: the highest number out, its missing numbers "still to come"."""

from datetime import timedelta

import pytest
from bs4 import BeautifulSoup
from django.utils import timezone

from blog.models import Language
from tests.factories import make_note, make_scheduled, make_series

pytest_plugins = ["tests.site_data"]
pytestmark = pytest.mark.usefixtures("chinese_interface")

SCHEDULED_TITLE = "第 5 部分：还没发布"


def soup(client, url):
    response = client.get(url)
    assert response.status_code == 200
    return BeautifulSoup(response.content, "html.parser")


@pytest.fixture
def series(db):
    """Six parts; the fifth is scheduled in three days."""
    series = make_series(title_zh="GPU 笔记", title_en="GPU notes", slug="gpu")
    for position in (1, 2, 3, 4, 6):
        make_note(
            title=f"第 {position} 部分",
            slug=f"part-{position}",
            series=series,
            series_position=position,
            published_ago=timedelta(days=30 - position),
        )
    make_scheduled(title=SCHEDULED_TITLE, slug="part-5", series=series, series_position=5)
    return series


def kicker(page):
    return page.select_one(".note-kicker").get_text(" ", strip=True)


def box_numbers(page):
    return [li.get("value") for li in page.select(".series-box .series-parts li")]


def test_a_part_after_a_scheduled_one_keeps_its_number(client, series):
    page = soup(client, "/notes/part-6/")
    assert "第 6 部分，共 6 部分" in kicker(page)
    assert "第 6 部分，共 6 部分" in page.select_one(".series-position").get_text()
    assert box_numbers(page) == ["1", "2", "3", "4", "6"]

    english = soup(client, "/en/notes/part-6/")
    assert "Part 6 of 6" in kicker(english)


def test_numbers_do_not_change_when_the_scheduled_part_appears(client, series):
    before = kicker(soup(client, "/notes/part-6/"))
    series.notes.filter(slug="part-5").update(published_at=timezone.now() - timedelta(minutes=1))
    series.notes.get(slug="part-5").save()  # as the publication moment passing would show it

    after = soup(client, "/notes/part-6/")
    assert kicker(after) == before
    assert box_numbers(after) == ["1", "2", "3", "4", "5", "6"]
    assert "第 5 部分，共 6 部分" in kicker(soup(client, "/notes/part-5/"))


def test_the_scheduled_part_is_not_named_before_it_appears(client, series):
    for url in ("/notes/part-4/", "/notes/part-6/", "/series/gpu/", "/en/notes/part-6/"):
        assert SCHEDULED_TITLE not in client.get(url).content.decode(), url


def test_the_series_page_numbers_parts_by_position(client, series):
    page = soup(client, "/series/gpu/")
    numbers = [span.get_text(strip=True) for span in page.select(".note-meta .part")]
    assert numbers == ["第 1 部分", "第 2 部分", "第 3 部分", "第 4 部分", "第 6 部分"]


def test_a_translation_shows_its_originals_number(client, series):
    original = series.notes.get(slug="part-6")
    make_note(
        title="Part six",
        slug="part-6-en",
        language=Language.ENGLISH,
        translation=original,
        series=series,
        series_position=6,
    )
    assert "Part 6 of 6" in kicker(soup(client, "/en/notes/part-6-en/"))


def test_a_part_without_a_position_gets_no_number(client, series):
    """Numbering it by its place in the list would change when a part is placed before it."""
    make_note(title="番外", slug="extra", series=series)
    page = soup(client, "/notes/extra/")
    assert "部分" not in kicker(page)
    assert not page.select_one(".series-position")
    assert page.select_one(".series-box .series-parts li.unnumbered [aria-current]")
    assert box_numbers(page) == ["1", "2", "3", "4", "6", None]
    listed = soup(client, "/series/gpu/").select(".series-parts-list > li")
    assert not listed[-1].select_one(".part")


def test_one_count_everywhere_with_the_missing_part_said_to_come(client, series):
    page = soup(client, "/notes/part-6/")
    assert "第 6 部分，共 6 部分" in kicker(page)
    box = page.select_one(".series-box .series-parts")
    assert "全部 6 部分" in box.select_one("summary").get_text()  # not 5
    assert "第 5 部分尚未发布" in box.get_text()
    lede = soup(client, "/series/gpu/").select_one(".lede").get_text(" ", strip=True)
    assert "6" in lede and "5" not in lede.split("。")[0]  # "目前共 6 部分"
    assert "第 5 部分尚未发布" in lede
    english = soup(client, "/en/series/gpu/").select_one(".lede").get_text(" ", strip=True)
    assert english == "6 parts so far. Part 5 is still to come."


def test_the_admin_says_which_note_holds_the_number_readers_miss(admin_client, series):
    from django.urls import reverse

    url = reverse("admin:blog_note_position")
    answer = admin_client.get(
        url, {"series": series.pk, "language": "zh-hans"}, HTTP_ACCEPT_LANGUAGE="en"
    ).json()
    assert answer["position"] == 7
    assert f"5 is held by “{SCHEDULED_TITLE}”, scheduled for" in answer["held"]
    form = admin_client.get(
        reverse("admin:blog_note_add"), {"series": series.pk}, HTTP_ACCEPT_LANGUAGE="en"
    ).content.decode()
    assert SCHEDULED_TITLE in form  # the form opened with the series says it too
