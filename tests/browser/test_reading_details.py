"""Small things a reader sees on the demo blog, in both interfaces: Chinese comments in code
set upright, heading permalinks that show when wanted, brackets that stretch around fractions,
the site introduced once in the reader's language, and a licence name kept on one line."""

import io
import re

import pytest
from PIL import Image, ImageChops

from blog.ops.demo.site import SITE
from tests.browser.site import FLASH, in_language, visit

pytestmark = pytest.mark.browser

LANGUAGES = pytest.mark.parametrize("language", ["zh-hans", "en"], ids=["zh", "en"])
PHONE = {"width": 390, "height": 844}
CODE_WITH_CHINESE_COMMENTS = "/notes/async-scheduling-inference-engine/"

# The Han text of the first comment in Chinese, set once as that comment and once as that
# comment made upright, at the same whole-pixel place in the same code block, in the same
# colour: the two draw the same pixels unless the comment's characters are slanted.
COMMENT_PROBE = r"""(upright) => {
  document.getElementById("probe")?.remove();
  const comment = [...document.querySelectorAll(".prose .highlight .c1, .prose .highlight .c")]
    .find(el => /[\u4e00-\u9fff]{3}/.test(el.textContent));
  if (!comment) return null;
  const span = document.createElement("span");
  span.id = "probe";
  span.className = comment.className;
  span.textContent = comment.textContent.match(/[\u4e00-\u9fff]+/)[0];
  span.style.cssText = "position: fixed; top: 20px; left: 20px; z-index: 100; padding: 4px 12px;" +
    "color: #000; background: #fff" + (upright ? "; font-style: normal" : "");
  comment.parentElement.append(span);
  return {han: span.textContent, fontStyle: getComputedStyle(span).fontStyle};
}"""


def probe_pixels(page, upright):
    probe = page.evaluate(COMMENT_PROBE, upright)
    assert probe, "no comment in Chinese in the note's code"
    shot = page.locator("#probe").screenshot(animations="disabled", caret="hide")
    return probe, Image.open(io.BytesIO(shot)).convert("L")


@LANGUAGES
def test_chinese_comments_in_code_are_not_slanted(page, language):
    """Chinese faces have no italic: an italic comment's Han characters must be drawn as they
    are, not as a slanted copy (the browser's "fake italic")."""
    visit(page, in_language(CODE_WITH_CHINESE_COMMENTS, language))
    probe, styled = probe_pixels(page, upright=False)
    _, upright = probe_pixels(page, upright=True)
    assert styled.size == upright.size
    assert ImageChops.difference(styled, upright).getbbox() is None, (
        f"“{probe['han']}” set {probe['fontStyle']} is drawn slanted"
    )


def opacity(locator):
    return float(locator.evaluate("el => getComputedStyle(el).opacity"))


FOCUSED_PERMALINK = """() => {
  const el = document.activeElement;
  return !!el && el.matches(".prose .headerlink");
}"""


@LANGUAGES
def test_heading_permalinks_show_on_hover_and_focus_only(open_page, language):
    page = open_page(color_scheme="light")
    visit(page, in_language(FLASH, language))
    page.mouse.move(1, 1)
    links = page.locator(".prose h2 > .headerlink")
    assert links.count() > 1
    assert [opacity(links.nth(i)) for i in range(links.count())] == [0.0] * links.count()

    heading = page.locator(".prose h2:has(> .headerlink)").nth(1)
    heading.hover()
    assert opacity(heading.locator(".headerlink")) == 1.0
    assert opacity(links.first) == 0.0

    page.mouse.move(1, 1)
    for _ in range(200):  # reachable from the keyboard, and shown when it has the focus
        page.keyboard.press("Tab")
        if page.evaluate(FOCUSED_PERMALINK):
            break
    else:
        pytest.fail("no heading permalink in the tab order")
    focused = page.locator(".prose .headerlink:focus")
    assert opacity(focused) == 1.0
    target = focused.get_attribute("href")
    page.keyboard.press("Enter")
    assert page.evaluate("decodeURIComponent(location.hash)") == target


FENCES = """() => [...document.querySelectorAll('.prose math[display="block"] mo[stretchy="true"]')]
  .map(mo => [mo, mo.parentElement.querySelector(":scope > mfrac")])
  .filter(([mo, frac]) => frac)
  .map(([mo, frac]) => ({fence: mo.textContent, height: mo.getBoundingClientRect().height,
                         fraction: frac.getBoundingClientRect().height}))"""


@LANGUAGES
def test_brackets_stretch_around_a_fraction(page, language):
    """softmax(QKᵀ/√d) in the FlashAttention note: the parentheses span the fraction."""
    visit(page, in_language(FLASH, language))
    fences = page.evaluate(FENCES)
    assert fences, "no stretchy bracket around a fraction on the note"
    short = [f for f in fences if f["height"] < 0.9 * f["fraction"]]
    assert not short, f"brackets shorter than the fraction they enclose: {short}"


def visible_with_text(page, text):
    return [el for el in page.get_by_text(text, exact=True).all() if el.is_visible()]


@LANGUAGES
@pytest.mark.parametrize("viewport", [PHONE, {"width": 1280, "height": 800}], ids=["390", "1280"])
def test_the_home_page_says_what_the_site_is_once_in_the_readers_language(
    open_page, language, viewport
):
    page = open_page(color_scheme="light", viewport=viewport)
    visit(page, in_language("/", language))
    tagline = SITE["tagline_zh" if language == "zh-hans" else "tagline_en"]
    other = SITE["tagline_en" if language == "zh-hans" else "tagline_zh"]
    assert len(visible_with_text(page, tagline)) == 1
    assert not visible_with_text(page, other)
    intro = page.locator(".page-intro").inner_text()
    assert SITE["description"][:12] not in intro and SITE["description"][-12:] not in intro


LINES_OF = """el => {
  const range = document.createRange();
  range.selectNodeContents(el);
  return new Set([...range.getClientRects()].filter(r => r.width > 1)
    .map(r => Math.round(r.top))).size;
}"""


@LANGUAGES
def test_the_licence_name_is_never_broken_across_lines(open_page, language):
    page = open_page(color_scheme="light", viewport=PHONE)
    visit(page, in_language("/", language))
    licence = page.locator(".site-footer a", has_text=re.compile(r"CC\sBY-NC-SA\s4\.0"))
    broken = []
    for width in [*range(280, 441, 4), 1280]:  # the line breaks fall differently at each width
        page.set_viewport_size({"width": width, "height": 800})
        if licence.evaluate(LINES_OF) != 1:
            broken.append(width)
    assert not broken, f"“CC BY-NC-SA 4.0” broken across lines at {broken} px"
