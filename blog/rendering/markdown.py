"""Markdown → sanitised HTML, table of contents, plain text and statistics: Python-Markdown with
pymdown-extensions and Pygments, :mod:`.mathml`, then the sanitizer."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape
from html.parser import HTMLParser

import markdown
from pymdownx.slugs import slugify

from blog.rendering.a11y import AccessibilityExtension
from blog.rendering.budget import RenderRefused, render_bounded
from blog.rendering.math_text import TEXT_ENCODING, with_text_marks
from blog.rendering.mathml import MathExtension
from blog.rendering.sanitizer import sanitize_html
from blog.rendering.spacing import AutospaceExtension
from blog.text.blocks import split_blocks
from blog.text.cjk import CJK_CHARS, CJK_PUNCTUATION
from blog.text.stats import (
    LEFT_OUT,
    PARAGRAPH_BREAK,
    collapse_whitespace,
    count_han_and_latin,
    make_excerpt,
    reading_minutes,
)

__all__ = [
    "Rendered", "RenderRefused", "render_blocks", "render_markdown", "render_preview",
    "make_excerpt", "sanitize_html",
]  # fmt: skip


@dataclass(frozen=True)
class Rendered:
    html: str  # sanitised body HTML
    toc_html: str  # sanitised <ul> of the headings (h1-h4), "" when there are none
    plain_text: str  # all text incl. code and formulas as read, whitespace collapsed (search)
    excerpt: str  # plain-text excerpt of the prose only
    word_count: int
    reading_minutes: int


# --- Markdown ---------------------------------------------------------------------------------

_EXTENSIONS = [
    "markdown.extensions.tables",
    "markdown.extensions.footnotes",
    "markdown.extensions.toc",
    "markdown.extensions.admonition",
    "markdown.extensions.attr_list",
    "markdown.extensions.def_list",
    "markdown.extensions.md_in_html",  # <details markdown="1">…</details>
    "pymdownx.superfences",
    "pymdownx.highlight",
    "pymdownx.tasklist",
    "pymdownx.tilde",
    "pymdownx.details",
]
_EXTENSION_CONFIGS = {
    # align="…" instead of style="text-align: …": the sanitiser removes every style attribute.
    "markdown.extensions.tables": {"use_align_attribute": True},
    # "-" rather than ":" keeps footnote ids usable in CSS selectors without escaping.
    "markdown.extensions.footnotes": {"SEPARATOR": "-", "BACKLINK_TEXT": "\u21a9\ufe0e"},
    "markdown.extensions.toc": {
        # Unicode slugs: "为什么需要并行计算？" → "为什么需要并行计算"; repeats get "_1", "_2".
        "slugify": slugify(case="lower"),
        "permalink": True,
        # No English "Permanent link" title inside Chinese notes; the link reads as "¶".
        "permalink_title": "",
        "toc_depth": "1-4",
    },
    "pymdownx.highlight": {
        "css_class": "highlight",
        "use_pygments": True,
        "guess_lang": False,  # guessing is slow and unstable; unlabelled code stays plain
        "auto_title": True,  # language label: <span class="filename">Python</span>
        "auto_title_map": {"Text Only": ""},  # no label on unlabelled blocks
    },
    "pymdownx.tasklist": {"custom_checkbox": False, "clickable_checkbox": False},
    # Chinese prose writes ranges as "1~5、10~20": no single-tilde subscripts.
    "pymdownx.tilde": {"subscript": False},
}
_EMPTY_TOC_RE = re.compile(r'<div class="toc">\s*<ul>\s*</ul>\s*</div>')
# The author's [TOC]: a navigation landmark with a title, like the page's own contents box.
_INLINE_TOC_RE = re.compile(r'<div class="toc">(\s*<ul>.*?</ul>\s*)</div>', re.DOTALL)
INLINE_TOC_TITLE_ID = "toc-title"
_TOC_LIST_RE = re.compile(r'^\s*<div class="toc">\s*(<ul>.*</ul>)\s*</div>\s*$', re.DOTALL)


def _markdown() -> markdown.Markdown:
    # A fresh instance per call: Markdown objects are stateful and not thread-safe.
    return markdown.Markdown(
        extensions=[*_EXTENSIONS, MathExtension(), AccessibilityExtension(), AutospaceExtension()],
        extension_configs=_EXTENSION_CONFIGS,
        output_format="html",
    )


def _titled_toc(html: str, title: str) -> str:
    return _INLINE_TOC_RE.sub(
        lambda m: (
            f'<nav class="toc" aria-labelledby="{INLINE_TOC_TITLE_ID}">'
            f'<h2 id="{INLINE_TOC_TITLE_ID}">{escape(title)}</h2>{m.group(1)}</nav>'
        ),
        html,
        count=1,
    )


def render_markdown(text: str, toc_title: str = "Contents") -> Rendered:
    """Render ``text``, ``toc_title`` heading ``[TOC]``; raises :class:`RenderRefused` past a bound
    of :mod:`blog.rendering.budget`."""
    return render_bounded("markdown", _render_markdown, text or "", str(toc_title))


def _render_markdown(text: str, toc_title: str) -> Rendered:
    md = _markdown()
    body = _EMPTY_TOC_RE.sub("", md.convert(text or ""))
    html = sanitize_html(_titled_toc(body, toc_title))
    toc_match = _TOC_LIST_RE.match(md.toc) if md.toc_tokens else None
    toc_html = sanitize_html(toc_match.group(1)) if toc_match else ""
    plain, prose = _extract_text(html)
    han, latin = count_han_and_latin(plain)
    return Rendered(
        html=html,
        toc_html=toc_html,
        plain_text=plain,
        excerpt=make_excerpt(prose) or make_excerpt(plain),  # a note of only code gets one too
        word_count=han + latin,
        reading_minutes=reading_minutes(han, latin),
    )


# Between two blocks of the parallel view: a raw HTML block Markdown passes through as it is.
_BLOCK_SEPARATOR = "<div>biji-parallel-block-separator</div>"


def render_blocks(text: str, toc_title: str = "Contents") -> list[list[str]]:
    """The body's blocks rendered one by one, as ``[kind, hash, html]`` for the parallel view.

    Rendered as one document with separators, so heading ids stay unique and references and
    footnotes find their definitions. Bounded as :func:`render_markdown` is.
    """
    return render_bounded("blocks", _render_blocks, text or "", str(toc_title))


def _render_blocks(text: str, toc_title: str) -> list[list[str]]:
    blocks = split_blocks(text)
    if not blocks:
        return []
    source = f"\n\n{_BLOCK_SEPARATOR}\n\n".join(block.text for block in blocks)
    body = _EMPTY_TOC_RE.sub("", _markdown().convert(source))
    pieces = body.split(_BLOCK_SEPARATOR)
    if len(pieces) != len(blocks):  # a separator swallowed by a block it did not end: one piece
        pieces = [body.replace(_BLOCK_SEPARATOR, ""), *[""] * (len(blocks) - 1)]
    return [
        [block.kind, block.hash, sanitize_html(_titled_toc(piece, toc_title)).strip()]
        for block, piece in zip(blocks, pieces, strict=True)
    ]


def render_preview(text: str, toc_title: str = "Contents") -> str:
    """The admin's live preview: exactly what readers get (``[TOC]`` included)."""
    return render_markdown(text, toc_title).html


# --- Text extraction --------------------------------------------------------------------------

_BLOCK_TAGS = {
    "address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "div", "dl",
    "dt", "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr",
    "li", "nav", "ol", "p", "pre", "section", "summary", "table", "td", "th", "tr", "ul",
}  # fmt: skip
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_VOID_TAGS = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
_CJK_TEXT = CJK_CHARS + CJK_PUNCTUATION
_CJK_JOIN_RE = re.compile(f"(?<=[{_CJK_TEXT}])[ \t]*\n\\s*(?=[{_CJK_TEXT}])")


@dataclass
class _Frame:
    """An open element while extracting text: where its text goes."""

    tag: str
    plain: bool  # searchable text
    prose: bool  # excerpt material
    in_pre: bool  # whitespace is kept as written


def _left_out(tag, classes, attrs):
    """Blocks the excerpt leaves out that the prose around them may lead into or go on from."""
    if tag == "math":
        return attrs.get("display") == "block"
    return tag in {"pre", "table"} or bool(classes & {"highlight", "math-display"})


def _classes(attrs):
    return set((attrs.get("class") or "").split())


class _TextExtractor(HTMLParser):
    """Collects two texts: everything searchable, and the prose an excerpt is made of."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.plain: list[str] = []
        self.prose: list[str] = []
        self.stack: list[_Frame] = [_Frame("", True, True, False)]

    def _own(self, tag, attrs):
        """(plain?, prose?) for this element itself, before inheriting from its parent."""
        classes = _classes(attrs)
        if classes & {"toc", "headerlink", "footnote-ref", "footnote-backref", "filename"}:
            return False, False
        if tag == "td" and "linenos" in classes:
            return False, False
        if tag == "annotation":
            # A formula reads as its tokens and text-reader marks (blog.rendering.math_text),
            # not as its TeX source.
            return attrs.get("encoding") == TEXT_ENCODING, attrs.get("encoding") == TEXT_ENCODING
        if tag == "math":
            return True, attrs.get("display") != "block"
        if tag in {"pre", "table", "summary"} or tag in _HEADINGS:
            return True, False
        if classes & {"highlight", "footnote", "math-display", "admonition-title"}:
            return True, False
        return True, True

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in _BLOCK_TAGS:
            self._separate()
        if tag in _VOID_TAGS:
            return
        parent = self.stack[-1]
        plain, prose = self._own(tag, attrs)
        if parent.prose and not prose and _left_out(tag, _classes(attrs), attrs):
            self.prose.append(LEFT_OUT)
        self.stack.append(
            _Frame(
                tag,
                plain=parent.plain and plain,
                prose=parent.prose and prose,
                in_pre=parent.in_pre or tag == "pre",
            )
        )

    def handle_startendtag(self, tag, attrs):
        if tag in _BLOCK_TAGS:
            self._separate()

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                break
        if tag in _BLOCK_TAGS:
            self._separate()

    def handle_data(self, data):
        frame = self.stack[-1]
        if not frame.in_pre:
            # A soft line break between two Chinese characters is not a space.
            data = _CJK_JOIN_RE.sub("", data)
        if frame.plain:
            self.plain.append(data)
        if frame.prose:
            self.prose.append(data)

    def _separate(self):
        self.plain.append(_BLOCK_BREAK)
        self.prose.append(_BLOCK_BREAK)


# Where one block ends and the next begins. Blocks are joined with a space, except after a
# Chinese sentence's closing punctuation: "第一段。第二段", as Chinese is written.
_BLOCK_BREAK = PARAGRAPH_BREAK  # private use: should an author type one, it reads as a space
_CJK_SENTENCE_BREAK_RE = re.compile(
    f"(?<=[{CJK_PUNCTUATION}])[\\s{_BLOCK_BREAK}]*{_BLOCK_BREAK}[\\s{_BLOCK_BREAK}]*(?=[{_CJK_TEXT}])"
)


def _joined(parts: list[str]) -> str:
    text = _CJK_SENTENCE_BREAK_RE.sub("", "".join(parts))
    return collapse_whitespace(text.replace(_BLOCK_BREAK, " "))


def _extract_text(html: str) -> tuple[str, str]:
    """(plain text, prose with the block marks :func:`make_excerpt` reads)."""
    parser = _TextExtractor()
    parser.feed(with_text_marks(html))
    parser.close()
    return _joined(parser.plain), "".join(parser.prose)
