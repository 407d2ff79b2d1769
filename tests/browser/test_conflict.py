"""The conflict screen in Debian's chromium: two tabs edit one note; the tab that saves second
sees the other tab's changes first, in full (no scrolling box hiding the lines it added, one
line per line), finds them already merged into its text where lines differ, and chooses only
where both changed the same lines — the choice shows in the text at once.

These tests write: each makes a draft note of its own (never shown to readers, so the public
pages the other browser tests read are unchanged) and deletes it, with its revisions, after.
"""

import re
from functools import partial

import pytest
from django.contrib.contenttypes.models import ContentType
from playwright.sync_api import expect
from reversion.models import Revision, Version

from blog.models import Note, Status
from tests.browser.admin_session import author_session_cookie, open_as_author

pytestmark = pytest.mark.browser

PARAGRAPHS = [f"第 {n} 段：warp 调度器每个周期挑选一个就绪的 warp 发射指令。" for n in range(1, 41)]
BODY = "\n\n".join(PARAGRAPHS) + "\n"
# More than the 480 px box that used to hold the diff: its last lines were out of sight.
ADDED = [f"另一个标签页加的第 {n} 行。" for n in range(1, 31)]


@pytest.fixture(scope="module")
def author_cookie(demo):
    return author_session_cookie(demo)


@pytest.fixture
def author_page(open_page, author_cookie):
    return partial(open_as_author, open_page, author_cookie)


@pytest.fixture
def note(demo):
    note = Note.objects.create(
        title="冲突测试笔记", slug="conflict-screen-test", body=BODY, status=Status.DRAFT
    )
    try:
        yield note
    finally:
        versions = Version.objects.filter(
            content_type=ContentType.objects.get_for_model(Note), object_id=str(note.pk)
        )
        Revision.objects.filter(pk__in=versions.values("revision_id")).delete()
        Note.objects.filter(pk=note.pk).delete()


def open_form(author_page, note):
    page = author_page()
    page.goto(f"/admin/blog/note/{note.pk}/change/", wait_until="domcontentloaded")
    expect(page.locator("textarea#id_body")).to_have_value(BODY.strip() + "\n")
    return page


def save(page):
    page.locator("input[name=_continue]").first.click()
    page.wait_for_load_state("domcontentloaded")


def test_the_other_tab_s_additions_are_shown_first_in_full_and_merged(author_page, note):
    mine, other = open_form(author_page, note), open_form(author_page, note)
    other.locator("textarea#id_body").fill(BODY + "\n" + "\n".join(ADDED) + "\n")
    save(other)
    expect(other.locator(".messagelist .success")).to_be_visible()

    area = mine.locator("textarea#id_body")
    area.fill(BODY.replace("第 1 段：", "第 1 段（我改的）："))
    save(mine)
    panel = mine.locator(".edit-conflict")
    expect(panel).to_be_visible()

    # First on the screen: what the other tab did, and all of it in the page, not in a box
    # that scrolls on its own.
    theirs, merge = panel.locator(".conflict-theirs"), panel.locator(".conflict-merge")
    assert theirs.bounding_box()["y"] < merge.bounding_box()["y"]
    added = theirs.locator(".text-diff ins")
    expect(added.filter(has_text=ADDED[0])).to_be_in_viewport()
    diff = theirs.locator(".text-diff")
    assert diff.evaluate("el => el.scrollHeight <= el.clientHeight + 1")  # nothing hidden
    last = added.filter(has_text=ADDED[-1])
    last.scroll_into_view_if_needed()
    expect(last).to_be_in_viewport()
    # One line per line: the rows follow each other at the text's line height.
    tops = added.evaluate_all("rows => rows.map(r => r.getBoundingClientRect().top)")
    line = diff.evaluate("el => parseFloat(getComputedStyle(el).lineHeight)")
    assert len(tops) == len(ADDED) + 1  # the blank line before them, and them
    assert all(0 < b - a <= line * 1.2 for a, b in zip(tops, tops[1:], strict=False))

    # Nothing to ask: the form holds both changes already.
    expect(panel.locator(".conflict-choice")).to_have_count(0)
    text = area.input_value()
    assert "第 1 段（我改的）：" in text and all(line in text for line in ADDED)
    assert "<<<<<<<" not in text
    save(mine)
    expect(mine.locator(".messagelist .success")).to_be_visible()
    stored = Note.objects.get(pk=note.pk).body
    assert "第 1 段（我改的）：" in stored and ADDED[-1] in stored
    assert [p for p in mine.problems if "Failed to load resource" not in p] == []


def test_where_both_tabs_changed_the_same_lines_the_choice_shows_in_the_text(author_page, note):
    mine, other = open_form(author_page, note), open_form(author_page, note)
    other.locator("textarea#id_body").fill(
        BODY.replace("第 2 段：", "第 2 段：另一个标签页说，").replace("第 40 段", "第四十段")
    )
    save(other)
    area = mine.locator("textarea#id_body")
    area.fill(BODY.replace("第 2 段：", "第 2 段：我说，"))
    save(mine)

    choice = mine.locator(".conflict-choice")
    expect(choice).to_have_count(1)
    expect(choice.locator(".conflict-side-theirs")).to_contain_text("另一个标签页说")
    expect(choice.locator(".conflict-side-mine")).to_contain_text("我说")
    assert "第四十段" in area.input_value()  # applied without asking

    choice.locator("input[value=theirs]").check()
    expect(area).not_to_have_value(re.compile("<<<<<<<"))  # applied in the page at once
    text = area.input_value()
    assert "另一个标签页说" in text and "我说" not in text and "<<<<<<<" not in text
    choice.locator("input[value=both]").check()  # a change of mind
    text = area.input_value()
    assert text.index("另一个标签页说") < text.index("第 2 段：我说") and "<<<<<<<" not in text

    save(mine)
    expect(mine.locator(".messagelist .success")).to_be_visible()
    stored = Note.objects.get(pk=note.pk).body.replace("\r\n", "\n")
    assert "第 2 段：另一个标签页说，" in stored and "第 2 段：我说，" in stored
    assert "第四十段" in stored and "[#1 " not in stored
    assert [p for p in mine.problems if "Failed to load resource" not in p] == []
