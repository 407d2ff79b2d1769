"""A note's feed HTML as the text/plain part of its email.

It reads the way a feed entry reads in a text reader (html2text, which is GPL and a
development tool here, never imported at runtime): paragraphs apart, ``## headings``, ``-``
and ``1.`` lists, ``>`` quotes, code verbatim and indented by four spaces under its
language, tables row by row with ``|`` between cells, a link's address after its text
(``text <https://…>``), an image as ``[alt] <https://…>``, footnote marks as ``[1]``, and
formulas in the linear form their text marks give (:mod:`blog.rendering.math_text`:
"x^2", "QK^⊤/√d"), as the feed's readers see them. No line is wrapped: Chinese has no
spaces to wrap at, and mail clients wrap as they show.

Input is HTML this project wrote (sanitised, then :func:`~blog.rendering.feed_html.feed_html`):
well-formed, every element closed.
"""

import re
from html.parser import HTMLParser

from blog.text.cjk import CJK_CHARS, CJK_PUNCTUATION

VOID = {"br", "hr", "img", "wbr", "source", "input", "col", "meta", "link"}
BLOCKS = {
    *("p", "div", "section", "article", "figure", "figcaption", "details", "summary"),
    *("h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "pre", "blockquote", "table"),
    *("hr", "dl", "dt", "dd"),
}
# Links whose address adds nothing in text: footnote marks, the way back, glossary terms.
QUIET_LINKS = {"footnote-ref", "footnote-backref", "term-link", "headerlink"}
TEX = "application/x-tex"
_SPACE = re.compile(r"[ \t\r\n\f]+")
# A line break of the source between two Chinese characters is no space (as Chinese is
# written); elsewhere it is one.
_CJK = f"{CJK_CHARS}{CJK_PUNCTUATION}"
_CJK_BREAK = re.compile(f"(?<=[{_CJK}])[ \\t\\r\\f]*\\n[ \\t\\r\\n\\f]*(?=[{_CJK}])")
_BREAK = "\x00"  # a <br> while the text is being collapsed


class _Element:
    __slots__ = ("tag", "attrs", "children")

    def __init__(self, tag, attrs):
        self.tag, self.attrs, self.children = tag, dict(attrs), []

    @property
    def classes(self):
        return set((self.attrs.get("class") or "").split())


class _Tree(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = _Element("root", [])
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        element = _Element(tag, attrs)
        self.stack[-1].children.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1].children.append(_Element(tag, attrs))

    def handle_endtag(self, tag):
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data):
        self.stack[-1].children.append(data)


def html_to_text(html: str) -> str:
    """``html`` as plain text (blocks apart by a blank line, no trailing spaces)."""
    tree = _Tree()
    tree.feed(html)
    tree.close()
    lines = _blocks(tree.root)
    text = "\n".join(line.rstrip() for line in lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


# --- blocks: each returns a list of lines --------------------------------------------------


def _blocks(element):
    """The lines of ``element``'s children: runs of inline content become paragraphs."""
    out, run = [], []

    def flush():
        text = _inline_text(run).strip()
        run.clear()
        if text:
            _paragraph(out, text.split("\n"))

    for child in element.children:
        if isinstance(child, _Element) and child.tag in BLOCKS:
            flush()
            lines = _block(child)
            if lines:
                _paragraph(out, lines)
        else:
            run.append(child)
    flush()
    return out


def _paragraph(out, lines):
    if out:
        out.append("")
    out.extend(lines)


def _block(element):
    tag = element.tag
    if tag in {"h1", "h2", "h3", "h4", "h5", "h6"}:
        text = _inline_text(element.children).strip()
        return [f"{'#' * int(tag[1])} {text}"] if text else []
    if tag == "pre":
        code = _raw_text(element).strip("\n")
        return ["    " + line if line else "" for line in code.split("\n")]
    if tag in {"ul", "ol"}:
        return _list(element)
    if tag == "blockquote":
        return ["> " + line if line else ">" for line in _blocks(element)]
    if tag == "table":
        return _table(element)
    if tag == "hr":
        return ["* * *"]
    if tag == "div" and "highlight" in element.classes:
        return _code_block(element)
    return _blocks(element)


def _code_block(element):
    """A highlighted block: its language label (if any) on a line, then the code."""
    lines = []
    for child in element.children:
        if not isinstance(child, _Element):
            continue
        if child.tag == "pre":
            lines += _block(child)
        elif {"filename", "code-lang"} & child.classes:
            label = _inline_text(child.children).strip()
            if label:
                lines.append(f"{label}:")
    return lines


def _list(element):
    lines, number = [], 0
    for item in element.children:
        if not isinstance(item, _Element) or item.tag != "li":
            continue
        number += 1
        marker = f"{number}. " if element.tag == "ol" else "- "
        body = _blocks(item) or [""]
        # Items of a list are one line apart, however many paragraphs each holds.
        lines.append(marker + body[0])
        lines += [(" " * len(marker) + line) if line else "" for line in body[1:]]
    return lines


def _table(element):
    rows = []
    for row in _descendants(element, "tr"):
        cells = [c for c in row.children if isinstance(c, _Element) and c.tag in {"th", "td"}]
        text = [_inline_text(cell.children).strip().replace("\n", " ") for cell in cells]
        rows.append((text, all(cell.tag == "th" for cell in cells)))
    lines = []
    for index, (cells, header) in enumerate(rows):
        lines.append(" | ".join(cells))
        if header and index == 0:
            lines.append(" | ".join("---" for _ in cells))
    return lines


def _descendants(element, tag):
    for child in element.children:
        if isinstance(child, _Element):
            if child.tag == tag:
                yield child
            else:
                yield from _descendants(child, tag)


# --- inline content ------------------------------------------------------------------------


def _inline_text(nodes):
    """Inline content as one string: whitespace collapsed, ``<br>`` a line break."""
    parts = []
    for node in nodes:
        _inline(node, parts)
    text = _SPACE.sub(" ", _CJK_BREAK.sub("", "".join(parts)))
    return "\n".join(line.strip() for line in text.split(_BREAK))


def _inline(node, parts):
    if not isinstance(node, _Element):
        parts.append(node)
        return
    tag, attrs = node.tag, node.attrs
    if tag == "br":
        parts.append(_BREAK)
    elif tag == "img":
        alt, src = (attrs.get("alt") or "").strip(), attrs.get("src") or ""
        parts.append(f"[{alt}] <{src}>" if alt else f"<{src}>")
    elif tag == "math":
        parts.append(_math_text(node))
    elif tag == "a":
        text = _inline_text(node.children).strip()
        href = attrs.get("href") or ""
        if "footnote-backref" in node.classes:
            return
        if "footnote-ref" in node.classes:
            parts.append(f"[{text}]")
        elif not href or QUIET_LINKS & node.classes or href in {text, f"mailto:{text}"}:
            parts.append(text)
        else:
            parts.append(f"{text} <{href}>")
    elif tag in BLOCKS:  # a block inside inline content (a list in a table cell)
        parts.append(" " + " ".join(_blocks(node)) + " ")
    else:
        for child in node.children:
            _inline(child, parts)


def _math_text(element):
    """A formula's text marks and tokens, without its TeX annotation (if one is left)."""
    parts = []

    def walk(node):
        if not isinstance(node, _Element):
            parts.append(node)
            return
        if node.tag == "annotation" and node.attrs.get("encoding") == TEX:
            return
        for child in node.children:
            walk(child)

    walk(element)
    return "".join(parts)


def _raw_text(element):
    """The text of ``element`` as written (code: whitespace kept)."""
    parts = []

    def walk(node):
        if isinstance(node, _Element):
            for child in node.children:
                walk(child)
        else:
            parts.append(node)

    walk(element)
    return "".join(parts)
