"""Every page works without JavaScript: reading, following links and searching."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.site import FLASH, FLASH_TITLE, expect_path, visit

pytestmark = pytest.mark.browser


def stylesheet_applied(page):
    """The site's stylesheet is applied (read without page scripts: the body's font)."""
    return page.locator("body").evaluate("b => getComputedStyle(b).fontFamily")


def test_reading_and_searching_without_javascript(open_page):
    page = open_page(java_script_enabled=False, color_scheme="light")
    assert page.evaluate("1 + 1") == 2  # Playwright's own evaluation still works

    visit(page, "/")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    assert "system-ui" in stylesheet_applied(page) or "Noto" in stylesheet_applied(page)
    items = page.locator("main article")
    assert items.count() >= 5, "the home page lists no notes without JavaScript"
    # The enhancement-only controls stay out of the way.
    expect(page.locator("#theme-toggle")).to_be_hidden()
    expect(page.locator("html")).not_to_have_attribute("data-theme", re.compile("."))

    # A note, reached by its link: the body, its math and its code are all there.
    item = page.locator("article").filter(has=page.get_by_role("heading", name=FLASH_TITLE))
    item.get_by_role("link", name="阅读笔记").click()
    expect_path(page, FLASH)
    expect(page.get_by_role("heading", level=1)).to_have_text(FLASH_TITLE)
    prose = page.locator(".prose")
    expect(prose).to_contain_text("online softmax")
    expect(prose.locator("math").first).to_be_visible()
    expect(prose.locator("pre").filter(has_text="flash_attention_ref")).to_be_visible()
    expect(page.locator("button.copy-code")).to_have_count(0)
    expect(page.locator(".series-box")).to_be_visible()

    # Search through the header's form (a plain GET form).
    box = page.get_by_role("searchbox")
    expect(box).to_have_count(1)
    box.fill("FlashAttention")
    box.press("Enter")
    expect(page).to_have_url(re.compile(r"/search/\?(.*&)?q=FlashAttention"))
    results = page.locator("main")
    expect(results.get_by_role("link", name=FLASH_TITLE).first).to_be_visible()
    expect(page.get_by_role("searchbox")).to_have_value("FlashAttention")
    assert not page.problems, f"problems:\n{page.problems}"


def test_chinese_search_without_javascript(open_page):
    page = open_page(java_script_enabled=False)
    visit(page, "/search/?q=" + "调度")
    links = page.locator("main a[href]").evaluate_all(
        "links => links.map(a => new URL(a.href).pathname)"
    )
    assert "/notes/cuda-warp-scheduling/" in links, f"调度 finds {links}"
