"""A note's feed HTML as the text/plain part of its email, through markdownify.

A link's address follows its text; a source line break between Chinese characters is no space; no
line is wrapped, as Chinese has no spaces to wrap at.
"""

import re

from markdownify import ATX, MarkdownConverter

from blog.text.cjk import CJK_CHARS, CJK_PUNCTUATION

# Links whose address adds nothing in text: glossary terms, a heading's permalink.
QUIET_LINKS = {"term-link", "headerlink"}
_CODE_LABELS = {"filename", "code-lang"}  # a highlighted block's language or file name
_CJK = f"{CJK_CHARS}{CJK_PUNCTUATION}"
_CJK_BREAK = re.compile(f"(?<=[{_CJK}])[ \\t\\r\\f]*\\n[ \\t\\r\\n\\f]*(?=[{_CJK}])")


def html_to_text(html: str) -> str:
    """``html`` as plain text (blocks apart by a blank line, no trailing spaces)."""
    text = _TextConverter().convert(html)
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n")


def _classes(element):
    return set(element.get("class") or ())


class _TextConverter(MarkdownConverter):
    class Options:
        heading_style = ATX
        bullets = "-"
        escape_asterisks = False
        escape_underscores = False
        # Whitespace collapsed as a browser collapses it; lines never wrapped.
        wrap = True
        wrap_width = None
        code_language_callback = staticmethod(
            lambda pre: next(
                (
                    label.get_text(strip=True)
                    for label in pre.find_previous_siblings()
                    if _classes(label) & _CODE_LABELS
                ),
                "",
            )
        )

    def convert_soup(self, soup):
        # Joined before markdownify turns each line break into a space; a break at the edge
        # of a text is judged by the characters of the texts around it.
        for string in soup.find_all(string=re.compile("\n")):
            if string.find_parent("pre") is not None:
                continue
            before = string.find_previous(string=True) or ""
            after = string.find_next(string=True) or ""
            padded = f"{before[-1:] or ' '}{string}{after[:1] or ' '}"
            string.replace_with(_CJK_BREAK.sub("", padded)[1:-1])
        return super().convert_soup(soup)

    def convert_a(self, el, text, parent_tags):
        if "_noformat" in parent_tags:
            return text
        classes, href = _classes(el), el.get("href") or ""
        before, after = " " * text.startswith(" "), " " * text.endswith(" ")
        text = text.strip()
        if "footnote-backref" in classes or not text:
            return ""
        if "footnote-ref" in classes:
            return f"{before}[{text}]{after}"
        if not href or QUIET_LINKS & classes or href in {text, f"mailto:{text}"}:
            return f"{before}{text}{after}"
        return f"{before}{text} <{href}>{after}"

    def convert_img(self, el, text, parent_tags):
        alt, src = (el.get("alt") or "").strip(), el.get("src") or ""
        return f"[{alt}] <{src}>" if alt else f"<{src}>"

    def convert_math(self, el, text, parent_tags):
        # Where two text marks meet (the space after a comma, then ``\\qquad``'s): one space.
        return re.sub(" {2,}", " ", text)

    def convert_span(self, el, text, parent_tags):
        # The label is the code block's fence's (code_language_callback).
        return "" if _classes(el) & _CODE_LABELS else text

    def convert_input(self, el, text, parent_tags):
        if el.get("type") != "checkbox":
            return text
        return "[x]" if el.has_attr("checked") else "[ ]"
