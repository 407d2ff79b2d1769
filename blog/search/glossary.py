"""A query's words that are a glossary form find the term's other forms in both languages, at most
:data:`MAX_SPELLINGS` each, or nested forms would make a huge OR."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from django.db import DEFAULT_DB_ALIAS

from blog.models import Language, Term
from blog.models.glossary import split_variants
from blog.search.text import Query, fold, parse_query, term_for
from blog.text.cjk import CJK_CHARS

_CJK, _OTHER = f"[{CJK_CHARS}]", f"[^{CJK_CHARS}\\W]"  # a CJK character; a letter or digit
# A space between scripts ("warp 束"), and a place where they meet unspaced ("warp束").
_SPACE_BETWEEN_SCRIPTS_RE = re.compile(f"(?<={_CJK}) (?={_OTHER})|(?<={_OTHER}) (?={_CJK})")
_SCRIPTS_MEET_RE = re.compile(f"(?<={_CJK})(?={_OTHER})|(?<={_OTHER})(?={_CJK})")
MAX_SPELLINGS = 16


@dataclass(frozen=True)
class Form:
    text: str  # as the glossary writes it
    language: str  # Language.ENGLISH or Language.CHINESE
    key: str  # the form as a query's words: what a query is compared with
    spellings: tuple[str, ...]  # folded, as looked for in the index


@dataclass(frozen=True)
class Glossary:
    terms: tuple[tuple[Form, ...], ...]  # each term's forms
    index: dict[str, tuple[int, ...]]  # a form's key → the terms (positions) with that form
    longest: int = 0  # the most words in a key


def _key(text: str) -> str:
    """``text`` as the words a query typing it is made of: ``warp束`` is ``warp 束``."""
    return " ".join(term.text for term in parse_query(text).terms)


def _spellings(text: str) -> tuple[str, ...]:
    """How a note may write the form, folded: where scripts meet, glued and spaced."""
    folded = fold(text)
    glued = _SPACE_BETWEEN_SCRIPTS_RE.sub("", folded)
    spaced = _SCRIPTS_MEET_RE.sub(" ", glued)
    return tuple(dict.fromkeys(spelling for spelling in (folded, glued, spaced) if spelling))


def _forms(term: Term) -> tuple[Form, ...]:
    english = {term.english, *split_variants(term.english_variants)} - {""}
    forms = []
    for text in term.all_forms():
        key = _key(text)
        if key:
            language = Language.ENGLISH if text in english else Language.CHINESE
            forms.append(Form(text, language, key, _spellings(text)))
    return tuple(forms)


def build_glossary(terms) -> Glossary:
    """The search's view of these terms (anything with ``Term``'s fields and ``all_forms()``)."""
    all_forms = tuple(forms for forms in map(_forms, terms) if forms)
    index: dict[str, tuple[int, ...]] = {}
    for position, forms in enumerate(all_forms):
        for key in dict.fromkeys(form.key for form in forms):
            index[key] = (*index.get(key, ()), position)
    longest = max((len(key.split(" ")) for key in index), default=0)
    return Glossary(all_forms, index, longest)


def load_glossary(using=DEFAULT_DB_ALIAS) -> Glossary:
    """The glossary as search uses it, in one query."""
    fields = ("english", "chinese", "english_variants", "chinese_variants", "keep_in_english")
    return build_glossary(Term.objects.using(using).only(*fields).order_by("pk"))


def _form_at(query: Query, glossary: Glossary, start: int) -> tuple[int, tuple[int, ...]]:
    """(end, terms) of the longest run of the query's terms from ``start`` that is a form: one
    quoted phrase, or unquoted words; (start, ()) if there is none."""
    terms, quoted = query.terms, query.quoted or (False,) * len(query.terms)
    for end in range(min(len(terms), start + glossary.longest), start, -1):
        if end - start > 1 and any(quoted[start:end]):
            continue
        found = glossary.index.get(" ".join(term.text for term in terms[start:end]))
        if found:
            return end, found
    return start, ()


def expand(query: Query, glossary: Glossary) -> Query:
    """``query`` with each word or phrase that is a glossary form grouped with the term's
    other forms (:attr:`Query.expanded`), and the forms added (:attr:`Query.also`)."""
    if not glossary.index or not query.terms:
        return query
    groups, also, shown = [], [], set()
    start = 0
    while start < len(query.terms):
        end, found = _form_at(query, glossary, start)
        if not found:
            groups.append((query.terms[start],))
            start += 1
            continue
        typed = query.terms[start:end]
        typed_key = " ".join(term.text for term in typed)
        # Several typed words are the form itself ("shared memory"): looked for as the form,
        # like a phrase, not as words anywhere in the note.
        group = dict.fromkeys(typed) if len(typed) == 1 else {}
        for position in found:
            for form in glossary.terms[position]:
                room = MAX_SPELLINGS - len(group)
                if room <= 0:
                    break
                group.update(dict.fromkeys(list(map(term_for, form.spellings))[:room]))
                if form.key != typed_key and form.key not in shown:
                    shown.add(form.key)
                    also.append((form.text, form.language))
        groups.append(tuple(group))
        start = end
    return replace(query, expanded=tuple(groups), also=tuple(also))
