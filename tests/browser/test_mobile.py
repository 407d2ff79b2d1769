"""On a 360 px phone nothing scrolls sideways but wide code, tables and math, inside themselves."""

import pytest

from tests.browser.site import FLASH, visit

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 740}

# Pages with the widest content of the demo: long code lines, a 5-column table, display math.
MOBILE_PAGES = [
    "/",
    FLASH,
    "/notes/parallel-computing-1/",
    "/notes/cuda-warp-scheduling/",
    "/en/notes/decode-gemv-worklog/",
    # The search page's header row holds a search field and button beside the other tools.
    "/en/search/?q=warp",
    "/search/?q=warp",
]

WIDE_BLOCKS = """() => {
  const width = document.documentElement.clientWidth;
  const scrolls = el => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
  const describe = el => el.tagName.toLowerCase() + (el.className ? "." +
      String(el.className).trim().split(/\\s+/).join(".") : "");
  const problems = [];
  const blocks = document.querySelectorAll(
    ".prose pre, .prose table, .prose math[display='block'], .prose .math-display");
  for (const el of blocks) {
    // The block itself or an ancestor inside the prose must be the scroller that keeps it in.
    let scroller = null;
    for (let node = el; node && !node.classList.contains("prose"); node = node.parentElement) {
      if (scrolls(node)) { scroller = node; break; }
    }
    const box = (scroller || el).getBoundingClientRect();
    if (box.left < -1 || box.right > width + 1) {
      problems.push(`${describe(el)} spans ${Math.round(box.left)}..${Math.round(box.right)}px`
                    + ` of a ${width}px viewport` + (scroller ? "" : " and has no scroller"));
    } else if (!scroller && el.scrollWidth > el.clientWidth + 1) {
      problems.push(`${describe(el)} is cut off: ${el.scrollWidth}px in ${el.clientWidth}px`);
    }
  }
  return problems;
}"""

WIDEST = """() => [...document.querySelectorAll("body *")]
  .map(el => [el, el.getBoundingClientRect()])
  .filter(([el, box]) => box.width > 0 && box.right > document.documentElement.clientWidth + 1)
  .slice(0, 5)
  .map(([el, box]) => `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}` +
       `${el.className && typeof el.className === "string" ? "." + el.className.trim()
          .split(/\\s+/).join(".") : ""} right edge ${Math.round(box.right)}px`)"""


def test_no_horizontal_scroll_on_a_phone(open_page, scheme):
    page = open_page(
        color_scheme=scheme, viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    failures = []
    for path in MOBILE_PAGES:
        visit(page, path)
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > PHONE["width"]:
            failures.append(f"{path}: page is {width}px wide; widest: {page.evaluate(WIDEST)}")
        failures += [f"{path}: {problem}" for problem in page.evaluate(WIDE_BLOCKS)]
    assert not failures, "sideways scrolling on a 360px phone:\n" + "\n".join(failures)


SCROLLERS = """() => {
  const scrolls = el => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
  const found = [];
  for (const el of document.querySelectorAll(".prose pre, .prose table")) {
    let node = el;
    while (node && !node.classList.contains("prose") && !scrolls(node)) node = node.parentElement;
    if (!node || node.classList.contains("prose") || node.scrollWidth <= node.clientWidth + 1) {
      continue;  // fits, or no scroller (the first test reports that)
    }
    const before = node.scrollLeft;
    node.scrollLeft = before + 40;
    found.push({
      kind: el.tagName.toLowerCase(),
      scrolled: node.scrollLeft > before,
      keyboard: node.tabIndex >= 0,
      html: node.outerHTML.slice(0, 80),
    });
    node.scrollLeft = before;
  }
  return found;
}"""


@pytest.mark.parametrize(
    ("path", "kind"),
    [("/notes/cuda-warp-scheduling/", "pre"), ("/notes/parallel-computing-1/", "table")],
    ids=["code", "table"],
)
def test_wide_blocks_scroll_inside_and_take_keyboard_focus(open_page, path, kind, scheme):
    page = open_page(
        color_scheme=scheme, viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
    )
    visit(page, path)
    found = [block for block in page.evaluate(SCROLLERS) if block["kind"] == kind]
    if not found:
        pytest.fail(f"no {kind} overflows at 360px on {path}: the demo lost its wide {kind}?")
    stuck = [block["html"] for block in found if not block["scrolled"]]
    assert not stuck, f"wide blocks that do not scroll sideways: {stuck}"
    # Keyboard users must be able to reach a scrolling block to scroll it (site.js adds
    # tabindex="0" to the blocks that overflow).
    unreachable = [block["html"] for block in found if not block["keyboard"]]
    assert not unreachable, f"sideways-scrolling blocks without keyboard access: {unreachable}"


IPHONE = {"width": 390, "height": 844}

HEADER_ROWS = """() => {
  // Rows: bands of the header's parts that do not overlap vertically.
  const header = document.querySelector(".site-header .header-inner");
  const boxes = [...header.children].map(child => child.getBoundingClientRect())
    .filter(box => box.height > 0).sort((a, b) => a.top - b.top);
  let rows = 0, bottom = -Infinity;
  for (const box of boxes) {
    if (box.top >= bottom - 1) rows += 1;
    bottom = Math.max(bottom, box.bottom);
  }
  return {height: document.querySelector(".site-header").getBoundingClientRect().height, rows};
}"""

ABOVE_THE_FOLD = """() => {
  const first = document.querySelector(".note-item");
  const bottom = el => el.getBoundingClientRect().bottom;
  return {title: bottom(first.querySelector(".note-item-title")),
          excerpt: bottom(first.querySelector(".excerpt")), fold: window.innerHeight};
}"""


@pytest.mark.parametrize("prefix", ["", "/en"], ids=["zh", "en"])
def test_the_phone_header_is_two_rows_and_the_first_note_is_above_the_fold(
    open_page, prefix, scheme
):
    page = open_page(
        color_scheme=scheme, viewport=IPHONE, device_scale_factor=3, is_mobile=True, has_touch=True
    )
    visit(page, prefix + "/")
    header = page.evaluate(HEADER_ROWS)
    assert header["rows"] <= 2 and header["height"] <= 100, header
    fold = page.evaluate(ABOVE_THE_FOLD)
    assert fold["title"] <= fold["fold"] and fold["excerpt"] <= fold["fold"], fold
    # Search is one tap away, and its page has the search box.
    page.locator(".search-link").click()
    page.wait_for_url(f"**{prefix}/search/")
    assert page.locator(".search-form input[type=search]").is_visible()
