"""Markdown → sanitised HTML, table of contents, plain text and CJK-aware text statistics.

Pure functions, no ORM: models call :func:`render_markdown` on save and store the result; the
admin preview calls :func:`render_preview`, which is the very same pipeline.

Pipeline: Python-Markdown with pymdown-extensions (fenced code highlighted by Pygments into CSS
classes with a language label, tables, footnotes, task lists, admonitions, ``??? details``,
``~~strike~~``, ``[TOC]``, unicode heading ids) and :mod:`blog.markdown_math` (TeX → MathML) →
:func:`blog.sanitizer.sanitize_html` (nh3 allowlist, lazy images, rel on external links).

Text statistics (documented rule, used for ``word_count`` and reading time):

* every Han character, kana and hangul syllable counts as one word;
* every run of letters/digits/underscores (apostrophes and dots inside it allowed) counts as one
  word: "cuBLAS", "H100", "don't", "e.g", "3.14" are one word each; so
  "在 H100 上超越 cuBLAS" is 4 + 2 = 6;
* reading time is ``ceil(han / 300 + latin / 200)`` minutes, at least 1.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import markdown
from pymdownx.slugs import slugify

from .markdown_math import MathExtension
from .sanitizer import rewrite_start_tags, sanitize_html

__all__ = [
    "Rendered", "render_markdown", "render_preview", "make_excerpt", "count_words",
    "reading_minutes", "sanitize_html", "absolutize_urls",
]  # fmt: skip

HAN_PER_MINUTE = 300
WORDS_PER_MINUTE = 200


@dataclass(frozen=True)
class Rendered:
    html: str  # sanitised body HTML
    toc_html: str  # sanitised <ul> of the headings (h1-h4), "" when there are none
    plain_text: str  # all text incl. code and TeX source, whitespace collapsed (search)
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
_TOC_LIST_RE = re.compile(r'^\s*<div class="toc">\s*(<ul>.*</ul>)\s*</div>\s*$', re.DOTALL)


def _markdown() -> markdown.Markdown:
    # A fresh instance per call: Markdown objects are stateful and not thread-safe.
    return markdown.Markdown(
        extensions=[*_EXTENSIONS, MathExtension()],
        extension_configs=_EXTENSION_CONFIGS,
        output_format="html",
    )


def render_markdown(text: str) -> Rendered:
    md = _markdown()
    body = _EMPTY_TOC_RE.sub("", md.convert(text or ""))
    html = sanitize_html(body)
    toc_match = _TOC_LIST_RE.match(md.toc) if md.toc_tokens else None
    toc_html = sanitize_html(toc_match.group(1)) if toc_match else ""
    plain, prose = _extract_text(html)
    han, latin = _count(plain)
    return Rendered(
        html=html,
        toc_html=toc_html,
        plain_text=plain,
        excerpt=make_excerpt(prose or plain),  # a note of only headings/code still gets one
        word_count=han + latin,
        reading_minutes=reading_minutes(han, latin),
    )


def render_preview(text: str) -> str:
    """The admin's live preview: exactly what readers get (``[TOC]`` included)."""
    return render_markdown(text).html


def absolutize_urls(html: str, base_url: str) -> str:
    """Make relative ``href``/``src`` absolute against ``base_url`` (for feed readers).

    ``base_url`` is the document's base: the site root ("https://blog.example") or the page's
    own URL. Fragment-only links ("#fn-1") stay as they are (they point into the same entry),
    and URLs with a scheme (http, https, mailto) are left alone.
    """

    def rewrite(tag, attrs):
        changed, new = False, []
        for name, value in attrs:
            if name in {"href", "src"} and value and not value.startswith("#"):
                if not urlsplit(value).scheme:
                    value, changed = urljoin(base_url, value), True
            new.append((name, value))
        return new if changed else None

    return rewrite_start_tags(html, rewrite)


# --- Text extraction --------------------------------------------------------------------------

_BLOCK_TAGS = {
    "address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "div", "dl",
    "dt", "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr",
    "li", "ol", "p", "pre", "section", "summary", "table", "td", "th", "tr", "ul",
}  # fmt: skip
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_VOID_TAGS = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
_CJK_JOIN_RE = re.compile(
    r"(?<=[\u2e80-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef])[ \t]*\n\s*"
    r"(?=[\u2e80-\u30ff\u3400-\u9fff\uf900-\ufaff\uff00-\uffef])"
)


class _TextExtractor(HTMLParser):
    """Collects two texts: everything searchable, and the prose an excerpt is made of."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.plain: list[str] = []
        self.prose: list[str] = []
        # frames: [tag, plain?, prose?, in pre?, plain? outside the enclosing <math>]
        self.stack: list[list] = [["", True, True, False, True]]

    def _own(self, tag, attrs):
        """(plain?, prose?) for this element itself, before inheriting from its parent."""
        classes = set((attrs.get("class") or "").split())
        if classes & {"toc", "headerlink", "footnote-ref", "footnote-backref", "filename"}:
            return False, False
        if tag == "td" and "linenos" in classes:
            return False, False
        if tag == "math":
            return False, attrs.get("display") != "block"  # presentation text: prose only
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
        outer = parent[1] if tag == "math" else parent[4]
        if tag == "annotation":
            # The TeX source is what search should find; it is never excerpt material.
            self.stack.append([tag, parent[4], False, parent[3], parent[4]])
            return
        self.stack.append(
            [tag, parent[1] and plain, parent[2] and prose, parent[3] or tag == "pre", outer]
        )

    def handle_startendtag(self, tag, attrs):
        if tag in _BLOCK_TAGS:
            self._separate()

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break
        if tag in _BLOCK_TAGS:
            self._separate()

    def handle_data(self, data):
        _, plain, prose, in_pre, _ = self.stack[-1]
        if not in_pre:
            # A soft line break between two Chinese characters is not a space.
            data = _CJK_JOIN_RE.sub("", data)
        if plain:
            self.plain.append(data)
        if prose:
            self.prose.append(data)

    def _separate(self):
        self.plain.append(" ")
        self.prose.append(" ")


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _extract_text(html: str) -> tuple[str, str]:
    parser = _TextExtractor()
    parser.feed(html)
    parser.close()
    return _collapse("".join(parser.plain)), _collapse("".join(parser.prose))


# --- Counting and excerpts --------------------------------------------------------------------

# Han (incl. extensions and compatibility ideographs, 々 and 〇), kana, hangul.
_CJK_CHARS = (
    "\u3005\u3007\u3021-\u3029\u3038-\u303b\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\U00020000-\U000323af\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f"
    "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af"
)
_CJK_RE = re.compile(f"[{_CJK_CHARS}]")
_WORD_RE = re.compile(r"\w+(?:['’.]\w+)*")


def _count(text: str) -> tuple[int, int]:
    """(CJK characters, Latin-script words) in ``text``."""
    han = len(_CJK_RE.findall(text))
    return han, len(_WORD_RE.findall(_CJK_RE.sub(" ", text)))


def count_words(text: str) -> int:
    han, latin = _count(text or "")
    return han + latin


def reading_minutes(word_count_han: int, word_count_latin: int) -> int:
    minutes = word_count_han / HAN_PER_MINUTE + word_count_latin / WORDS_PER_MINUTE
    return max(1, math.ceil(minutes))


_ZWJ = "\u200d"


def _is_extender(ch: str) -> bool:
    """Code points that belong to the preceding character (a simplified grapheme rule)."""
    cp = ord(ch)
    return (
        unicodedata.category(ch) in {"Mn", "Me", "Mc"}
        or 0xFE00 <= cp <= 0xFE0F  # variation selectors
        or 0x1F3FB <= cp <= 0x1F3FF  # skin tones
        or 0xE0020 <= cp <= 0xE007F  # tag sequences (subdivision flags)
        or 0xE0100 <= cp <= 0xE01EF
        or 0xDC00 <= cp <= 0xDFFF  # a low surrogate left unpaired by a bad decoder
        or cp == 0x200C
    )


def _clusters(text: str):
    """Split into user-perceived characters: base + combining marks, ZWJ emoji, flags."""
    i, n = 0, len(text)
    while i < n:
        j = i + 1
        if 0x1F1E6 <= ord(text[i]) <= 0x1F1FF and j < n and 0x1F1E6 <= ord(text[j]) <= 0x1F1FF:
            j += 1  # a regional-indicator pair is one flag
        while j < n:
            if _is_extender(text[j]):
                j += 1
            elif text[j] == _ZWJ:
                j = min(j + 2, n)  # ZWJ glues the next character on
            else:
                break
        yield text[i:j]
        i = j


def _tokens(text: str):
    """(token, kind) with kind in "space", "cjk", "word", "punct", "other"."""
    word: list[str] = []
    for cluster in _clusters(text):
        base = cluster[0]
        if (base.isalnum() or base == "_") and not _CJK_RE.match(base):
            word.append(cluster)
            continue
        if word and base in "'’." and cluster == base:
            word.append(cluster)  # maybe inside a word ("don't", "3.14"); settled below
            continue
        if word:
            yield from _flush(word)
            word = []
        if base.isspace():
            yield cluster, "space"
        elif _CJK_RE.match(base):
            yield cluster, "cjk"
        elif base.isascii():
            yield cluster, "punct"
        else:
            yield cluster, "other"
    if word:
        yield from _flush(word)


def _flush(word: list[str]):
    # Joiners are only part of a word when a letter follows them.
    trailing = []
    while word and word[-1] in {"'", "’", "."}:
        trailing.insert(0, word.pop())
    yield "".join(word), "word"
    for ch in trailing:
        yield ch, "punct"


_TRAILING_PUNCT = " ,，、;；:：.。!！?？-–—·…(（[【《〈「『“‘\"'"


def make_excerpt(text: str, han_limit: int = 120, word_limit: int = 50) -> str:
    """Cut plain ``text`` to about ``han_limit`` Han characters or ``word_limit`` words.

    Each CJK character (and each emoji or other non-ASCII symbol) costs ``1/han_limit``, each
    Latin word ``1/word_limit``, ASCII punctuation a quarter of a Han character, whitespace
    nothing; tokens are taken while the total stays within 1. Cuts fall between tokens, so a
    word, a surrogate pair, a combining sequence or a ZWJ emoji is never split. "…" is appended
    only when something was cut. Whitespace is collapsed.
    """
    text = _collapse(text or "")
    cost_of = {
        "cjk": 1 / han_limit,
        "other": 1 / han_limit,
        "punct": 0.25 / han_limit,
        "word": 1 / word_limit,
        "space": 0.0,
    }
    budget, taken, length = 1.0 + 1e-9, 0.0, 0
    for token, kind in _tokens(text):
        taken += cost_of[kind]
        if taken > budget:
            return text[:length].rstrip(_TRAILING_PUNCT) + "…"
        length += len(token)
    return text
