"""A feed reader that renders MathML (a browser engine) shows feed formulas as math, exactly as
the page does: the text-reader marks (blog.rendering.math_text) take no room and show nothing.
"""

from pathlib import Path

import pytest

import blog.ops.demo
from blog.rendering import render_markdown
from blog.rendering.feed_html import feed_html

pytestmark = pytest.mark.browser

FLASHATTENTION = Path(blog.ops.demo.__file__).parent / "notes" / "flashattention-tiling.md"

BOXES = """() => [...document.querySelectorAll("math")].map(math => {
  const box = math.getBoundingClientRect();
  return {alt: math.getAttribute("alttext") || math.querySelector("annotation").textContent,
          width: box.width, height: box.height};
})"""
POWER = """() => {
  const math = [...document.querySelectorAll("math")]
    .find(m => (m.getAttribute("alttext") || "") === "6.7 \\\\times 10^7");
  const [base, power] = [...math.querySelectorAll("msup mn")].map(n => n.getBoundingClientRect());
  return {raised: power.bottom < base.bottom - 2, smaller: power.height < base.height};
}"""
VISIBLE_MARKS = """() => [...document.querySelectorAll('annotation[encoding="text/plain"]')]
  .filter(mark => mark.getClientRects().length > 0).length"""


def shown(browser, body):
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    page = context.new_page()
    page.set_content(f'<!DOCTYPE html><html lang="zh-Hans"><meta charset="utf-8"><body>{body}')
    return context, page


def test_feed_formulas_render_like_the_page(browser):
    html = render_markdown(FLASHATTENTION.read_text(encoding="utf-8").split("\n---\n", 1)[1]).html
    page_context, on_page = shown(browser, html)
    feed_context, in_feed = shown(browser, feed_html(html, "https://blog.example/notes/x/"))
    try:
        page_boxes, feed_boxes = on_page.evaluate(BOXES), in_feed.evaluate(BOXES)
        assert len(feed_boxes) == len(page_boxes) > 40
        for page_box, feed_box in zip(page_boxes, feed_boxes, strict=True):
            assert feed_box["alt"] == page_box["alt"]
            assert abs(feed_box["width"] - page_box["width"]) < 0.5, feed_box["alt"]
            assert abs(feed_box["height"] - page_box["height"]) < 0.5, feed_box["alt"]
        assert in_feed.evaluate(VISIBLE_MARKS) == 0
        assert in_feed.evaluate(POWER) == {"raised": True, "smaller": True}
    finally:
        page_context.close()
        feed_context.close()
