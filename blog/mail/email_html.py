"""A note's feed HTML as mail clients should get it: formulas as their TeX source (Gmail and Outlook
show no MathML) and images sized by attribute (Outlook ignores ``max-width``)."""

import re

from pygments.formatters import HtmlFormatter

from blog.rendering.feed_html import feed_html
from blog.rendering.sanitizer import rewrite_start_tags

MAX_IMAGE_WIDTH = 584  # the message's column: 640 px less its padding
# A light style whose colours read on white in every client (no dark-mode assumptions).
PYGMENTS_STYLE = "friendly"

# After feed_html: <math …alttext="TeX"…>…</math>, in a <p class="math-display"> for display
# math (or between <br>s when it was inside a paragraph).
_MATH = re.compile(r"<math\b(?P<attrs>[^>]*)>.*?</math>", re.DOTALL)
_ALTTEXT = re.compile(r'\balttext="(?P<tex>[^"]*)"')
_DISPLAY = re.compile(r'\bdisplay="block"')


def _formula_as_tex(match):
    attrs = match.group("attrs")
    tex = _ALTTEXT.search(attrs)
    if tex is None:  # no TeX kept: the MathML, whose text marks read as text
        return match.group(0)
    source = tex.group("tex").strip()  # escaped already, as text content needs
    dollars = "$$" if _DISPLAY.search(attrs) else "$"
    return f'<code class="math">{dollars}{source}{dollars}</code>'


def _image_fits(tag, attrs):
    if tag != "img":
        return None
    values = dict(attrs)
    try:
        width, height = int(values.get("width", "")), int(values.get("height", ""))
    except ValueError:
        width = height = None
    if width is None or width <= MAX_IMAGE_WIDTH:
        return None
    fitted = {"width": str(MAX_IMAGE_WIDTH), "height": str(round(height * MAX_IMAGE_WIDTH / width))}
    return [(name, fitted.get(name, value)) for name, value in attrs]


def email_html(body_html: str, note_url: str) -> str:
    """``body_html`` (a note's stored HTML) for an email of the note at ``note_url``."""
    html = feed_html(body_html, note_url)
    if "<math" in html:
        html = _MATH.sub(_formula_as_tex, html)
    if "<img" in html:
        html = rewrite_start_tags(html, _image_fits)
    return html


def code_css() -> str:
    """The Pygments style's rules for the stored code's classes (``.highlight .k``…)."""
    return HtmlFormatter(style=PYGMENTS_STYLE).get_style_defs(".highlight")
