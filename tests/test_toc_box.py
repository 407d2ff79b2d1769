"""The contents box above a note: shown when it helps a reader find their way."""

import pytest
from bs4 import BeautifulSoup

from tests.factories import make_note

pytest_plugins = ["tests.site_data"]
pytestmark = pytest.mark.usefixtures("chinese_interface")


def toc_boxes(client, url):
    response = client.get(url)
    assert response.status_code == 200
    return BeautifulSoup(response.content, "html.parser").select("nav.toc")


def test_a_note_with_one_heading_has_no_contents_box(client, db):
    make_note(slug="one", body="## 只有一节\n\n正文。\n")
    assert toc_boxes(client, "/notes/one/") == []
    assert toc_boxes(client, "/en/notes/one/") == []


def test_a_note_with_two_headings_has_one(client, db):
    make_note(slug="two", body="## 第一节\n\n正文。\n\n## 第二节\n\n更多。\n")
    (box,) = toc_boxes(client, "/notes/two/")
    assert [a.get_text() for a in box.select("a")] == ["第一节", "第二节"]


def test_one_heading_with_subheadings_has_one(client, db):
    make_note(slug="nested", body="## 方法\n\n### 分块\n\n正文。\n")
    assert len(toc_boxes(client, "/notes/nested/")) == 1


def test_a_note_without_headings_has_none(client, db):
    make_note(slug="none", body="只有正文。\n")
    assert toc_boxes(client, "/notes/none/") == []
