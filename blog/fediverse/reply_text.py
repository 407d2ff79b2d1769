"""A reply's HTML as plain text, the only form in which a remote reply is stored: no markup of a
stranger's ever reaches a page (the admin escapes the text like any other)."""

import html
import re

import nh3

MAX_CHARACTERS = 5000
_BREAK = re.compile(r"(?i)<br\s*/?>")
_PARAGRAPH_END = re.compile(r"(?i)</(p|div|li|blockquote|h[1-6])\s*>")
_BLANK_LINES = re.compile(r"\n{3,}")


def reply_text(content) -> str:
    """``content`` (a reply's HTML) as text: tags dropped (a script's or style's text with
    them), entities read, paragraphs a blank line apart, at most MAX_CHARACTERS."""
    if not isinstance(content, str):
        return ""
    content = _PARAGRAPH_END.sub("\n\n", _BREAK.sub("\n", content[: MAX_CHARACTERS * 4]))
    text = html.unescape(nh3.clean(content, tags=set()))
    lines = (" ".join(line.split()) for line in text.split("\n"))
    text = _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()
    return text[:MAX_CHARACTERS]
