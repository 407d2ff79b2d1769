"""A note's stored HTML as feed readers should get it.

Feed readers show an entry apart from its page, and terminal readers turn it into text:

* no "¶" permalink marks after headings (they only make sense on the page);
* every link into the note itself (footnotes, headings) points at the note's URL, not at
  the feed's: ``#fn-1`` becomes ``https://…/notes/x/#fn-1``; other relative links and images
  are made absolute on the site;
* math once: the MathML stays (readers that render MathML show the formula, text converters
  its characters), and the TeX source moves from the ``<annotation>`` element, which text
  converters print as a second copy of the formula, into the ``alttext`` attribute MathML
  defines for it.
"""

import re
from html import escape, unescape
from urllib.parse import urljoin, urlsplit

from blog.rendering.sanitizer import rewrite_start_tags

_PERMALINK = re.compile(r'<a class="headerlink" href="[^"]*">¶</a>')
_MATH_WITH_TEX = re.compile(
    r'(<math\b[^>]*)>(.*?)<annotation encoding="application/x-tex">(.*?)</annotation>', re.DOTALL
)


def _tex_as_alttext(match):
    start, content, tex = match.groups()
    return f'{start} alttext="{escape(unescape(tex), quote=True)}">{content}'


def feed_html(body_html: str, note_url: str) -> str:
    """``body_html`` for a feed entry of the note at the absolute ``note_url``."""
    html = _PERMALINK.sub("", body_html)
    html = _MATH_WITH_TEX.sub(_tex_as_alttext, html)

    def absolute(tag, attrs):
        changed, new = False, []
        for name, value in attrs:
            if name in {"href", "src"} and value and not urlsplit(value).scheme:
                value, changed = urljoin(note_url, value), True
            new.append((name, value))
        return new if changed else None

    return rewrite_start_tags(html, absolute)
