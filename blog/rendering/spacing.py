"""Space between Chinese and Latin text via ``<span class="autospace">`` (styled only without
``text-autospace``), adding no character; ``punct-after`` on code before closing punctuation."""

import re
import xml.etree.ElementTree as etree

from markdown import util
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

from blog.text.cjk import CJK_CHARS

CLASS = "autospace"
PUNCT_AFTER = "punct-after"
# Punctuation that closes onto the word before it, Latin and Chinese.
_CLOSING = frozenset(".,:;!?)]}’”…%" + "，。、；：！？）》」』〉】〕")
_LATIN_RUN = r"[A-Za-z0-9](?:[A-Za-z0-9_.+#%/'’-]*[A-Za-z0-9+#%])?"
_TOUCHING_CJK = re.compile(f"(?<=[{CJK_CHARS}]){_LATIN_RUN}|{_LATIN_RUN}(?=[{CJK_CHARS}])")
# Placeholders of stashed HTML and math ("\x02klzzwxh:0\x03"): never split, never wrapped.
_PLACEHOLDER = re.compile(f"({re.escape(util.STX)}[^{re.escape(util.ETX)}]*{re.escape(util.ETX)})")
_SKIP = {"code", "pre", "kbd", "samp", "math", "script", "style"}


def _pieces(text):
    """``text`` as [str | Element]: Latin runs touching CJK characters become spans."""
    pieces = []
    for part in _PLACEHOLDER.split(text):
        if not part:
            continue
        if part.startswith(util.STX):
            pieces.append(part)
            continue
        position = 0
        for match in _TOUCHING_CJK.finditer(part):
            pieces.append(part[position : match.start()])
            span = etree.Element("span", {"class": CLASS})
            span.text = match.group()
            pieces.append(span)
            position = match.end()
        pieces.append(part[position:])
    return pieces


def _spaced(parent, text, index):
    """Insert ``text``'s pieces into ``parent`` at ``index``; return (leading text, count)."""
    pieces = _pieces(text)
    leading = []
    while pieces and isinstance(pieces[0], str):
        leading.append(pieces.pop(0))
    inserted, last = 0, None
    for piece in pieces:
        if isinstance(piece, str):
            last.tail = (last.tail or "") + piece
        else:
            parent.insert(index + inserted, piece)
            inserted, last = inserted + 1, piece
    return "".join(leading), inserted


class AutospaceTreeprocessor(Treeprocessor):
    def run(self, root):
        self._walk(root)

    def _walk(self, element):
        if element.tag == "code" and element.tail and element.tail[0] in _CLOSING:
            element.set("class", f"{element.get('class', '')} {PUNCT_AFTER}".strip())
        if element.tag in _SKIP:
            return
        children = list(element)
        if element.text and not isinstance(element.text, util.AtomicString):
            element.text, _ = _spaced(element, element.text, 0)
        for child in children:
            self._walk(child)
            if child.tail and not isinstance(child.tail, util.AtomicString):
                index = list(element).index(child) + 1
                child.tail, _ = _spaced(element, child.tail, index)


class AutospaceExtension(Extension):
    def extendMarkdown(self, md):
        # After the inline patterns (20) have made their elements, before prettify (10).
        md.treeprocessors.register(AutospaceTreeprocessor(md), "autospace", 15)
