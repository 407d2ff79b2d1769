"""The language switcher: the same page in the other interface language, content untouched."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.site import FLASH, FLASH_TITLE, expect_path, visit

pytestmark = pytest.mark.browser


def test_switch_to_english_and_back(open_page, scheme):
    page = open_page(color_scheme=scheme)
    visit(page, "/")
    html = page.locator("html")
    expect(html).to_have_attribute("lang", "zh-Hans")
    expect(page.get_by_role("link", name="阅读笔记").first).to_be_visible()

    # The switcher marks the current language and offers English in English.
    switch = page.locator(".lang-switch")
    expect(switch.locator('a[hreflang="zh-Hans"]')).to_have_attribute("aria-current", "page")
    english = switch.locator('a[hreflang="en"]')
    expect(english).to_have_attribute("lang", "en")
    english.click()

    expect_path(page, "/en/")
    expect(html).to_have_attribute("lang", "en")
    expect(page.get_by_role("link", name="Read note").first).to_be_visible()
    expect(page.get_by_role("link", name="阅读笔记")).to_have_count(0)
    expect(switch.locator('a[hreflang="en"]')).to_have_attribute("aria-current", "page")
    # Navigation stays in English.
    nav_paths = page.locator("header nav:not(.lang-switch) a").evaluate_all(
        "links => links.map(a => new URL(a.href).pathname)"
    )
    assert nav_paths, "no navigation links"
    stray = [p for p in nav_paths if not p.startswith("/en/")]
    assert not stray, f"navigation leaves the English interface: {stray}"

    # A Chinese note in the English interface: English around it, Chinese content marked so.
    item = page.locator("article").filter(has=page.get_by_role("heading", name=FLASH_TITLE))
    item.get_by_role("link", name="Read note").click()
    expect_path(page, "/en" + FLASH)
    expect(html).to_have_attribute("lang", "en")
    expect(page.get_by_role("heading", level=1)).to_have_attribute("lang", "zh-Hans")
    expect(page.locator(".prose")).to_have_attribute("lang", "zh-Hans")
    expect(page.locator(".series-box")).to_contain_text(re.compile(r"Part 2 of 4"))
    expect(page.locator(".lang-switch a[hreflang='zh-Hans']")).to_have_attribute(
        "href", re.compile(re.escape(FLASH) + "$")
    )

    # And back to Chinese, on the same note.
    page.locator(".lang-switch a[hreflang='zh-Hans']").click()
    expect_path(page, FLASH)
    expect(html).to_have_attribute("lang", "zh-Hans")
    expect(page.locator(".prose")).to_have_attribute("lang", "zh-Hans")
    expect(page.locator(".series-box")).to_contain_text("第 2 部分，共 4 部分")
    assert not page.problems, f"problems while browsing:\n{page.problems}"


def test_english_note_is_marked_english_in_the_chinese_interface(open_page, scheme):
    page = open_page(color_scheme=scheme)
    visit(page, "/notes/cuda-warp-scheduling-en/")
    expect(page.locator("html")).to_have_attribute("lang", "zh-Hans")
    expect(page.locator(".prose")).to_have_attribute("lang", "en")
    expect(page.get_by_role("heading", level=1)).to_have_attribute("lang", "en")
    # Its translation is linked, in its own language.
    link = page.locator('main a[href$="/notes/cuda-warp-scheduling/"][hreflang="zh-Hans"]')
    expect(link.first).to_be_visible()
