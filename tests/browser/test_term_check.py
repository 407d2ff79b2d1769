"""The editor's "Term check" panel in chromium (issue 21): under the editor and its preview on
a note with a translation, it lists the demo's one term warning (分支发散 written 发散 where
the English says "divergence"), and follows the text as the author types, before any save.

Nothing here saves a note: the demo data stays as the other browser tests expect it.
"""

from functools import partial

import pytest
from django.utils import translation
from playwright.sync_api import expect

from blog.models import Note
from tests.browser.admin_session import author_session_cookie, open_as_author

pytestmark = pytest.mark.browser

PARAGRAPH_END = "发散随之消失。"


@pytest.fixture(scope="module")
def author_cookie(demo):
    return author_session_cookie(demo)


@pytest.fixture
def author_page(open_page, author_cookie):
    return partial(open_as_author, open_page, author_cookie)


def in_language(language, singular, plural=None, count=None):
    with translation.override(language):
        if plural is None:
            return translation.gettext(singular)
        return translation.ngettext(singular, plural, count) % {"count": count}


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_the_panel_follows_the_text_as_the_author_types(author_page, language):
    note = Note.objects.get(slug="cuda-warp-scheduling")
    assert note.term_warnings == 1  # the demo's one slip, counted when it loaded
    page = author_page(language)
    page.goto(f"/admin/blog/note/{note.pk}/change/", wait_until="domcontentloaded")
    panel = page.locator("section#term-check")
    status = panel.locator(".term-check-status")
    one = in_language(language, "%(count)d term warning", "%(count)d term warnings", 1)
    expect(status).to_have_text(one)
    expect(panel.locator("li.term-warning")).to_have_count(1)
    expect(panel.locator("li.term-warning-other-form mark").last).to_have_text("发散")
    # Under the editor and its preview, across the form's width.
    preview = page.locator("iframe.editor-preview").bounding_box()
    box = panel.bounding_box()
    assert box["y"] >= preview["y"] + preview["height"]

    # The author types the glossary's form in: the warning goes, nothing is saved.
    area = page.locator("textarea#id_body")
    area.evaluate(
        """(el, end) => { const at = el.value.indexOf(end);
                          el.focus(); el.setSelectionRange(at, at); }""",
        PARAGRAPH_END,
    )
    page.keyboard.type("分支")
    expect(status).to_have_text(in_language(language, "No term warnings."))
    expect(panel.locator("li.term-warning")).to_have_count(0)
    assert Note.objects.get(pk=note.pk).body == note.body
    assert [p for p in page.problems if "Failed to load resource" not in p] == []
