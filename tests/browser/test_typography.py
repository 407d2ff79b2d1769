"""What the reader's eyes get: Latin text in a face that matches the Chinese one."""

import pytest
from playwright.sync_api import expect

from tests.browser.site import FLASH, visit

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("prefix", ["", "/en"], ids=["zh", "en"])
def test_latin_text_is_not_set_in_dejavu_next_to_noto_cjk(open_page, prefix, scheme):
    page = open_page(color_scheme=scheme)
    visit(page, prefix + FLASH)
    session = page.context.new_cdp_session(page)
    session.send("DOM.enable")
    session.send("CSS.enable")
    root = session.send("DOM.getDocument")["root"]["nodeId"]
    fonts = set()
    for selector in (".prose p", ".note-item-title, h1", ".site-nav a"):
        node = session.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        used = session.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        fonts |= {font["familyName"] for font in used}
    assert fonts and not any("DejaVu" in name for name in fonts), fonts


CENTRING = """() => [...document.querySelectorAll('.prose math[display="block"]')].map(math => {
  const box = math.getBoundingClientRect();
  const inner = [...math.querySelectorAll("mi, mn, mo, mtext")]
    .map(token => token.getBoundingClientRect()).filter(r => r.width > 0);
  const left = Math.min(...inner.map(r => r.left)), right = Math.max(...inner.map(r => r.right));
  return {offset: Math.abs((left + right) / 2 - (box.left + box.right) / 2),
          narrower: right - left < box.width - 20};
})"""


@pytest.mark.parametrize("prefix", ["", "/en"], ids=["zh", "en"])
def test_display_math_is_centred(open_page, prefix, scheme):
    page = open_page(color_scheme=scheme)
    visit(page, prefix + FLASH)
    formulas = [f for f in page.evaluate(CENTRING) if f["narrower"]]
    assert formulas, "no display formula narrower than the column on the note"
    off = [f["offset"] for f in formulas if f["offset"] > 2]
    assert not off, f"display formulas off centre by {off} px"


@pytest.mark.parametrize("prefix", ["", "/en"], ids=["zh", "en"])
def test_the_toc_box_is_a_titled_navigation_landmark(open_page, prefix, scheme):
    """The note's own [TOC] box is announced like the automatic one: a navigation landmark
    named by its visible title in the note's language (this note is Chinese: "目录")."""
    page = open_page(color_scheme=scheme)
    visit(page, prefix + FLASH)
    toc = page.locator(".prose").get_by_role("navigation", name="目录")
    expect(toc).to_be_visible()
    expect(toc.get_by_role("heading", name="目录")).to_be_visible()
    first = toc.get_by_role("link").first
    target = first.get_attribute("href")
    first.click()
    expect(page.locator(target)).to_be_in_viewport()


# The width of a rendered paragraph (an em is 1) as the page sets it, and with no spacing
# between Chinese and Latin text at all (neither text-autospace nor the renderer's margins).
WIDTHS = r"""(html) => {
  const prose = document.querySelector(".prose");
  const measure = (tight) => {
    const box = document.createElement("div");
    box.innerHTML = html;
    prose.append(box);
    const p = box.querySelector("p"), line = document.createElement("span");
    line.append(...p.childNodes);
    p.append(line);
    if (tight) {
      p.style.textAutospace = "no-autospace";
      p.querySelectorAll(".autospace").forEach(span => { span.style.margin = "0"; });
    }
    const width = line.getBoundingClientRect().width / parseFloat(getComputedStyle(p).fontSize);
    box.remove();
    return width;
  };
  return {spaced: measure(false), tight: measure(true)};
}"""


@pytest.mark.parametrize("prefix", ["", "/en"], ids=["zh", "en"])
def test_chinese_and_latin_text_are_spaced_apart(open_page, prefix, scheme):
    """Chinese written against Latin with no space ("调度Warp再看") is set a little apart at
    each meeting, as Chinese typesetting has it (CSS text-autospace, or the renderer's margins
    where a browser lacks it), without a character being added to the text."""
    from blog.rendering import render_markdown

    page = open_page(color_scheme=scheme)
    visit(page, prefix + FLASH)
    rendered = render_markdown("每个调度Warp再看。")
    assert "调度Warp再看" in rendered.plain_text
    widths = page.evaluate(WIDTHS, rendered.html)
    # Two meetings, an eighth of an em each.
    assert widths["spaced"] - widths["tight"] >= 0.2, widths


# Every inline formula followed by punctuation in the note: whether the punctuation sits on
# the formula's line, across a range of column widths.
PUNCTUATION_LINES = r"""() => [...document.querySelectorAll(".prose .math-inline")].flatMap(box => {
  const math = box.querySelector("math"), after = box.lastChild;
  if (!math || !after || after.nodeType !== Node.TEXT_NODE || !after.data.trim()) return [];
  const range = document.createRange();
  range.setStart(after, 0);
  range.setEnd(after, 1);
  const mark = range.getBoundingClientRect(), formula = math.getBoundingClientRect();
  return [{mark: after.data, sameLine: mark.top < formula.bottom && mark.bottom > formula.top}];
})"""


@pytest.mark.parametrize("prefix", ["", "/en"], ids=["zh", "en"])
def test_punctuation_after_inline_math_never_starts_a_line(open_page, prefix, scheme):
    page = open_page(color_scheme=scheme, viewport={"width": 390, "height": 800})
    visit(page, prefix + FLASH)
    checked = 0
    for width in range(300, 391, 7):  # the line breaks fall differently at each width
        page.set_viewport_size({"width": width, "height": 800})
        marks = page.evaluate(PUNCTUATION_LINES)
        assert all(m["sameLine"] for m in marks), (width, [m for m in marks if not m["sameLine"]])
        checked += len(marks)
    assert checked, "no inline formula followed by punctuation on the note"


# Gaps as the page sets them, in ems: between the end of inline code's text and the punctuation
# after it, and between a function's name and its bracket in a formula.
GAPS = r"""(html) => {
  const prose = document.querySelector(".prose");
  const box = document.createElement("div");
  box.innerHTML = html;
  prose.append(box);
  const em = parseFloat(getComputedStyle(box).fontSize);
  const rect = (node, start, end) => {
    const range = document.createRange();
    range.setStart(node, start);
    range.setEnd(node, end);
    return range.getBoundingClientRect();
  };
  const code = [...box.querySelectorAll("code")].map(code => {
    const text = code.firstChild, after = code.nextSibling;
    return (rect(after, 0, 1).left - rect(text, text.length - 1, text.length).right) / em;
  });
  const math = [...box.querySelectorAll("math mrow > :first-child")].map(name => {
    const bracket = name.nextElementSibling;
    return (bracket.getBoundingClientRect().left - name.getBoundingClientRect().right) / em;
  });
  box.remove();
  return {code, math};
}"""


def test_punctuation_closes_onto_code_and_brackets_onto_function_names(open_page):
    from blog.rendering import render_markdown

    page = open_page()
    visit(page, "/en" + FLASH)
    text = "`cp.async`: one copy. 使用 `cp.async`：一个拷贝。"
    html = render_markdown(f"{text}\n\n$\\max(a, b)$ $\\operatorname{{softmax}}(x)$").html
    gaps = page.evaluate(GAPS, html)
    assert len(gaps["code"]) == 2 and len(gaps["math"]) == 2, gaps
    assert all(gap < 0.15 for gap in gaps["code"]), gaps  # was 0.35 em of the code's box
    assert all(gap < 0.1 for gap in gaps["math"]), gaps  # was an operator's space
