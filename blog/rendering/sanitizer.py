"""The nh3 allowlist every stored body goes through, and a deterministic start-tag rewriter (not
nh3's options, which emit attributes in hash order and put ``rel`` on internal links)."""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import Enum
from html import escape
from html.parser import HTMLParser
from urllib.parse import urlsplit

import nh3
from pygments.token import STANDARD_TYPES

HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}

HTML_TAGS = {
    "a", "abbr", "article", "aside", "b", "bdi", "bdo", "blockquote", "br", "caption", "cite",
    "code", "col", "colgroup", "data", "dd", "del", "details", "dfn", "div", "dl", "dt", "em",
    "figcaption", "figure", "footer", "header", "hgroup", "hr", "i", "img", "input", "ins",
    "kbd", "label", "li", "mark", "nav", "ol", "p", "pre", "q", "rp", "rt", "ruby", "s", "samp",
    "section", "small", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td",
    "tfoot", "th", "thead", "time", "tr", "u", "ul", "var", "wbr",
} | HEADINGS  # fmt: skip

# Presentation MathML as latex2mathml emits it; no maction (interactive), no annotation-xml
# (it can carry HTML: namespace confusion), no mglyph (loads a URL).
MATHML_TAGS = {
    "math", "semantics", "annotation", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace",
    "mfrac", "msqrt", "mroot", "msub", "msup", "msubsup", "munder", "mover", "munderover",
    "mtable", "mtr", "mtd", "mstyle", "mpadded", "mphantom", "menclose", "merror",
    "mmultiscripts", "mprescripts", "none",
}  # fmt: skip
MATHML_ATTRIBUTES = {
    "mathvariant", "stretchy", "fence", "separator", "accent", "accentunder", "lspace",
    "rspace", "columnalign", "rowalign", "columnspacing", "rowspacing", "columnlines",
    "rowlines", "frame", "width", "height", "depth", "voffset", "linethickness",
    "displaystyle", "scriptlevel", "minsize", "maxsize", "movablelimits", "notation",
    "largeop", "symmetric", "form", "mathsize", "linebreak",
}  # fmt: skip

# Removed together with their content (text inside them is never prose).
CLEAN_CONTENT_TAGS = {
    "script", "style", "template", "noscript", "iframe", "frame", "frameset", "object",
    "embed", "applet", "noembed", "noframes", "textarea", "select", "button", "svg", "title",
    "xmp",
}  # fmt: skip

ATTRIBUTES: dict[str, set[str]] = {
    "*": {"lang", "dir", "title"},
    "a": {"href", "rel", "hreflang"},
    "img": {"src", "alt", "width", "height"},
    "input": {"checked", "disabled"},
    "ol": {"start", "reversed"},
    "th": {"align", "colspan", "rowspan", "scope", "headers"},
    "td": {"align", "colspan", "rowspan", "headers"},
    "col": {"span"},
    "colgroup": {"span"},
    "details": {"open"},
    "time": {"datetime"},
    "nav": {"aria-labelledby"},
    "data": {"value"},
    "del": {"datetime"},
    "ins": {"datetime"},
    **{tag: {"id"} for tag in HEADINGS | {"li", "sup", "div", "dt", "figure", "section"}},
    **{tag: set(MATHML_ATTRIBUTES) for tag in MATHML_TAGS},
}
# Attributes whose values are fixed lists (an attribute may not be in both dicts for nh3).
ATTRIBUTE_VALUES: dict[str, dict[str, set[str]]] = {
    "input": {"type": {"checkbox"}},
    "img": {"loading": {"lazy", "eager"}, "decoding": {"async", "sync", "auto"}},
    "math": {"display": {"block", "inline"}},
    "annotation": {"encoding": {"application/x-tex", "TeX"}},
}

PYGMENTS_CLASSES = {name for name in STANDARD_TYPES.values() if name}
ADMONITION_TYPES = {
    "note", "abstract", "summary", "tldr", "info", "todo", "tip", "hint", "important",
    "success", "check", "done", "question", "help", "faq", "warning", "caution", "attention",
    "failure", "fail", "missing", "danger", "error", "bug", "example", "quote", "cite",
    "seealso",
}  # fmt: skip
ALLOWED_CLASSES: dict[str, set[str]] = {
    # "filename" is the code block's language label; hll/linenos for highlighted/numbered lines
    "span": PYGMENTS_CLASSES | {"filename", "hll", "linenos", "math-inline", "autospace"},
    "div": {"highlight", "admonition", "footnote", "toc", "math-display"} | ADMONITION_TYPES,
    "nav": {"toc"},
    "details": ADMONITION_TYPES,
    "p": {"admonition-title"},
    "pre": {"highlight"},
    "code": {"highlight", "math-error", "punct-after"},
    "table": {"highlighttable"},
    "td": {"linenos", "code"},
    "ul": {"task-list"},
    "li": {"task-list-item"},
    "a": {"footnote-ref", "footnote-backref", "headerlink"},
}
ALLOWED_REL = {
    "noopener", "noreferrer", "nofollow", "ugc", "sponsored", "external", "author", "license",
    "tag", "me", "help", "prev", "next", "bookmark",
}  # fmt: skip
URL_SCHEMES = {"http", "https", "mailto"}

# Anchors only: letters (any script), digits, "_", "-", ":" and "." (footnote ids use "-").
_ID_RE = re.compile(r"[\w:.-]{1,128}")


def _attribute_filter(tag: str, attr: str, value: str) -> str | None:
    if attr == "class":
        # nh3's allowed_classes enforces the list too; filtering here drops an emptied
        # attribute entirely instead of leaving class="".
        allowed = ALLOWED_CLASSES.get(tag, set())
        kept = [c for c in value.split() if c in allowed]
        return " ".join(dict.fromkeys(kept)) or None
    if attr == "id":
        return value if _ID_RE.fullmatch(value) else None
    if attr == "rel":
        kept = [t for t in value.lower().split() if t in ALLOWED_REL]
        return " ".join(dict.fromkeys(kept)) or None
    return value


_CLEANER = nh3.Cleaner(
    tags=HTML_TAGS | MATHML_TAGS,
    clean_content_tags=CLEAN_CONTENT_TAGS,
    attributes=ATTRIBUTES,
    tag_attribute_values=ATTRIBUTE_VALUES,
    allowed_classes=ALLOWED_CLASSES,
    attribute_filter=_attribute_filter,
    url_schemes=URL_SCHEMES,
    link_rel=None,
    strip_comments=True,
)

Attrs = list[tuple[str, str | None]]


class Removal(Enum):
    """What a rewrite function returns to remove a start tag (and so a void element)."""

    DROP = "drop"


DROP = Removal.DROP


class _StartTagRewriter(HTMLParser):
    """Collects replacements for start tags; everything else is kept byte for byte."""

    def __init__(self, source: str, rewrite: Callable[[str, Attrs], Attrs | Removal | None]):
        super().__init__(convert_charrefs=True)
        self.rewrite = rewrite
        self.edits: list[tuple[int, int, str]] = []
        self.line_starts = [0]
        for match in re.finditer("\n", source):
            self.line_starts.append(match.end())

    def _tag(self, tag: str, attrs: Attrs, closing: str) -> None:
        new_attrs = self.rewrite(tag, attrs)
        if new_attrs is None:
            return
        raw = self.get_starttag_text() or ""
        line, col = self.getpos()
        start = self.line_starts[line - 1] + col
        if new_attrs is DROP:
            self.edits.append((start, len(raw), ""))
            return
        parts = [tag] + [
            name if value is None else f'{name}="{escape(value, quote=True)}"'
            for name, value in new_attrs
        ]
        self.edits.append((start, len(raw), f"<{' '.join(parts)}{closing}>"))

    def handle_starttag(self, tag, attrs):
        self._tag(tag, attrs, "")

    def handle_startendtag(self, tag, attrs):
        self._tag(tag, attrs, " /")


def rewrite_start_tags(html: str, rewrite: Callable[[str, Attrs], Attrs | Removal | None]) -> str:
    """Apply ``rewrite(tag, attrs)`` to every start tag: it returns None (keep), a new attribute
    list, or :data:`DROP` (void elements only)."""
    if not html:
        return html
    parser = _StartTagRewriter(html, rewrite)
    parser.feed(html)
    parser.close()
    out, last = [], 0
    for start, length, text in parser.edits:
        out += [html[last:start], text]
        last = start + length
    out.append(html[last:])
    return "".join(out)


def is_external(url: str | None) -> bool:
    """Any absolute http(s) URL (or protocol-relative one) counts as external."""
    url = (url or "").strip()
    return url.startswith("//") or urlsplit(url).scheme.lower() in {"http", "https"}


def _decorate(tag: str, attrs: Attrs) -> Attrs | None:
    if tag == "img":
        kept = [(n, v) for n, v in attrs if n not in {"loading", "decoding"}]
        return [*kept, ("loading", "lazy"), ("decoding", "async")]
    if tag == "input":
        # nh3 already removed any type but "checkbox"; other controls are dropped entirely.
        if ("type", "checkbox") not in attrs:
            return DROP
        checked = [("checked", None)] if any(n == "checked" for n, _ in attrs) else []
        return [("type", "checkbox"), ("disabled", None), *checked]
    if tag == "a" and is_external(dict(attrs).get("href")):
        tokens = (dict(attrs).get("rel") or "").split()
        rel = " ".join(dict.fromkeys([*tokens, "noopener", "noreferrer"]))
        return [(n, v) for n, v in attrs if n != "rel"] + [("rel", rel)]
    return None


def sanitize_html(html: str) -> str:
    """Clean ``html`` with the allowlist above, then decorate images, inputs and links."""
    if not html:
        return ""
    return rewrite_start_tags(_CLEANER.clean(html), _decorate)
