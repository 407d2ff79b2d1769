"""Every public page loads cleanly in a real browser, under the real Content-Security-Policy:
no console errors or CSP violations, no broken stylesheet, script or image, and the
progressive enhancements switched on."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.site import FLASH, PAGES, SCHEDULED, in_language, visit

pytestmark = pytest.mark.browser


def test_every_page_loads_cleanly(page):
    """Every kind of page in Chinese; in English the home page and a note (the same templates
    and assets, English strings: test_accessibility.py visits every English page too)."""
    broken = []
    urls = [*PAGES.values(), in_language("/", "en"), in_language(FLASH, "en")]
    for url in urls:
        visit(page, url)
        state = page.evaluate(
            """() => ({
              sheets: [...document.styleSheets].filter(s => s.href)
                .map(s => { try { return s.cssRules.length; } catch (e) { return -1; } }),
              enhanced: document.documentElement.classList.contains("js"),
              images: [...document.images].filter(i => i.complete && !i.naturalWidth)
                .map(i => i.src),
            })"""
        )
        if not state["sheets"] or min(state["sheets"]) <= 0:
            broken.append(f"{url}: stylesheet missing or empty {state['sheets']}")
        if not state["enhanced"]:
            broken.append(f"{url}: theme.js did not run (no 'js' class on <html>)")
        if state["images"]:
            broken.append(f"{url}: broken images {state['images']}")
        if not page.locator("#theme-toggle").is_visible():
            broken.append(f"{url}: site.js did not run (the theme toggle is hidden)")
    problems = [str(p) for p in page.problems]
    assert not broken and not problems, "\n".join(broken + problems)


def test_missing_and_scheduled_notes_are_404_pages(page):
    for path in ("/notes/no-such-note/", SCHEDULED, "/en/notes/no-such-note/"):
        response = page.goto(path)
        assert response.status == 404, f"{path} answered {response.status}"
        expect(page.locator("main h1")).to_be_visible()
        # The reader can find their way back: the site's navigation and home link are there.
        expect(page.locator("header a[href='/'], header a[href='/en/']").first).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "en")


# Font families that have Han glyphs (Debian's fonts-noto-cjk, or a reader's system fonts).
OTHER_HAN_FORMS = re.compile(r"CJK (JP|KR|TC|HK)|Han Sans (J|K|TC|HC)\b|Hiragino (Kaku|Mincho)")
CJK_FONT = re.compile(r"CJK|Source Han|WenQuanYi|PingFang|Hiragino|YaHei|SimSun|Droid Sans")


def test_chinese_text_is_drawn_with_a_cjk_font(page):
    """Without a CJK font chromium draws Chinese as empty boxes, and nothing else would fail."""
    visit(page, FLASH)
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    fonts = {}
    for selector in ("h1", ".prose p"):
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        for font in cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]:
            fonts[font["familyName"]] = fonts.get(font["familyName"], 0) + font["glyphCount"]
    assert any(CJK_FONT.search(name) for name in fonts), (
        f"Chinese text is drawn with {fonts}: no CJK font; install fonts-noto-cjk "
        "(make browser-deps)"
    )
    # Simplified Chinese shapes, not the Japanese or Traditional forms of the same characters
    # (the font stack and lang="zh-Hans" choose them).
    wrong = [name for name in fonts if OTHER_HAN_FORMS.search(name)]
    assert not wrong, f"Chinese text is drawn with {wrong} (all fonts: {fonts})"
