"""The note form and the note list fit the author's screen: at 1280 px the navigation sidebar
is collapsed on the form (the toggle opens it; other pages keep the author's choice), leaving
the editor and the preview half the width each; the list fits beside the sidebar and the
filters, publication time included; on a phone and a small tablet nothing in the form is cut
off by its row or the screen.

Nothing here saves a note: the demo data stays as the other browser tests expect it.
"""

import re
from functools import partial

import pytest
from playwright.sync_api import expect

from blog.models import Note
from tests.browser.admin_session import author_session_cookie, open_as_author
from tests.browser.site import FLASH

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def author_cookie(demo):
    return author_session_cookie(demo)


@pytest.fixture
def author_page(open_page, author_cookie):
    return partial(open_as_author, open_page, author_cookie)


SIDEBAR_KEY = "django.admin.navSidebarIsOpen"
PHONE = {"width": 390, "height": 844}
TABLET = {"width": 800, "height": 1000}


def change_url():
    note = Note.objects.get(slug=FLASH.strip("/").split("/")[-1])
    return f"/admin/blog/note/{note.pk}/change/"


def width(page, selector):
    return page.locator(selector).first.bounding_box()["width"]


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_at_1280px_the_editor_and_preview_share_the_width_beside_a_collapsed_sidebar(
    author_page, language
):
    page = author_page(language)
    page.goto(change_url())
    expect(page.locator("iframe.editor-preview")).to_be_visible()
    expect(page.locator("#main")).not_to_have_class(re.compile(r"\bshifted\b"))
    expect(page.locator("#nav-sidebar")).to_be_hidden()
    editor, preview = width(page, "textarea#id_body"), width(page, "iframe.editor-preview")
    # The content is 1280 px less the page's margins: each pane close to half of it.
    assert editor >= 560 and preview >= 560, (editor, preview)

    # The toggle still opens it, on this page.
    page.locator("#toggle-nav-sidebar").click()
    expect(page.locator("#nav-sidebar")).to_be_visible()
    # Collapsing it here did not change the author's choice for the other pages.
    page.locator("#toggle-nav-sidebar").click()
    assert page.evaluate(f"localStorage.getItem('{SIDEBAR_KEY}')") == "false"  # their click
    page.evaluate(f"localStorage.removeItem('{SIDEBAR_KEY}')")  # never chosen: open
    page.goto(change_url())
    expect(page.locator("#nav-sidebar")).to_be_hidden()
    assert page.evaluate(f"localStorage.getItem('{SIDEBAR_KEY}')") is None
    page.goto("/admin/blog/tag/")
    expect(page.locator("#nav-sidebar")).to_be_visible()


LIST_FITS = """() => {
  const results = document.querySelector("#changelist .results");
  const table = results.querySelector("#result_list");
  const box = results.getBoundingClientRect();
  const cut = [...table.querySelectorAll("th, td")]
    .filter(cell => cell.getBoundingClientRect().right > box.right + 1)
    .map(cell => cell.className + ": " + cell.textContent.trim().slice(0, 30));
  return {scroll: results.scrollWidth, width: results.clientWidth, cut: cut.slice(0, 5)};
}"""


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_at_1280px_the_note_list_fits_publication_time_included(author_page, language):
    page = author_page(language)
    page.goto("/admin/blog/note/")
    expect(page.locator("#nav-sidebar")).to_be_visible()  # the list keeps the sidebar
    expect(page.locator("#changelist-filter")).to_be_visible()
    fit = page.evaluate(LIST_FITS)
    assert fit["scroll"] <= fit["width"] and not fit["cut"], fit
    published = page.locator("#result_list td.field-published").first
    expect(published).to_have_text(re.compile(r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}|-)$"))
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280


CLIPPED = """() => {
  // Every visible element of the form whose box leaves the box of the nearest ancestor that
  // clips (overflow other than visible) or the screen.
  const screen = document.documentElement.clientWidth;
  const problems = [];
  for (const el of document.querySelectorAll("#content-main form *")) {
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height || getComputedStyle(el).visibility === "hidden") continue;
    if (el.closest(".select2-hidden-accessible, [hidden], .hidden")) continue;
    let clip = null;
    for (let p = el.parentElement; p && p.tagName !== "FORM"; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== "visible") { clip = p; break; }
    }
    const right = clip ? Math.min(clip.getBoundingClientRect().right, screen) : screen;
    const left = clip ? clip.getBoundingClientRect().left : 0;
    if (box.right > right + 1 || box.left < left - 1) {
      const name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
        (typeof el.className === "string" && el.className ? "." + el.className.trim()
          .split(/\\s+/).join(".") : "");
      problems.push(`${name} ${Math.round(box.left)}..${Math.round(box.right)}px` +
                    ` in ${Math.round(left)}..${Math.round(right)}px`);
    }
  }
  return problems.slice(0, 10);
}"""


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["390px", "800px"])
@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_nothing_in_the_note_form_is_cut_off(author_page, language, viewport):
    phone = viewport is PHONE
    page = author_page(
        language, viewport=viewport, is_mobile=phone, has_touch=phone, device_scale_factor=2
    )
    page.goto(change_url())
    expect(page.locator("iframe.editor-preview")).to_be_visible()
    expect(page.locator(".editor-toolbar [data-action=footnote]")).to_be_visible()
    assert page.evaluate(CLIPPED) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    if not phone:  # the tablet shows the sidebar when opened: the form still fits beside it
        page.locator("#toggle-nav-sidebar").click()
        expect(page.locator("#nav-sidebar")).to_be_visible()
        assert page.evaluate(CLIPPED) == []
