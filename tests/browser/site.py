"""What the browser tests know about the demo blog (blog/ops/demo/) and small page helpers."""

import re

from playwright.sync_api import expect

# The demo note with code, display and inline math, a [TOC] and a place in a series
# ("GPU 笔记", part 2 of 4: the fifth part is scheduled, so never shown).
FLASH = "/notes/flashattention-tiling/"
FLASH_TITLE = "FlashAttention 的分块与 online softmax"
GPU_SERIES = "/series/gpu-notes/"
GPU_SERIES_PARTS = [  # in series order, published parts only
    "/notes/cuda-warp-scheduling/",
    "/notes/flashattention-tiling/",
    "/notes/async-scheduling-inference-engine/",
    "/notes/decode-gemv-worklog/",
]
SCHEDULED = "/notes/nsys-trace-sql/"

# Every kind of public page, by a name for reports. The same paths under /en/ are the English
# interface. Together they cover code, math, tables, footnotes, TOCs, series boxes, a link to a
# translation, a translated article's source box, lists, archives and search results.
PAGES = {
    "home": "/",
    "note with code, math, TOC, series": FLASH,
    "note with math, table, TOC": "/notes/parallel-computing-1/",
    "note with table, code, translation": "/notes/cuda-warp-scheduling/",
    "translated article": "/notes/decode-gemv-worklog/",
    "tag index": "/tags/",
    "tag page": "/tags/gpu/",
    "series index": "/series/",
    "series page": GPU_SERIES,
    "archive": "/archive/",
    "archive year": "/archive/2025/",
    "archive month": "/archive/2025/8/",
    "CMS page (about)": "/pages/about/",
    "search results": "/search/?q=GPU",
    "glossary": "/glossary/",
}


def in_language(path, language):
    """``/notes/x/`` in the interface ``language`` ("zh-hans" is unprefixed)."""
    return path if language == "zh-hans" else f"/{language}{path}"


def visit(page, path):
    """Open ``path``; it must answer 200."""
    response = page.goto(path)
    assert response is not None, f"no response for {path}"
    assert response.status == 200, f"{path} answered {response.status}"
    return response


def path_of(page):
    """The current URL's path and query, without the live server's origin."""
    return re.sub(r"^https?://[^/]+", "", page.url)


def expect_path(page, path):
    expect(page).to_have_url(re.compile(r"^https?://[^/]+" + re.escape(path) + r"(#.*)?$"))


def effective_background(page):
    """The colour a reader sees behind the text: body's background, or html's when body's is
    transparent (either may carry the theme)."""
    return page.evaluate(
        """() => {
          const clear = c => c === "transparent" || /^rgba\\(.*,\\s*0\\)$/.test(c);
          const body = getComputedStyle(document.body).backgroundColor;
          if (!clear(body)) return body;
          return getComputedStyle(document.documentElement).backgroundColor;
        }"""
    )


def luminance(css_colour):
    """Relative luminance (0 black … 1 white) of an ``rgb()``/``rgba()`` colour."""
    numbers = [float(n) for n in re.findall(r"[\d.]+", css_colour)[:3]]
    assert len(numbers) == 3, f"not an rgb colour: {css_colour!r}"

    def channel(value):
        value /= 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in numbers)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def background_behind(locator):
    """The colour a reader sees behind an element: its own background, or that of its nearest
    ancestor whose background is not transparent (html's at the end, as
    :func:`effective_background`)."""
    return locator.evaluate(
        """element => {
          const clear = c => c === "transparent" || /^rgba\\(.*,\\s*0\\)$/.test(c);
          for (let node = element; node; node = node.parentElement) {
            const colour = getComputedStyle(node).backgroundColor;
            if (!clear(colour)) return colour;
          }
          return getComputedStyle(document.documentElement).backgroundColor;
        }"""
    )


def contrast_ratio(foreground, background):
    """WCAG's contrast ratio (1 … 21) of two opaque ``rgb()`` colours."""
    lighter, darker = sorted((luminance(foreground), luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)
