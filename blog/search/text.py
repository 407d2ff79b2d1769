"""Search text: folding, query parsing, the indexed document and highlighted snippets.

Pure functions, no ORM: the index writer, the query and the view all go through here, so the
text that is indexed, the terms that are looked up and the snippets that are highlighted are
folded the same way.

Matching rule (the same on SQLite and PostgreSQL):

* Text is *folded*: NFKC (full-width ``Ｈ１００`` is ``H100``), case-folded (``cuBLAS`` is
  ``cublas``), dashes read as spaces (``FlashAttention-3`` is ``flashattention 3``), control
  and format characters dropped, whitespace collapsed.
* A query is cut to :data:`MAX_QUERY_CHARS` characters and split into terms at whitespace
  (and ``，、。；！？``); ``"a quoted phrase"`` (or ``“…”``) is one term. Punctuation at the
  ends of a term is dropped, so FTS syntax (``NEAR(``, ``-x``, ``a*``, ``^``, ``:``) is just
  text. Every term must match (AND), in the title, a tag name (either language) or the body.
* A term of three or more characters matches as a substring (``调度器``, ``cublas``,
  ``flashattention 3``), through the trigram index.
* A term of one or two CJK characters (``调``, ``算子``) matches as a substring too, through
  the n-gram column: every CJK character and pair of adjacent characters of a note.
* A term of one or two letters or digits (``3``, ``go``, ``c``) matches a whole word: as a
  substring it would match nearly every note. Other short terms (``a调``, ``c+``) are checked
  as substrings row by row after the other terms have narrowed the notes down.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import Enum

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from ..text_stats import CJK_CHARS

MAX_QUERY_CHARS = 200
MAX_TERMS = 12
SNIPPET_CHARS = 140
MIN_SUBSTRING_CHARS = 3  # the trigram tokenizer's (and pg_trgm's) minimum

_CJK = CJK_CHARS
_CJK_RE = re.compile(f"[{_CJK}]")
_CJK_RUN_RE = re.compile(f"[{_CJK}]+")
# Letters and digits that are not CJK: one "word" of Latin, Greek, Cyrillic, digits...
_WORD_CHAR = f"(?:(?![{_CJK}])[^\\W_])"
_WORD_RE = re.compile(f"{_WORD_CHAR}+")
_QUERY_TOKEN_RE = re.compile(r'"([^"]*)"|“([^”]*)”|([^\s"“”]+)')
_TERM_SEPARATOR_RE = re.compile(r"[,;、。!?]+")
_KEEP_AT_END = "+#"  # c++, c#


# Format characters (Unicode 15's Cf: soft hyphen, zero-width space and joiners, bidi marks,
# BOM...) and lone surrogates: dropped, so "Flash\u200bAttention" is one word.
_VANISHING_RE = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f\ud800-\udfff]"
)


class _FoldTable(dict):
    """``str.translate`` table, filled lazily: one character → its folded form."""

    def __missing__(self, code):
        char = chr(code)
        category = unicodedata.category(char)
        if _VANISHING_RE.match(char):
            folded = ""
        elif char.isspace() or category in {"Cc", "Pd"}:
            folded = " "  # dashes too: "FlashAttention-3" is found by "FlashAttention 3"
        else:
            folded = unicodedata.normalize("NFKC", char).casefold()
        self[code] = folded
        return folded


_FOLD = _FoldTable()


def fold(text: str) -> str:
    """The form text is indexed and searched in (see the module docstring)."""
    return " ".join((text or "").translate(_FOLD).split())


def fold_with_offsets(text: str) -> tuple[str, list[int] | None]:
    """``text`` folded character by character, whitespace not collapsed, and for every folded
    character the index of the original character it came from (``None``: the same index)."""
    folded = text.translate(_FOLD)
    # Nothing dropped and nothing longer (NFKC makes "…" "..."): one character for one.
    if len(folded) == len(text) and not _VANISHING_RE.search(text):
        return folded, None
    return folded, [i for i, char in enumerate(text) for _ in _FOLD[ord(char)]]


# --- Queries ----------------------------------------------------------------------------------


class Kind(Enum):
    SUBSTRING = "substring"  # three characters or more: trigram index
    CJK = "cjk"  # one or two CJK characters: n-gram column, substring
    WORD = "word"  # one or two letters/digits: n-gram column, whole word
    SCAN = "scan"  # any other short term: substring, checked row by row


@dataclass(frozen=True)
class Term:
    text: str  # folded
    kind: Kind


@dataclass(frozen=True)
class Query:
    text: str  # what the reader typed, cut and cleaned, to show back in the search box
    terms: tuple[Term, ...]
    truncated: bool = False  # the text was cut at MAX_QUERY_CHARS
    terms_dropped: bool = False  # terms after the first MAX_TERMS were ignored


def _is_edge_noise(char: str) -> bool:
    if char.isspace():
        return True
    if char.isascii():
        return not char.isalnum()
    return unicodedata.category(char).startswith("P")


def _strip_edges(term: str) -> str:
    start, end = 0, len(term)
    while start < end and _is_edge_noise(term[start]):
        start += 1
    while end > start and _is_edge_noise(term[end - 1]) and term[end - 1] not in _KEEP_AT_END:
        end -= 1
    return term[start:end]


def cjk_units(text: str) -> list[str]:
    """The pairs of adjacent CJK characters in ``text`` (a lone one by itself): what a note
    that contains ``text`` has among its n-grams."""
    units = []
    for run in _CJK_RUN_RE.findall(text):
        units += [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
    return list(dict.fromkeys(units))


def _kind(term: str) -> Kind:
    if len(term) >= MIN_SUBSTRING_CHARS:
        return Kind.SUBSTRING
    if all(_CJK_RE.match(char) for char in term):
        return Kind.CJK
    if _WORD_RE.fullmatch(term):
        return Kind.WORD
    return Kind.SCAN


def parse_query(raw: str | None) -> Query:
    """Parse what the reader typed. Never fails: anything unusable is dropped."""
    raw = raw or ""
    truncated = len(raw) > MAX_QUERY_CHARS
    raw = raw[:MAX_QUERY_CHARS]
    shown = " ".join("".join(c for c in raw if c.isprintable() or c.isspace()).split())
    terms: list[Term] = []
    for match in _QUERY_TOKEN_RE.finditer(fold(raw)):
        phrase = match.group(1) if match.group(1) is not None else match.group(2)
        parts = [phrase] if phrase is not None else _TERM_SEPARATOR_RE.split(match.group(3))
        for part in parts:
            text = " ".join(_strip_edges(part).split())
            if text and all(term.text != text for term in terms):
                terms.append(Term(text, _kind(text)))
    return Query(
        text=shown,
        terms=tuple(terms[:MAX_TERMS]),
        truncated=truncated,
        terms_dropped=len(terms) > MAX_TERMS,
    )


# --- The indexed document ---------------------------------------------------------------------


@dataclass(frozen=True)
class Document:
    """One row of the search table: what a note is found by, folded.

    The ``*_grams`` fields hold the short units, space-separated with a space at both ends so
    that ``' 调度 '`` can be looked for as a whole: every CJK character and pair of adjacent
    CJK characters, and every word of one or two letters or digits.
    """

    title: str
    tags: str  # one tag name per line, English and Chinese names both
    body: str
    title_grams: str
    tag_grams: str
    grams: str  # of title, tags and body together


def short_units(text: str) -> set[str]:
    units: set[str] = set()
    for run in _CJK_RUN_RE.findall(text):
        units.update(run)
        units.update(run[i : i + 2] for i in range(len(run) - 1))
    units.update(word for word in _WORD_RE.findall(text) if len(word) < MIN_SUBSTRING_CHARS)
    return units


def _padded(units: set[str]) -> str:
    return f" {' '.join(sorted(units))} " if units else " "


def build_document(title: str, tag_names, plain_text: str) -> Document:
    title = fold(title)
    names = list(dict.fromkeys(name for name in map(fold, tag_names) if name))
    tags = "\n".join(names)
    body = fold(plain_text)
    title_units = short_units(title)
    tag_units = set().union(*map(short_units, names))
    return Document(
        title=title,
        tags=tags,
        body=body,
        title_grams=_padded(title_units),
        tag_grams=_padded(tag_units),
        grams=_padded(title_units | tag_units | short_units(body)),
    )


# --- Highlighting -----------------------------------------------------------------------------


def _term_pattern(terms) -> re.Pattern | None:
    parts = []
    for term in sorted(terms, key=lambda t: len(t.text), reverse=True):
        pattern = re.escape(term.text).replace("\\ ", " +")
        if term.kind is Kind.WORD:
            # The term first, then the look-behind: a pattern that starts with a literal is
            # searched for far faster than one that starts with a look-behind.
            pattern = f"{pattern}(?<!{_WORD_CHAR}{pattern})(?!{_WORD_CHAR})"
        parts.append(pattern)
    return re.compile("|".join(parts)) if parts else None


def _find_spans(text: str, terms) -> list[tuple[int, int, str]]:
    """(start, end, folded term) of each match in ``text``, in original character offsets."""
    pattern = _term_pattern(terms)
    if pattern is None or not text:
        return []
    folded, offsets = fold_with_offsets(text)
    spans = []
    for match in pattern.finditer(folded):
        start, end = match.span()
        if offsets is not None:
            start, end = offsets[start], offsets[end - 1] + 1
        if spans and start < spans[-1][1]:
            continue  # overlaps the previous match once mapped back
        spans.append((start, end, " ".join(match.group().split())))
    return spans


def _render(text: str, spans, start: int, end: int) -> str:
    html, position = [], start
    for span_start, span_end, _ in spans:
        if span_start < start or span_end > end:
            continue
        html.append(escape(text[position:span_start]))
        html.append(f"<mark>{escape(text[span_start:span_end])}</mark>")
        position = span_end
    html.append(escape(text[position:end]))
    return "".join(html)


def highlight(text: str, terms) -> SafeString:
    """All of ``text``, HTML-escaped, with ``<mark>`` around every match of the terms."""
    text = text or ""
    return mark_safe(_render(text, _find_spans(text, terms), 0, len(text)))


def _window(text: str, spans, width: int) -> tuple[int, int]:
    """The stretch of ``text`` to show: the one with the most different terms in it."""
    if not spans:
        return 0, min(len(text), width)
    best, best_terms, all_terms = spans[0][0], 0, len({term for _, _, term in spans})
    for i, (window_start, _, _) in enumerate(spans[:100]):
        found = set()
        for _, span_end, term in spans[i:]:
            if span_end > window_start + width:
                break
            found.add(term)
        if len(found) > best_terms:
            best, best_terms = window_start, len(found)
            if best_terms == all_terms:
                break
    start = max(0, best - width // 4)
    end = min(len(text), start + width)
    start = max(0, min(start, end - width))
    # Do not cut a Latin word in two when a space is near.
    if start > 0 and _WORD_RE.fullmatch(text[start - 1 : start + 1]):
        space = text.find(" ", start, min(best, start + 20))
        start = space + 1 if space >= 0 else start
    if end < len(text) and _WORD_RE.fullmatch(text[end - 1 : end + 1]):
        space = text.rfind(" ", max(start, end - 20), end)
        end = space if space > start else end
    # Nor a match: a cut term would be shown unmarked.
    for span_start, span_end, _ in spans:
        if span_start < end < span_end:
            end = span_end
        if span_start < start < span_end:
            start = span_start
    return start, end


def snippet(text: str, terms, width: int = SNIPPET_CHARS) -> SafeString:
    """About ``width`` characters of ``text`` around its best match, HTML-escaped, with
    ``<mark>`` around the matched terms and "…" where the text was cut."""
    text = text or ""
    spans = _find_spans(text, terms)
    start, end = _window(text, spans, width)
    html = _render(text, spans, start, end).strip()
    if start > 0:
        html = "…" + html
    if end < len(text):
        html += "…"
    return mark_safe(html)
