"""A note's stored HTML for feed readers: no "¶", absolute links, formulas readable as text once
(:mod:`.math_text`), terms without tooltips, one ``<img>`` of the original per picture."""

import re
from html import escape, unescape
from urllib.parse import urljoin, urlsplit

from blog.rendering.math_text import mark_math
from blog.rendering.pictures import without_pictures
from blog.rendering.sanitizer import rewrite_start_tags

_PERMALINK = re.compile(r'<a class="headerlink" href="[^"]*">¶</a>')
_MATH_WITH_TEX = re.compile(
    r'(<math\b[^>]*)>(.*?)<annotation encoding="application/x-tex">(.*?)</annotation>', re.DOTALL
)


# A formula, and the display-math <div> around it if there is one (the div holds nothing else).
_FORMULA = re.compile(
    r'(?P<div><div class="math-display">)?(?P<math><math\b[^>]*>.*?</math>)(?(div)</div>)',
    re.DOTALL,
)
_DISPLAY_BLOCK = re.compile(r'<math\b[^>]*\bdisplay="block"')
_TERM_TIP = '<span class="term-tip"'
_SPAN_TAG = re.compile(r"<span\b[^>]*>|</span>")


def _tex_as_alttext(match):
    start, content, tex = match.groups()
    return f'{start} alttext="{escape(unescape(tex), quote=True)}">{content}'


def _formula_for_feeds(match):
    math = _MATH_WITH_TEX.sub(_tex_as_alttext, mark_math(match.group("math")), count=1)
    if match.group("div"):
        return f'<p class="math-display">{math}</p>'
    if _DISPLAY_BLOCK.match(math):
        return f"<br>{math}<br>"
    return math


def _without_term_tips(html: str) -> str:
    """``html`` without the tooltips of its marked terms (spans in them included)."""
    out, position = [], 0
    while (start := html.find(_TERM_TIP, position)) != -1:
        depth, end = 0, None
        for tag in _SPAN_TAG.finditer(html, start):
            depth += -1 if tag.group().startswith("</") else 1
            if depth == 0:
                end = tag.end()
                break
        if end is None:  # never closed (not HTML the render step wrote): left as it is
            break
        out.append(html[position:start])
        position = end
    out.append(html[position:])
    return "".join(out)


def feed_html(body_html: str, note_url: str) -> str:
    """``body_html`` for a feed entry of the note at the absolute ``note_url``."""

    def absolute(tag, attrs):
        changed, new = False, []
        for name, value in attrs:
            if name in {"href", "src"} and value and not urlsplit(value).scheme:
                value, changed = urljoin(note_url, value), True
            if name == "aria-describedby":  # a term's tooltip, gone
                changed = True
                continue
            new.append((name, value))
        return new if changed else None

    if _TERM_TIP in body_html:
        body_html = _without_term_tips(body_html)
    body_html = without_pictures(body_html)
    html = rewrite_start_tags(_PERMALINK.sub("", body_html), absolute)
    # Math last: formulas hold no links, and their marks would triple the tags to rewrite.
    return _FORMULA.sub(_formula_for_feeds, html) if "<math" in html else html
