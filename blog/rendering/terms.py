"""Glossary terms marked in sanitised HTML: the first use per section links to the glossary, with a
``hidden`` tooltip. One automaton for every form, so linear in the text; leftmost longest; never in
code, math, links or headings. The HTML outside the marks stays byte for byte."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from html import escape, unescape
from itertools import islice

from blog.text.cjk import CJK_CHARS, CJK_PUNCTUATION
from blog.text.longest_forms import LongestForms

SKIPPED_TAGS = frozenset(
    {"a", "code", "pre", "kbd", "samp", "math", "script", "style", "summary", "label", "rt", "rp"}
    | {"h1", "h2", "h3", "h4", "h5", "h6"}
)
SKIPPED_CLASSES = frozenset(
    {"math-display", "math-inline", "highlight", "filename", "admonition-title", "toc", "term"}
)
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
# Elements inside a line of text: the text on either side of them reads as one (a word next to
# inline code is no word on its own). Every other element separates the text around it, as do
# superscripts, subscripts and formulas, which stand apart from the word they follow.
INLINE_TAGS = frozenset(
    {"a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "del", "dfn", "em", "i", "ins"}
    | {"kbd", "mark", "q", "s", "samp", "small", "span", "strong", "time", "u", "var"}
)
VOID_TAGS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
TRANSPARENT_CLASS = "autospace"
# Where the HTML lets no mark cover the longest form at a place (it would cut an autospace span
# or an entity), how many shorter forms there are tried: a bound, so nested forms stay linear.
SHORTER_TRIED = 8

# Sanitised HTML as nh3 writes it: double-quoted attributes, "<" and "&" escaped in text.
_TOKEN = re.compile(r"<!--.*?-->|<(/?)([a-zA-Z][^\s/>]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>", re.S)
_CLASS_ATTR = re.compile(r"""(?:^|\s)class\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")
_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[a-zA-Z][a-zA-Z0-9]*);")
_SEPARATOR = "\x00"  # between blocks: never part of a form, and no letter
_WHITESPACE = str.maketrans({c: " " for c in "\t\n\r\f\v\u00a0\u3000"})


@dataclass(frozen=True)
class TermEntry:
    """A glossary term as a note in one language meets it."""

    slug: str
    forms: tuple[str, ...]  # the forms text in the note's language may use
    href: str  # the term's anchor on the glossary page, in the note's interface
    tip: str = ""  # inline HTML: the definition's first paragraph ("" for no tooltip)
    tip_lang: str = ""  # the tip's HTML lang ("zh-Hans", "en")


@dataclass(frozen=True)
class Marked:
    html: str
    used: frozenset[str]  # slugs of every term used in the text (marked or not)


def _fold(text: str) -> str:
    """``text`` lower-cased, every kind of space a plain space, its length unchanged (so that
    positions in it are positions in ``text``)."""
    text = text.translate(_WHITESPACE)
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def _classes(attrs: str) -> set[str]:
    match = _CLASS_ATTR.search(attrs)
    if not match:
        return set()
    return set(next(group for group in match.groups() if group is not None).split())


class _Text:
    """The text of an HTML document as one string, and where each piece of it stands in the source.
    Pieces in one ``group`` are separated only by ``autospace`` tags, so a mark may span them."""

    def __init__(self, html: str):
        self.html = html
        parts: list[str] = []
        self.length = 0
        # Per piece: start in text, end in text, start in source, entity?, skipped?, group,
        # autospace span (-1 for none).
        self.starts: list[int] = []
        self.pieces: list[tuple[int, int, int, bool, bool, int, int]] = []
        # Per autospace span: (start of its open tag, end of it, start of its close tag, end).
        self.spans: list[list[int]] = []
        self.sections: list[int] = []  # where each heading starts, in text
        group, span = 0, -1
        stack: list[tuple[str, bool, bool]] = []  # (tag, skipped, autospace)
        skipped = False

        def add_text(source_start: int, source_end: int) -> None:
            position = source_start
            for entity in _ENTITY.finditer(html, source_start, source_end):
                add_piece(position, html[position : entity.start()], False)
                add_piece(entity.start(), unescape(entity.group()), True)
                position = entity.end()
            add_piece(position, html[position:source_end], False)

        def add_piece(source_start: int, text: str, entity: bool) -> None:
            if not text:
                return
            start, end = self.length, self.length + len(text)
            self.starts.append(start)
            self.pieces.append((start, end, source_start, entity, skipped, group, span))
            parts.append(text)
            self.length = end

        def separate() -> None:
            nonlocal group
            group += 1
            if parts and parts[-1] != _SEPARATOR:
                parts.append(_SEPARATOR)
                self.length += 1

        position = 0
        for token in _TOKEN.finditer(html):
            if token.start() > position:
                add_text(position, token.start())
            position = token.end()
            closing, tag, attrs = token.group(1), token.group(2), token.group(3)
            if tag is None:  # a comment
                group += 1
                continue
            tag = tag.lower()
            if closing:
                if not any(frame[0] == tag for frame in stack):
                    continue
                while stack:
                    frame_tag, _, autospace = stack.pop()
                    if autospace:
                        self.spans[span] += [token.start(), token.end()]
                        span = -1
                    if frame_tag == tag:
                        break
                skipped = stack[-1][1] if stack else False
                if not autospace:
                    group += 1
                if tag not in INLINE_TAGS:
                    separate()
                continue
            classes = _classes(attrs) if "class" in attrs else set()
            if tag in HEADINGS:
                self.sections.append(self.length)
            if tag not in INLINE_TAGS:
                separate()
            if tag in VOID_TAGS or attrs.rstrip().endswith("/"):
                group += 1
                continue
            autospace = tag == "span" and TRANSPARENT_CLASS in classes and span == -1
            skipped = skipped or tag in SKIPPED_TAGS or bool(classes & SKIPPED_CLASSES)
            stack.append((tag, skipped, autospace))
            if autospace:
                span = len(self.spans)
                self.spans.append([token.start(), token.end()])
            else:
                group += 1
        if position < len(html):
            add_text(position, len(html))
        self.text = "".join(parts)

    def barriers(self) -> tuple[list[int], list[tuple[int, int]]]:
        """Where in ``text`` a form may not run across (an element begins or ends, the
        autospace spans aside), and the ranges of skipped text."""
        breaks, skipped, group = [], [], None
        for start, end, _, _, is_skipped, piece_group, _ in self.pieces:
            if piece_group != group:
                breaks.append(start)
                group = piece_group
            if is_skipped:
                skipped.append((start, end))
        return breaks, skipped

    def piece_at(self, position: int) -> int:
        return bisect_right(self.starts, position) - 1

    def source_range(self, start: int, end: int) -> tuple[int, int] | None:
        """The source range a mark of ``text[start:end]`` covers, or None when no mark can
        (skipped text, across elements, part of an entity or of an autospace span)."""
        first, last = self.piece_at(start), self.piece_at(end - 1)
        if first < 0:
            return None
        a_start, a_end, a_source, a_entity, a_skipped, a_group, a_span = self.pieces[first]
        b_start, b_end, b_source, b_entity, _, b_group, b_span = self.pieces[last]
        if a_skipped or a_group != b_group or start >= a_end or end > b_end:
            return None
        if (a_entity and start != a_start) or (b_entity and end != b_end):
            return None
        source_start = a_source if a_entity else a_source + start - a_start
        source_end = b_source + (len(self.raw(last)) if b_entity else end - b_start)
        if a_span != b_span:
            if a_span != -1:  # begins an autospace span: the mark takes the span in whole
                open_start, open_end, *_ = self.spans[a_span]
                if source_start != open_end:
                    return None
                source_start = open_start
            if b_span != -1:
                span = self.spans[b_span]
                if len(span) < 4 or source_end != span[2]:
                    return None
                source_end = span[3]
        return source_start, source_end

    def raw(self, index: int) -> str:
        """An entity piece's source text."""
        source = self.pieces[index][2]
        return _ENTITY.match(self.html, source).group()


class TermMatcher:
    """Every form of every term in one automaton; :meth:`mark` marks a note's HTML."""

    def __init__(self, entries):
        self.entries: list[TermEntry] = list(entries)
        # A form two terms share belongs to the first (entries come in slug order).
        self.forms = LongestForms(
            (_fold(" ".join(form.split())), index)
            for index, entry in enumerate(self.entries)
            for form in entry.forms
        )
        self.empty = self.forms.empty

    def mark(self, html: str) -> Marked:
        if self.empty or not html:
            return Marked(html, frozenset())
        text = _Text(html)
        found = self._uses(text)
        marks, used, seen, counts = [], set(), set(), {}
        for start, source_start, source_end, index in found:
            slug = self.entries[index].slug
            used.add(slug)
            section = bisect_right(text.sections, start)
            if (section, slug) in seen:
                continue
            seen.add((section, slug))
            counts[slug] = counts.get(slug, 0) + 1
            marks.append((source_start, source_end, self.entries[index], counts[slug]))
        out, position = [], 0
        for source_start, source_end, entry, number in marks:
            out += [
                html[position:source_start],
                *_markup(entry, number, html[source_start:source_end]),
            ]
            position = source_end
        out.append(html[position:])
        return Marked("".join(out), frozenset(used))

    def _uses(self, text: _Text):
        """Every use of a term, in order, none overlapping: (start in text, source start, source
        end, entry index), leftmost longest, at most :data:`SHORTER_TRIED` shorter forms tried per
        place."""
        found, taken_until = [], 0
        for start, forms in self.forms.find(_fold(text.text), *text.barriers()):
            if start < taken_until:
                continue
            for length, index in islice(forms, 1 + SHORTER_TRIED):
                source = text.source_range(start, start + length)
                if source is not None:
                    found.append((start, *source, index))
                    taken_until = start + length
                    break
        return found


def _markup(entry: TermEntry, number: int, inner: str) -> list[str]:
    slug = escape(entry.slug, quote=True)
    href = escape(entry.href, quote=True)
    if not entry.tip:
        return [f'<span class="term"><a class="term-link" href="{href}">', inner, "</a></span>"]
    tip_id = f"term-{slug}-{number}"
    lang = f' lang="{escape(entry.tip_lang, quote=True)}"' if entry.tip_lang else ""
    return [
        f'<span class="term"><a class="term-link" href="{href}" aria-describedby="{tip_id}">',
        inner,
        # hidden: not part of the text until shown (the stylesheet shows it on hover, focus or
        # tap); the link's description reads it all the same.
        f'</a><span class="term-tip" role="tooltip" id="{tip_id}"{lang} hidden>'
        f"{entry.tip}</span></span>",
    ]


# --- The tooltip ------------------------------------------------------------------------------

# What a tooltip keeps of a paragraph: phrasing that reads the same inside a link's tooltip.
# Links are unwrapped (a tooltip is no place to click), footnote references dropped with their
# number, images and anything else dropped as tags (their text stays).
_TIP_TAGS = frozenset(
    {"abbr", "b", "bdi", "bdo", "cite", "code", "data", "del", "dfn", "em", "i", "ins", "kbd"}
    | {"mark", "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var"}
)
_FIRST_PARAGRAPH = re.compile(r"<p\b[^>]*>(.*?)</p>", re.S)
_FOOTNOTE_REF = re.compile(r'<sup id="fnref[^"]*">.*?</sup>', re.S)
_ID_ATTR = re.compile(r'\s+id="[^"]*"')
# A tooltip is one line: a line break of the source between two Chinese characters is no
# space (as in the search text), any other run of spaces is one.
_CJK_TEXT = CJK_CHARS + CJK_PUNCTUATION
_CJK_LINE_BREAK = re.compile(f"(?<=[{_CJK_TEXT}])[ \t]*\n\\s*(?=[{_CJK_TEXT}])")
_SPACE_RUN = re.compile(r"\s+")


def tip_html(definition_html: str) -> str:
    """The first paragraph of a rendered definition as inline HTML for a tooltip."""
    match = _FIRST_PARAGRAPH.search(definition_html or "")
    if not match:
        return ""
    paragraph = _FOOTNOTE_REF.sub("", match.group(1))
    out, position, in_math = [], 0, 0
    for token in _TOKEN.finditer(paragraph):
        out.append(paragraph[position : token.start()])
        position = token.end()
        closing, tag = token.group(1), (token.group(2) or "").lower()
        if tag == "math":
            in_math += -1 if closing else 1
            out.append(token.group())
        elif in_math or tag in _TIP_TAGS:
            out.append(_ID_ATTR.sub("", token.group()))
    out.append(paragraph[position:])
    return _SPACE_RUN.sub(" ", _CJK_LINE_BREAK.sub("", "".join(out))).strip()
