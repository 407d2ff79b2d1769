"""The copy button on code blocks puts exactly the code on the clipboard and says so."""

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from blog.ops.demo import loader
from tests.browser.site import FLASH, visit

pytestmark = pytest.mark.browser

COPIED = re.compile(r"已复制|复制成功|Copied", re.IGNORECASE)


def first_fenced_block(markdown):
    match = re.search(r"^```[^\n]*\n(.*?)^```", markdown, re.DOTALL | re.MULTILINE)
    assert match, "the demo note has no fenced code block"
    return match[1]


@pytest.mark.parametrize("prefix", ["", "/en"], ids=["zh", "en"])
def test_copy_code_block(open_page, demo, prefix, scheme):
    page = open_page(color_scheme=scheme)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=demo.url)
    visit(page, prefix + FLASH)

    source = first_fenced_block(
        (Path(loader.DEMO_DIR) / "notes" / "flashattention-tiling.md").read_text("utf-8")
    )
    block = page.locator(".prose pre").filter(has_text="flash_attention_ref").first
    expect(block).to_be_visible()
    # The button belongs to this block: the nearest ancestor holding a button holds the pre.
    holder = block.locator("xpath=ancestor::*[.//button[contains(@class,'copy-code')]][1]")
    button = holder.locator("button.copy-code")
    expect(button).to_have_count(1)
    expect(button).to_be_visible()
    label_before = button.inner_text().strip()
    assert label_before, "the copy button has no visible label"
    assert not COPIED.search(label_before)

    page.evaluate("navigator.clipboard.writeText('')")
    button.click()
    page.wait_for_function("async () => (await navigator.clipboard.readText()).length > 0")
    copied = page.evaluate("navigator.clipboard.readText()")
    code = block.locator("code")
    shown = code.first.inner_text() if code.count() else block.inner_text()
    assert copied.rstrip("\n") == source.rstrip("\n"), "the clipboard differs from the code"
    assert copied.rstrip("\n") == shown.rstrip("\n"), "the clipboard differs from the page"
    assert "Copy" not in copied and "复制" not in copied, "the button label was copied too"

    # The button says the code was copied, and a live region tells screen reader users.
    expected = "已复制" if prefix == "" else "Copied"
    expect(page.locator("[role='status'][aria-live='polite']")).to_have_text(expected)
    expect(button).to_contain_text(expected)
    assert not page.problems, f"problems:\n{page.problems}"


@pytest.mark.parametrize("prefix", ["", "/en"], ids=["zh", "en"])
def test_a_refused_clipboard_is_said_not_hidden(open_page, demo, prefix, scheme):
    page = open_page(color_scheme=scheme)
    # A browser that refuses both ways of copying (no permission, no execCommand).
    page.add_init_script(
        "Object.defineProperty(navigator, 'clipboard', {value: {writeText: () =>"
        " Promise.reject(new Error('denied'))}});"
        "document.execCommand = () => false;"
    )
    visit(page, prefix + FLASH)
    button = page.locator("button.copy-code").first
    button.click()
    refused = "浏览器拒绝" if prefix == "" else "refused"
    expect(page.locator("[role='status'][aria-live='polite']")).to_contain_text(refused)
    expect(button).to_contain_text(refused)
