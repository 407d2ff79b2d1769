"""Search text: folding (NFKC, case-fold, dashes as spaces), query parsing (split where CJK meets
other letters; every term required) and the indexed document, shared so all fold alike. Short Latin
terms match whole words, the rest substrings."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import Enum

from blog.text.cjk import CJK_CHARS, CJK_RE

MAX_QUERY_CHARS = 200
MAX_TERMS = 12
MIN_SUBSTRING_CHARS = 3  # the trigram tokenizer's (and pg_trgm's) minimum

_CJK_RUN_RE = re.compile(f"[{CJK_CHARS}]+")
_SCRIPT_RUN_RE = re.compile(f"[{CJK_CHARS}]+|[^{CJK_CHARS}]+")  # "warp调度" → "warp", "调度"
# Letters and digits that are not CJK: one "word" of Latin, Greek, Cyrillic, digits...
WORD_CHAR = f"(?:(?![{CJK_CHARS}])[^\\W_])"
WORD_RE = re.compile(f"{WORD_CHAR}+")
_QUERY_TOKEN_RE = re.compile(r'"([^"]*)"|“([^”]*)”|([^\s"“”]+)')
_TERM_SEPARATOR_RE = re.compile(r"[,;、。!?]+")
_KEEP_AT_END = "+#"  # c++, c#


class _FoldTable(dict):
    """``str.translate`` table, filled lazily. Format characters and lone surrogates are dropped
    ("Flash\u200bAttention" is one word) and collected in :attr:`vanishing`."""

    def __init__(self):
        super().__init__()
        self.vanishing: set[str] = set()

    def __missing__(self, code):
        char = chr(code)
        category = unicodedata.category(char)
        if category in {"Cf", "Cs"}:
            folded = ""
            self.vanishing.add(char)
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
    # (translate() has looked every character up, so ``vanishing`` knows all of text's. A
    # substring search per vanishing character, not a set of the text's characters: snippets
    # fold whole notes, and the set took half as long as the folding itself.)
    if len(folded) == len(text) and not any(char in text for char in _FOLD.vanishing):
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
    terms: tuple[Term, ...]  # what the reader typed, as terms
    truncated: bool = False  # the text was cut at MAX_QUERY_CHARS
    terms_dropped: bool = False  # terms after the first MAX_TERMS were ignored
    # Which terms were typed in quotes (one flag per term): a glossary form of several words
    # is recognised across unquoted words only.
    quoted: tuple[bool, ...] = ()
    # Once the glossary has been looked at (blog.search.glossary.expand): one group per word
    # or phrase of the query, a glossary term's group holding each of its forms.
    expanded: tuple[tuple[Term, ...], ...] | None = None
    also: tuple[tuple[str, str], ...] = ()  # (form, language) searched for besides the terms

    @property
    def groups(self) -> tuple[tuple[Term, ...], ...]:
        """What a note must have: one term of every group."""
        if self.expanded is not None:
            return self.expanded
        return tuple((term,) for term in self.terms)

    @property
    def marked(self) -> tuple[Term, ...]:
        """The terms that titles and snippets mark: the typed ones and the forms added."""
        return tuple(dict.fromkeys(term for group in self.groups for term in group))


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
    if all(CJK_RE.match(char) for char in term):
        return Kind.CJK
    if WORD_RE.fullmatch(term):
        return Kind.WORD
    return Kind.SCAN


def parse_query(raw: str | None) -> Query:
    """Parse what the reader typed. Never fails: anything unusable is dropped."""
    raw = raw or ""
    truncated = len(raw) > MAX_QUERY_CHARS
    raw = raw[:MAX_QUERY_CHARS]
    shown = " ".join("".join(c for c in raw if c.isprintable() or c.isspace()).split())
    terms: list[Term] = []
    quoted: list[bool] = []
    for match in _QUERY_TOKEN_RE.finditer(fold(raw)):
        phrase = match.group(1) if match.group(1) is not None else match.group(2)
        if phrase is not None:
            parts = [phrase]
        else:
            words = _TERM_SEPARATOR_RE.split(match.group(3))
            parts = [run for word in words for run in _SCRIPT_RUN_RE.findall(word)]
        for part in parts:
            text = " ".join(_strip_edges(part).split())
            if text and all(term.text != text for term in terms):
                terms.append(Term(text, _kind(text)))
                quoted.append(phrase is not None)
    return Query(
        text=shown,
        terms=tuple(terms[:MAX_TERMS]),
        truncated=truncated,
        terms_dropped=len(terms) > MAX_TERMS,
        quoted=tuple(quoted[:MAX_TERMS]),
    )


def term_for(text: str) -> Term:
    """``text`` (folded) looked for as one term, like a quoted phrase."""
    return Term(text, _kind(text))


# --- The indexed document ---------------------------------------------------------------------


@dataclass(frozen=True)
class Document:
    """What a note is found by, folded: the fields of its ``SearchDocument`` row.

    ``text`` is title, tags and body one per line (a term never spans fields); ``*_grams`` hold the
    short units space-separated, with spaces at both ends, so ``' 调度 '`` is found whole.
    """

    title: str
    tags: str  # one tag name per line, English and Chinese names both
    text: str
    title_grams: str
    tag_grams: str
    grams: str  # of title, tags and body together


def short_units(text: str) -> set[str]:
    units: set[str] = set()
    for run in _CJK_RUN_RE.findall(text):
        units.update(run)
        units.update(run[i : i + 2] for i in range(len(run) - 1))
    units.update(word for word in WORD_RE.findall(text) if len(word) < MIN_SUBSTRING_CHARS)
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
        text=f"{title}\n{tags}\n{body}",
        title_grams=_padded(title_units),
        tag_grams=_padded(tag_units),
        grams=_padded(title_units | tag_units | short_units(body)),
    )
