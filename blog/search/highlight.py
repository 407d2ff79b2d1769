"""Highlighted titles and snippets of results: matches found in the folded text, as the index found
them, marked at the original characters."""

from __future__ import annotations

import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from blog.search.text import WORD_CHAR, WORD_RE, Kind, fold_with_offsets

SNIPPET_CHARS = 140
# A snippet is looked for in the first this many characters of a note's text: a long note's
# best match is rarely further, and a results page of 1 MB notes stays a few milliseconds.
SNIPPET_SCAN_CHARS = 20_000


def _term_pattern(terms) -> re.Pattern | None:
    parts = []
    for term in sorted(terms, key=lambda t: len(t.text), reverse=True):
        pattern = re.escape(term.text).replace("\\ ", " +")
        if term.kind is Kind.WORD:
            # The term first, then the look-behind: a pattern that starts with a literal is
            # searched for far faster than one that starts with a look-behind.
            pattern = f"{pattern}(?<!{WORD_CHAR}{pattern})(?!{WORD_CHAR})"
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
    if start > 0 and WORD_RE.fullmatch(text[start - 1 : start + 1]):
        space = text.find(" ", start, min(best, start + 20))
        start = space + 1 if space >= 0 else start
    if end < len(text) and WORD_RE.fullmatch(text[end - 1 : end + 1]):
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
    whole = text or ""
    text = whole[:SNIPPET_SCAN_CHARS]
    spans = _find_spans(text, terms)
    start, end = _window(text, spans, width)
    html = _render(text, spans, start, end).strip()
    if start > 0:
        html = "…" + html
    if end < len(whole):
        html += "…"
    return mark_safe(html)
