"""PLACEHOLDER — being replaced by the rendering helper. Same public API."""

from dataclasses import dataclass

import markdown
import nh3


@dataclass(frozen=True)
class Rendered:
    html: str
    toc_html: str
    plain_text: str
    excerpt: str
    word_count: int
    reading_minutes: int


def make_excerpt(text, han_limit=120, word_limit=50):
    return text[:han_limit]


def render_markdown(text):
    html = nh3.clean(markdown.markdown(text or ""))
    plain = nh3.clean(html, tags=set())
    return Rendered(html, "", plain, make_excerpt(plain), len(plain), 1)


def render_preview(text):
    return render_markdown(text).html


def absolutize_urls(html, base_url):
    return html
