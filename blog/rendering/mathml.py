"""TeX math to MathML on the server (latex2mathml), keeping the TeX as an annotation. Inline ``$…$``
follows pandoc's rules, so "costs $5 and $10" stays prose; unconvertible TeX shows as ``<code
class="math-error">``."""

from __future__ import annotations

import html
import xml.etree.ElementTree as etree

from latex2mathml.converter import convert_to_element
from markdown import Extension
from markdown.blockprocessors import BlockProcessor
from markdown.inlinepatterns import InlineProcessor
from markdown.util import AtomicString

TEX_ENCODING = "application/x-tex"

# One alternation so that the longest delimiter wins at any position ($$ before $).
INLINE_MATH_RE = r"""(?x)
    (?<!\\)(?:
        \$\$(?P<dollars>.+?)\$\$
      | \\\[(?P<bracket>.+?)\\\]
      | \\\((?P<paren>.+?)\\\)
      | (?<!\$)\$(?![\s$])(?P<dollar>(?:\\.|[^\\$])+?)(?<!\s)\$(?![$\d])
    )
    (?P<punct>[，。、；：！？）》」』”’〉】〕…—]*)"""

# Chinese punctuation may not start a line; after inline math, the browser would put it there
# (math is a box it can break after). Math and the punctuation that follows it are one
# unbreakable span.
NOWRAP_CLASS = "math-inline"

# Display blocks: which opener goes with which closer.
_BLOCK_DELIMITERS = {"$$": "$$", "\\[": "\\]"}

# Between escape (180) and backtick (190): code spans are claimed before math, and math is
# claimed before backslash escapes eat the "\(" and "\[" delimiters.
INLINE_PRIORITY = 185
# Above tables (75) and headers (70), below indented code (80) so indented "$$" stays code.
BLOCK_PRIORITY = 78


def tex_to_mathml(tex: str, display: bool = False, source: str | None = None) -> str:
    """Return MathML for ``tex``; on failure a ``<code class="math-error">`` with ``source``."""
    tex = tex.strip()
    try:
        math = convert_to_element(tex, display="block" if display else "inline")
    except Exception:  # latex2mathml raises many unrelated types (IndexError, RecursionError…)
        shown = source if source is not None else tex
        return f'<code class="math-error">{html.escape(shown)}</code>'
    math.attrib.pop("xmlns", None)  # HTML parsers put <math> in the MathML namespace anyway
    # latex2mathml stores character references ("&#x02211;") as element text and relies on
    # unescaping its own serialisation, which would also unescape "<" typed in \text{}.
    # Decode the text here instead and let ElementTree escape it properly.
    for el in math.iter():
        if el.text:
            el.text = html.unescape(el.text)
        if el.tail:
            el.tail = html.unescape(el.tail)
    _functions_before_brackets(math)
    semantics = etree.Element("semantics")
    for child in list(math):
        math.remove(child)
        semantics.append(child)
    annotation = etree.SubElement(semantics, "annotation", encoding=TEX_ENCODING)
    annotation.text = tex
    math.append(semantics)
    # Explicit end tags: the HTML parser would otherwise nest siblings inside "<mspace />".
    return etree.tostring(math, encoding="unicode", short_empty_elements=False)


_SCRIPTED = {"msub", "msup", "msubsup", "munder", "mover", "munderover"}
_OPENING = {"(", "[", "{"}


def _functions_before_brackets(math):
    """``\\max(a, b)``: latex2mathml makes the name an ``<mo>``, spaced like "+"; before an opening
    bracket it becomes an upright ``<mi>``, as TeX sets it. Also drops the backslash left on
    ``\\arg``."""
    for parent in math.iter():
        children = list(parent)
        for child, after in zip(children, [*children[1:], None][: len(children)], strict=True):
            text = child.text or ""
            if child.tag == "mi" and text[:1] == "\\" and text[1:].isalpha():
                child.text = text[1:]
            name = child[0] if child.tag in _SCRIPTED and len(child) else child
            if (
                name.tag == "mo"
                and name.text
                and len(name.text) > 1
                and name.text.isalpha()
                and after is not None
                and after.tag == "mo"
                and (after.text or "").strip() in _OPENING
            ):
                name.tag = "mi"
                name.attrib.pop("movablelimits", None)


class InlineMathProcessor(InlineProcessor):
    def handleMatch(self, m, data):
        display = m.group("dollars") is not None or m.group("bracket") is not None
        tex = next(g for g in m.group("dollars", "bracket", "paren", "dollar") if g is not None)
        if not tex.strip():
            return None, None, None
        punct = m.group("punct")
        source = m.group(0)[: len(m.group(0)) - len(punct)]
        mathml = tex_to_mathml(tex, display=display, source=source)
        if punct:
            mathml = f'<span class="{NOWRAP_CLASS}">{mathml}{html.escape(punct)}</span>'
        return self.md.htmlStash.store(mathml), m.start(0), m.end(0)


class DisplayMathProcessor(BlockProcessor):
    """A paragraph (possibly spanning blank lines) that is exactly ``$$…$$`` or ``\\[…\\]``."""

    def test(self, parent, block):
        return block.lstrip().startswith(tuple(_BLOCK_DELIMITERS))

    def run(self, parent, blocks):
        first = blocks[0].strip()
        opener = next(o for o in _BLOCK_DELIMITERS if first.startswith(o))
        closer = _BLOCK_DELIMITERS[opener]
        text, used = first, 1
        while True:
            end = text.find(closer, len(opener))
            if end != -1:
                if text[end + len(closer) :].strip():
                    return False  # more text after the closer: an ordinary paragraph
                break
            if used >= len(blocks):
                return False  # never closed: leave it to the paragraph processor
            text = f"{text}\n\n{blocks[used].strip()}"
            used += 1
        tex = text[len(opener) : end]
        if not tex.strip():
            return False
        del blocks[:used]
        div = etree.SubElement(parent, "div", {"class": "math-display"})
        div.text = AtomicString(
            self.parser.md.htmlStash.store(tex_to_mathml(tex, display=True, source=text))
        )
        return True


class MathExtension(Extension):
    def extendMarkdown(self, md):
        if "$" not in md.ESCAPED_CHARS:
            md.ESCAPED_CHARS.append("$")  # "\$" is a literal dollar sign
        md.inlinePatterns.register(InlineMathProcessor(INLINE_MATH_RE, md), "math", INLINE_PRIORITY)
        md.parser.blockprocessors.register(
            DisplayMathProcessor(md.parser), "display-math", BLOCK_PRIORITY
        )


def makeExtension(**kwargs):
    return MathExtension(**kwargs)
