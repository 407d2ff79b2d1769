"""The reference a reader pastes into their own text, in the note's language: GB/T 7714-2015 for
a Chinese note, an APA-like style (APA 7's blog post) for an English one.

    作者. 标题[EB/OL]. 译者, 译. 站点名, 2025-03-01. https://….
    Author. (2025, March 1). Title (Translator, Trans.). Site. https://…
"""

import re

from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe

from blog.text.bilingual import html_lang
from blog.text.citation.record import Citation, Name
from blog.text.cjk import CJK_CHARS, CJK_PUNCTUATION

MONTHS = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
# GB/T 7714 names three authors, then "等" ("et al.").
GBT_AUTHORS_SHOWN = 3
_ENDS_A_SENTENCE = (".", "?", "!", "。", "？", "！")
_CJK_RUN = re.compile(f"[{CJK_CHARS}][{CJK_CHARS}{CJK_PUNCTUATION}]*")


def reference(citation: Citation) -> str:
    """The reference as plain text, on one line."""
    return gbt_7714(citation) if citation.is_chinese else apa(citation)


def reference_html(citation: Citation):
    """The reference for an HTML page in the note's language: in an English reference, Chinese
    runs (a site title such as "笔记 biji") carry their own ``lang``, for screen readers and
    fonts."""
    text = reference(citation)
    if citation.is_chinese:
        return escape(text)
    parts, last = [], 0
    for run in _CJK_RUN.finditer(text):
        parts.append(escape(text[last : run.start()]))
        parts.append(format_html('<span lang="{}">{}</span>', html_lang("zh-hans"), run[0]))
        last = run.end()
    parts.append(escape(text[last:]))
    return mark_safe("".join(parts))  # noqa: S308 (each part escaped above)


def sentence(text) -> str:
    """``text`` ending in a full stop, unless it already ends a sentence."""
    return text if text.endswith(_ENDS_A_SENTENCE) else text + "."


# GB/T 7714-2015: an electronic resource ([EB/OL]), names as its rules for authors write them.


def gbt_name(name: Name) -> str:
    """Family name in capitals, then initials without stops: "SHANKHDHAR P"; Chinese names and
    names kept as typed stay as they are."""
    if name.literal:
        return name.literal
    return f"{name.family.upper()} {name.initials(dot='')}".strip()


def gbt_names(names) -> str:
    shown = [gbt_name(name) for name in names[:GBT_AUTHORS_SHOWN]]
    if len(names) > GBT_AUTHORS_SHOWN:
        shown.append("等")
    return ", ".join(shown)


def gbt_7714(citation: Citation) -> str:
    parts = []
    if citation.authors:
        parts.append(sentence(gbt_names(citation.authors)))
    parts.append(f"{citation.title}[EB/OL].")
    if citation.translators:
        parts.append(f"{gbt_names(citation.translators)}, 译.")
    day = citation.published.isoformat() if citation.published else ""
    parts.append(f"{citation.site}, {day}." if day else sentence(citation.site))
    parts.append(f"{citation.url}.")
    original = citation.original
    if original is not None and (original.title or original.url):
        source = [f"{original.title}[EB/OL]." if original.title else ""]
        if original.published:
            source.append(f"({original.published.isoformat()}).")
        source.append(f"{original.url}." if original.url else "")
        parts.append("原文：" + " ".join(part for part in source if part))
    return " ".join(parts)


# APA 7: a blog post, and a translated work's translator and original.


def apa_name(name: Name) -> str:
    """Family name and initials ("Shankhdhar, P."); names kept as typed stay as they are."""
    return name.literal or f"{name.family}, {name.initials()}"


def apa_translator(name: Name) -> str:
    """A translator, initials first: "P. Shankhdhar"."""
    return name.literal or f"{name.initials()} {name.family}"


def apa_list(items) -> str:
    """Names as APA lists them: "A & B", "A, B, & C"; "A, B., & C, D." for inverted names."""
    if len(items) < 2:
        return "".join(items)
    comma = "," if len(items) > 2 or "," in items[0] else ""
    return ", ".join(items[:-1]) + f"{comma} & {items[-1]}"


def apa_date(day) -> str:
    return f"{day.year}, {MONTHS[day.month - 1]} {day.day}" if day else "n.d."


def apa(citation: Citation) -> str:
    title = citation.title
    if citation.translators:
        title += f" ({apa_list([apa_translator(name) for name in citation.translators])}, Trans.)"
    when = f"({apa_date(citation.published)})."
    if citation.authors:
        parts = [sentence(apa_list([apa_name(name) for name in citation.authors])), when]
        parts.append(sentence(title))
    else:  # the title takes the author's place
        parts = [sentence(title), when]
    parts += [sentence(citation.site), citation.url]
    original = citation.original
    if original is not None:
        head = "Original work"
        if original.published:
            head += f" published {original.published.year}"
        details = ", ".join(
            part for part in (f"“{original.title}”" if original.title else "", original.url) if part
        )
        if details:
            parts.append(f"({head}: {details})")
        elif original.published:
            parts.append(f"({head})")
    return " ".join(parts)
