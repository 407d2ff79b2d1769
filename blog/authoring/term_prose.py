"""What the term check reads of a Markdown block: the text a reader reads as prose, on one line.
Inline code and math, keyboard input, link addresses, URLs and HTML tags are left out; headings
and link texts count, as a term translated two ways in a heading is the worst kind of slip.
"""

import re
from html import unescape

from blog.rendering.mathml import INLINE_MATH_RE
from blog.text.blocks import Block
from blog.text.cjk import CJK_CHARS, CJK_PUNCTUATION

_FENCE_LINE = re.compile(r"^[ \t>]*(?P<fence>`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
_INLINE_MATH = re.compile(INLINE_MATH_RE)
_SKIPPED_ELEMENTS = re.compile(
    r"<(pre|code|kbd|samp|math|script|style)\b[^>]*>.*?</\1\s*>", re.S | re.IGNORECASE
)
_TAG = re.compile(r"</?[a-zA-Z][^>]*>|<!--.*?-->", re.S)
_LINK_ADDRESS = re.compile(r"\]\((?:[^()\s]|\([^()]*\))*(?:\s+[\"'(].*?[\"')])?\s*\)", re.S)
_REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*\S+.*$", re.M)
_FOOTNOTE_REF = re.compile(r"\[\^[^\]\s]+\]")
_URL = re.compile(r"(?:https?|ftp)://\S+|www\.\S+")
# "_" around a word is emphasis in Markdown, and "_" is a letter to the word boundaries.
_EMPHASIS_UNDERSCORES = re.compile(r"(?<![^\W_])_+|_+(?![^\W_])")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_CJK_TEXT = CJK_CHARS + CJK_PUNCTUATION
# A line break between two Chinese characters is no space (as the renderer reads it).
_CJK_LINE_BREAK = re.compile(f"(?<=[{_CJK_TEXT}])[ \t]*\n\\s*(?=[{_CJK_TEXT}])")
_SPACES = re.compile(r"\s+")


def prose(block: Block) -> str:
    """The text of a block that a reader reads as prose, on one line."""
    lines, fence = [], None
    for line in block.text.split("\n"):  # fenced code inside a list item or a quote
        opening = _FENCE_LINE.match(line)
        marks = opening.group("fence") if opening else ""
        if fence is None and marks:
            fence = marks
            lines.append("")
        elif fence is not None:
            if marks[:1] == fence[0] and len(marks) >= len(fence):
                fence = None  # the closing fence
            lines.append("")
        else:
            lines.append(line)
    text = "\n".join(lines)
    text = _CODE_SPAN.sub(" ", text)  # before math, as the renderer claims code spans first
    text = _INLINE_MATH.sub(lambda m: " " + (m.group("punct") or ""), text)
    text = _SKIPPED_ELEMENTS.sub(" ", text)
    text = _TAG.sub(" ", text)
    text = _LINK_ADDRESS.sub("] ", text)
    text = _REFERENCE.sub(" ", text)
    text = _FOOTNOTE_REF.sub(" ", text)
    text = _URL.sub(" ", text)
    text = _EMPHASIS_UNDERSCORES.sub("", text)
    text = unescape(_ESCAPE.sub(r"\1", text))
    return one_line(text)


def one_line(text: str) -> str:
    return _SPACES.sub(" ", _CJK_LINE_BREAK.sub("", text)).strip()
