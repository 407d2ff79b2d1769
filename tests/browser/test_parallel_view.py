"""The parallel view of the demo's translated pair (CUDA warp scheduling, Chinese original and
English translation), in both interfaces: two columns at 1280 px, the original then its
translation at 390 px, the original's changed block marked, nothing sideways on a phone, and
no axe violation in either theme.

The demo pair is in line when loaded. To show a changed block, ``behind`` moves the
translation's sync state back by one block for this module (the translation was brought in
line before the original's first paragraph under "SM 与 warp scheduler" was edited) and puts
it back afterwards: the text of both notes stays as loaded, and their pages follow the save.
"""

import pytest
from django.utils import translation as i18n
from django.utils.translation import gettext
from playwright.sync_api import expect

from blog.models import Note
from tests.browser.site import in_language, visit
from tests.browser.test_accessibility import NO_TRANSITIONS, WCAG_TAGS, describe, run_axe
from tests.browser.test_mobile import WIDE_BLOCKS, WIDEST

pytestmark = pytest.mark.browser

ORIGINAL, TRANSLATION = "cuda-warp-scheduling", "cuda-warp-scheduling-en"
PARALLEL = f"/notes/{ORIGINAL}/parallel/"
CHANGED_TEXT = "以 Ampere（A100）为例"  # the original's block the translation is behind on
WIDE = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
LANGUAGES = ["zh-hans", "en"]
# A row that pairs a paragraph of each note, and the one with the changed block.
PAIRED_ROW = ".parallel-rows > .parallel-row:has(.parallel-original p):has(.parallel-translation p)"
CHANGED_ROW = ".parallel-rows > .parallel-row:has(.is-changed)"


@pytest.fixture(scope="module")
def behind(demo):
    original = Note.objects.get(slug=ORIGINAL)
    translated = Note.objects.get(slug=TRANSLATION)
    kept = translated.synced_hashes
    hashes = original.block_hashes.split()
    changed = next(
        digest
        for kind, digest, html in original.parallel_blocks
        if kind == "paragraph" and CHANGED_TEXT in html
    )
    translated.synced_hashes = " ".join("0" * 16 if h == changed else h for h in hashes)
    translated.save(update_fields=["synced_hashes"])
    try:
        yield
    finally:
        translated.synced_hashes = kept
        translated.save(update_fields=["synced_hashes"])


def boxes(page, selector):
    """The original's and the translation's cell in the first row matching ``selector``."""
    row = page.locator(selector).first
    original = row.locator(".parallel-original").bounding_box()
    translated = row.locator(".parallel-translation").bounding_box()
    assert original and translated, f"no two cells in {selector}"
    return original, translated


@pytest.mark.parametrize("language", LANGUAGES)
def test_two_columns_at_1280_px(open_page, behind, language):
    page = open_page(color_scheme="light", viewport=WIDE)
    visit(page, in_language(PARALLEL, language))
    for selector in (PAIRED_ROW, CHANGED_ROW):
        original, translated = boxes(page, selector)
        assert abs(original["y"] - translated["y"]) < 2, "paired blocks do not start level"
        assert translated["x"] >= original["x"] + original["width"], "not side by side"
    # Original on the left in its language, translation on the right in its own.
    row = page.locator(PAIRED_ROW).first
    expect(row.locator(".parallel-original")).to_have_attribute("lang", "zh-Hans")
    expect(row.locator(".parallel-translation")).to_have_attribute("lang", "en")
    assert not page.problems, str(page.problems)


@pytest.mark.parametrize("language", LANGUAGES)
def test_original_then_translation_at_390_px(open_page, behind, language):
    page = open_page(
        color_scheme="light", viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    visit(page, in_language(PARALLEL, language))
    for selector in (PAIRED_ROW, CHANGED_ROW):
        original, translated = boxes(page, selector)
        assert translated["y"] >= original["y"] + original["height"] - 1, "not one after the other"
        assert translated["width"] > PHONE["width"] * 0.6, "a column too narrow for a phone"
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width}px wide: {page.evaluate(WIDEST)}"
    assert page.evaluate(WIDE_BLOCKS) == []
    assert not page.problems, str(page.problems)


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1280", "390"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_changed_block_is_marked_in_words(open_page, behind, language, viewport):
    page = open_page(color_scheme="light", viewport=viewport)
    visit(page, in_language(PARALLEL, language))
    changed = page.locator(".parallel-original .is-changed")
    expect(changed).to_have_count(1)
    expect(changed).to_contain_text(CHANGED_TEXT)
    with i18n.override(language):
        words = gettext("Changed since the translation")
    mark = changed.locator(".parallel-changed")
    expect(mark).to_be_visible()
    expect(mark).to_have_text(words)
    expect(page.locator(".parallel-summary")).to_be_visible()


@pytest.mark.parametrize("language", LANGUAGES)
def test_passages_that_do_not_correspond_are_said_so(open_page, behind, language):
    """The English version opens with a line of its own: the openings are not paired."""
    page = open_page(color_scheme="light", viewport=WIDE)
    visit(page, in_language(PARALLEL, language))
    first = page.locator(".parallel-rows > .parallel-row").first
    with i18n.override(language):
        words = gettext("These passages do not correspond block for block.")
    expect(first.locator(".parallel-note")).to_have_text(words)
    expect(first.locator(".parallel-translation .parallel-block")).to_have_count(2)


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1280", "390"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_axe_finds_nothing_in_either_theme(open_page, axe_source, behind, language, viewport):
    page = open_page(
        bypass_csp=True, color_scheme="light", reduced_motion="reduce", viewport=viewport
    )
    page.context.add_init_script(script=axe_source)
    url = in_language(PARALLEL, language)
    visit(page, url)
    page.add_style_tag(content=NO_TRANSITIONS)
    failures = []
    for theme in ("light", "dark"):
        page.emulate_media(color_scheme=theme)
        for violation in run_axe(page, axe_source, WCAG_TAGS, colour_only=theme == "dark"):
            failures.append(describe(violation, f"{language}/{theme}/{viewport['width']}: {url}"))
    assert not failures, "\n".join(failures)


def test_wide_code_in_a_column_is_reached_by_keyboard(open_page, behind):
    """A code block scrolling inside its half of the page takes the focus, so keyboard users
    can scroll it (site.js marks what scrolls)."""
    page = open_page(color_scheme="light", viewport=WIDE)
    visit(page, PARALLEL)
    scrolling = page.locator(".parallel-rows pre").evaluate_all(
        "pres => pres.filter(p => p.scrollWidth > p.clientWidth + 1)"
        ".map(p => p.getAttribute('tabindex'))"
    )
    assert all(index == "0" for index in scrolling), scrolling
