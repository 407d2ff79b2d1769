"""Footnotes as a reader meets them (issue 38; static/js/site.js and the ``.sidenote`` and
``.footnote-popover`` rules of site.css), on two demo notes: a Chinese one with one footnote
and an English one with two on neighbouring lines.

* From 1280 px each footnote also stands in the margin right of the column, level with its
  reference or, when the one before is in the way, just under it; inside the window.
* Narrower, activating a reference opens its footnote in a popover, by click, tap or Enter;
  Escape gives the focus back to the reference.
* Without JavaScript the reference is a plain link to the footnote at the note's end, which
  stays there in every layout, for the keyboard and screen readers.
* Nothing shifts while the page loads; axe finds nothing, in either layout or theme.

The sidenotes' script is site.js, on every page: the note page's JavaScript budget is
test_page_weight.py's.
"""

import pytest
from playwright.sync_api import expect

from tests.browser.site import path_of, visit
from tests.browser.test_accessibility import NO_TRANSITIONS, WCAG_TAGS, describe, run_axe

pytestmark = pytest.mark.browser

WIDE = {"width": 1400, "height": 900}
NARROW = {"width": 800, "height": 900}
PHONE = {"width": 390, "height": 844}
# The demo's notes with footnotes (blog/ops/demo/notes/), each read in its own interface.
NOTES = {
    "zh-hans": "/notes/parallel-computing-1/",  # one footnote, under a table's lead-in
    "en": "/en/notes/pinned-memory-checklist/",  # two, a line apart: the second moves down
}
LANGUAGES = pytest.mark.parametrize("language", ["zh-hans", "en"])
LINE = 40  # px: "level with its reference": within a line of the English or Chinese text

SHIFTS = """
window.__shifts = [];
new PerformanceObserver(list => {
  for (const entry of list.getEntries()) window.__shifts.push(entry.value);
}).observe({type: "layout-shift", buffered: true});
"""
# Each footnote as the end list has it, without its link back: what a sidenote must say.
FOOTNOTES = """() => [...document.querySelectorAll(".prose .footnote li")].map(item => {
  const copy = item.cloneNode(true);
  copy.querySelectorAll(".footnote-backref").forEach(a => a.remove());
  return copy.textContent.replace(/\\s+/g, " ").trim();
})"""


def open_note(open_page, language, scheme="light", **options):
    page = open_page(color_scheme=scheme, **options)
    page.add_init_script(SHIFTS)
    visit(page, NOTES[language])
    return page


def refs(page):
    """The note's footnote references, in the text (not those in the footnotes)."""
    return page.locator(".prose > :not(.footnote) a.footnote-ref")


def squeezed(text):
    return " ".join(text.split())


def expect_no_shift_and_no_axe_finding(page, axe_source, where):
    page.wait_for_timeout(200)  # a frame or two after load: the deferred script's changes
    assert page.evaluate("window.__shifts") == [], f"{where}: the layout shifted"
    page.add_style_tag(content=NO_TRANSITIONS)
    found = run_axe(page, axe_source, WCAG_TAGS)
    assert not found, "\n".join(describe(violation, where) for violation in found)
    ids = page.evaluate("[...document.querySelectorAll('[id]')].map(el => el.id)")
    assert len(ids) == len(set(ids)), "duplicate ids"
    assert not page.problems, f"problems:\n{page.problems}"


@LANGUAGES
def test_wide_windows_show_each_footnote_beside_its_reference(
    open_page, axe_source, scheme, language
):
    page = open_note(open_page, language, scheme, viewport=WIDE, bypass_csp=True)
    footnotes = page.evaluate(FOOTNOTES)
    sidenotes = page.locator(".prose aside.sidenote")
    expect(sidenotes).to_have_count(len(footnotes))
    assert footnotes and refs(page).count() == len(footnotes)
    column = page.locator(".prose").bounding_box()
    lang = page.locator(".prose").get_attribute("lang")
    above = None
    for index, footnote in enumerate(footnotes):
        sidenote, ref = sidenotes.nth(index), refs(page).nth(index)
        expect(sidenote).to_be_visible()
        assert squeezed(sidenote.inner_text()) == f"{index + 1} {footnote}"
        expect(sidenote).to_have_attribute("lang", lang)
        box, at = sidenote.bounding_box(), ref.bounding_box()
        assert box["x"] >= column["x"] + column["width"] + 16, "not right of the column"
        assert box["x"] + box["width"] <= WIDE["width"] - 8, "past the window's edge"
        if above is None or above["y"] + above["height"] < at["y"] - 4:
            assert abs(box["y"] - at["y"]) <= LINE, f"footnote {index + 1} is not level"
        else:  # pushed under the one before, close to it
            assert above["y"] + above["height"] <= box["y"] <= above["y"] + above["height"] + 20
        above = box
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDE["width"]
    # The list at the end stays, and a wide window's reference still leads to it.
    expect(page.locator(".prose .footnote li").first).to_be_visible()
    refs(page).first.click()
    assert path_of(page).endswith(refs(page).first.get_attribute("href"))
    expect(page.locator(".footnote-popover:popover-open")).to_have_count(0)
    expect_no_shift_and_no_axe_finding(page, axe_source, f"{language}, {scheme}, 1400 px")


def expect_the_popover(page, footnote, number):
    popover = page.locator(".footnote-popover")
    expect(popover).to_be_visible()
    assert squeezed(popover.inner_text()) == f"{number} {footnote}"
    expect(popover).to_be_focused()
    box = popover.bounding_box()
    width = page.evaluate("document.documentElement.clientWidth")
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, "the popover leaves the window"
    return popover


# Each narrow device with one language (the other meets the wide window): the popover's
# behaviour does not depend on the note's language, its text's lang is checked in both.
@pytest.mark.parametrize(("device", "language"), [("800 px", "zh-hans"), ("phone", "en")])
def test_narrow_windows_open_a_footnote_in_a_popover(open_page, axe_source, device, language):
    touch = device == "phone"
    options = (
        {"viewport": PHONE, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
        if touch
        else {"viewport": NARROW}
    )
    page = open_note(open_page, language, bypass_csp=True, **options)
    here = path_of(page)
    footnotes = page.evaluate(FOOTNOTES)
    expect(page.locator(".sidenote:visible")).to_have_count(0)
    ref = refs(page).last
    ref.scroll_into_view_if_needed()
    ref.tap() if touch else ref.click()
    popover = expect_the_popover(page, footnotes[-1], len(footnotes))
    assert path_of(page) == here, "the reference jumped to the list"
    expect(popover).to_have_attribute("lang", page.locator(".prose").get_attribute("lang"))

    page.keyboard.press("Escape")
    expect(popover).to_be_hidden()
    expect(ref).to_be_focused()
    # From the keyboard: Enter opens it again, Tab leaves it closed and goes on in the text.
    page.keyboard.press("Enter")
    expect_the_popover(page, footnotes[-1], len(footnotes))
    expect_no_shift_and_no_axe_finding(page, axe_source, f"{language}, {device}, popover open")
    page.keyboard.press("Tab")
    expect(popover).to_be_hidden()
    # A tap or click elsewhere closes it too.
    ref.tap() if touch else ref.click()
    expect(popover).to_be_visible()
    outside = page.locator(".note-meta")
    outside.tap() if touch else outside.click()
    expect(popover).to_be_hidden()
    assert path_of(page) == here


def test_without_javascript_a_reference_leads_to_the_footnote(open_page):
    page = open_page(java_script_enabled=False, viewport=WIDE)
    visit(page, NOTES["zh-hans"])
    expect(page.locator(".sidenote, .footnote-popover")).to_have_count(0)
    ref = refs(page).first
    href = ref.get_attribute("href")
    ref.click()
    assert path_of(page).endswith(href)
    footnote = page.locator(f"[id='{href[1:]}']")
    expect(footnote).to_be_in_viewport()
    expect(footnote.locator("a.footnote-backref")).to_be_visible()
