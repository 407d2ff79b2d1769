"""The admin's Markdown editor in Debian's chromium: the preview beside the editor (below on a
narrow screen) is the public page, the toolbar and its shortcuts edit the text, a dropped image
is inserted on its own paragraph (a refused file shows the server's reason and inserts
nothing), and text left unsaved is offered back from the browser's storage.

Nothing here saves a note: the demo data stays as the other browser tests expect it. The one
write is the author's account and session, made once for the module.
"""

import io
import re

import pytest
from PIL import Image
from playwright.sync_api import expect

from blog.models import Note
from tests.browser.admin_session import author_session_cookie
from tests.browser.site import FLASH

pytestmark = pytest.mark.browser

NARROW = {"width": 800, "height": 900}


def png_bytes():
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), "teal").save(buffer, "PNG")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def session_cookie(demo):
    """A logged-in author's session cookie (no login form: nothing for login throttling)."""
    return author_session_cookie(demo)


@pytest.fixture
def author_page(open_page, session_cookie):
    def _open(**options):
        options.setdefault("locale", "zh-CN")
        options.setdefault("extra_http_headers", {"Accept-Language": "zh-Hans"})
        page = open_page(**options)
        page.context.add_cookies([session_cookie])
        return page

    return _open


def note_change_url():
    note = Note.objects.get(slug=FLASH.strip("/").split("/")[-1])
    return f"/admin/blog/note/{note.pk}/change/"


def wait_for_preview(page):
    frame = page.frame_locator("iframe.editor-preview")
    expect(frame.locator(".prose h2").first).to_be_visible()
    return frame


# The article's HTML without the margin's copies of its footnotes, which site.js places for the
# width it has (a 1280 px window's page has them, the narrower preview pane not).
WITHOUT_SIDENOTES = """el => {
  const copy = el.cloneNode(true);
  copy.querySelectorAll("aside.sidenote").forEach(aside => aside.remove());
  return copy.innerHTML;
}"""


def test_the_preview_sits_beside_the_editor_and_is_the_public_page(author_page):
    page = author_page()
    page.goto(note_change_url(), wait_until="domcontentloaded")
    frame = wait_for_preview(page)
    editor = page.locator("textarea#id_body").bounding_box()
    preview = page.locator("iframe.editor-preview").bounding_box()
    assert preview["x"] >= editor["x"] + editor["width"]  # beside
    assert abs(preview["y"] - editor["y"]) < 5 and preview["width"] > 300

    # The same HTML as the public article, after the same scripts (copy buttons) ran.
    expect(frame.locator(".prose .copy-code").first).to_be_visible()
    preview_html = frame.locator(".prose").evaluate(WITHOUT_SIDENOTES)
    public = author_page()
    public.goto(FLASH)
    expect(public.locator(".prose .copy-code").first).to_be_visible()
    public_html = public.locator(".prose").evaluate(WITHOUT_SIDENOTES)

    # site.js makes code wider than its box focusable (tabindex): the panes are narrower.
    def same(html):
        return re.sub(r' tabindex="0"', "", html).strip()

    assert same(preview_html) == same(public_html)

    # The same stylesheet: code palette, display math centred, heading anchors shown.
    def looks(target):
        return target.locator(".prose").evaluate(
            """el => {
              const s = (q, p) => { const n = el.querySelector(q);
                                    return n ? getComputedStyle(n)[p] : null; };
              return [s('.highlight pre', 'backgroundColor'), s('.highlight .k', 'color'),
                      s('.math-display', 'textAlign'), s('.headerlink', 'display'),
                      s('p', 'fontFamily')];
            }"""
        )

    assert looks(frame) == looks(public)
    assert looks(frame)[2] == "center"
    # The admin's vendored scripts name source maps that are not shipped: chromium logs a
    # "Failed to load resource" for them with no response to the page. Real failures show as
    # "HTTP 4xx for …" or as uncaught errors.
    assert [p for p in page.problems if "Failed to load resource" not in p] == []
    assert public.problems == []


def test_the_preview_goes_below_on_a_narrow_screen_and_scrolls_with_the_editor(author_page):
    page = author_page(viewport=NARROW)
    page.goto(note_change_url(), wait_until="domcontentloaded")
    wait_for_preview(page)
    editor = page.locator("textarea#id_body").bounding_box()
    preview = page.locator("iframe.editor-preview").bounding_box()
    assert preview["y"] >= editor["y"] + editor["height"]  # below

    page.locator("textarea#id_body").evaluate("el => { el.scrollTop = el.scrollHeight; }")
    frame = page.frame(url=re.compile(r"/editor/frame/"))
    page.wait_for_function(
        "() => document.querySelector('iframe.editor-preview').contentWindow.scrollY > 0"
    )
    assert frame.evaluate("window.scrollY") > 0


def test_the_toolbar_is_translated_and_its_shortcuts_edit_the_text(author_page):
    page = author_page()
    page.goto("/admin/blog/note/add/", wait_until="domcontentloaded")
    toolbar = page.get_by_role("toolbar")
    expect(toolbar.get_by_role("button", name="粗体")).to_be_visible()
    area = page.locator("textarea#id_body")
    area.fill("重要")
    area.evaluate("el => el.setSelectionRange(0, el.value.length)")
    area.press("Control+b")
    expect(area).to_have_value("**重要**")
    area.press("End")
    area.press("Control+Alt+KeyO")  # [TOC] on its own paragraph
    expect(area).to_have_value("**重要**\n\n[TOC]\n")
    toolbar.get_by_role("button", name="表格").click()
    assert "| --- | --- |" in area.input_value()
    # The selection is the first column's header, ready to be typed over.
    assert area.evaluate("el => el.value.slice(el.selectionStart, el.selectionEnd)") == "列"
    toolbar.get_by_role("button", name="脚注").click()
    assert re.search(r"\[\^1\][\s\S]*\n\n\[\^1\]: 脚注内容$", area.input_value())
    # Keyboard only: a focused button works with Enter (here on the selected footnote text).
    toolbar.get_by_role("button", name="粗体").focus()
    page.keyboard.press("Enter")
    assert area.input_value().endswith("[^1]: **脚注内容**")


def drop(page, name, mime, data):
    page.locator("textarea#id_body").evaluate(
        """(el, [name, mime, bytes]) => {
            const file = new File([new Uint8Array(bytes)], name, {type: mime});
            const transfer = new DataTransfer();
            transfer.items.add(file);
            el.dispatchEvent(new DragEvent('drop', {dataTransfer: transfer, bubbles: true,
                                                    cancelable: true}));
        }""",
        [name, mime, list(data)],
    )


def test_a_refused_file_shows_the_server_s_reason_and_inserts_nothing(author_page):
    page = author_page()
    page.goto("/admin/blog/note/add/", wait_until="domcontentloaded")
    area = page.locator("textarea#id_body")
    area.fill("第一段。")
    drop(page, "evil.png", "image/png", b"<svg onload=alert(1)>")
    message = page.locator(".biji-editor .editor-message")
    expect(message).to_be_visible()
    expect(message).to_have_text("该文件不是可读取的图片。", timeout=10_000)
    expect(area).to_have_value("第一段。")


def test_a_dropped_image_is_a_paragraph_of_its_own_with_the_alt_text_selected(
    author_page, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path / "media"
    page = author_page()
    page.goto("/admin/blog/note/add/", wait_until="domcontentloaded")
    area = page.locator("textarea#id_body")
    area.fill("第一段。第二句。")
    area.evaluate("el => el.setSelectionRange(4, 4)")
    drop(page, "photo.png", "image/png", png_bytes())
    expect(area).to_have_value(
        re.compile(r"^第一段。\n\n!\[描述这张图片\]\(/media/uploads/[^)]+\.png\)\n\n第二句。$"),
        timeout=10_000,
    )
    selected = area.evaluate("el => el.value.slice(el.selectionStart, el.selectionEnd)")
    assert selected == "描述这张图片"
    expect(page.locator(".biji-editor .editor-message")).to_be_hidden()


def test_unsaved_text_is_offered_back_after_the_tab_closes(author_page):
    page = author_page()
    url = note_change_url()
    page.goto(url, wait_until="domcontentloaded")
    wait_for_preview(page)
    area = page.locator("textarea#id_body")
    original = area.input_value()
    area.press("Control+End")
    area.type("\n\n还没保存的一段。")
    page.wait_for_timeout(800)  # the autosave's pause after typing

    again = page.context.new_page()  # same browser profile, the first tab closed
    page.close()
    again.goto(url, wait_until="domcontentloaded")
    banner = again.locator(".editor-autosave")
    expect(banner).to_be_visible()
    expect(again.locator("textarea#id_body")).to_have_value(original)
    banner.get_by_role("button", name="恢复").click()
    expect(again.locator("textarea#id_body")).to_have_value(original + "\n\n还没保存的一段。")

    # Discarding forgets it: the next visit offers nothing.
    third = again.context.new_page()
    third.goto(url, wait_until="domcontentloaded")
    third.locator(".editor-autosave").get_by_role("button", name="丢弃").click()
    fourth = again.context.new_page()
    fourth.goto(url, wait_until="domcontentloaded")
    wait_for_preview(fourth)
    expect(fourth.locator(".editor-autosave")).to_be_hidden()
