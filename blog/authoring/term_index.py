"""Every form of every glossary term in one automaton, matched as the render step marks them
(:mod:`blog.rendering.terms`): English forms case-insensitively on word boundaries, a plural's
"s" or "es" taken in; Chinese forms anywhere; the longest form at a place wins, so a use inside
a longer term's form is not one of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from blog.models import Language, Term
from blog.text.cjk import CJK_RE
from blog.text.longest_forms import LongestForms, is_letter


def _fold(text: str) -> str:
    """``text`` lower-cased, its length unchanged (positions in it are positions in ``text``)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def _key(form: str) -> str:
    return _fold(" ".join(form.split()))


def _word_end(text: str, start: int, end: int, form: str) -> int | None:
    """Where the use of ``form`` at ``text[start:end]`` ends, or None when it is no use: Latin ends
    stand on word boundaries (a plural's "s" or "es" taken in); Chinese ends need none."""
    if is_letter(form[0]) and start > 0 and is_letter(text[start - 1]):
        return None
    if not is_letter(form[-1]):
        return end
    for suffix in ("", "s", "es"):
        after = end + len(suffix)
        if text.startswith(suffix, end) and not (after < len(text) and is_letter(text[after])):
            return after
    return None


@dataclass(frozen=True)
class Use:
    start: int
    end: int
    key: str  # the form, folded
    terms: tuple[int, ...]  # the terms (by index in the glossary) that have this form


class GlossaryIndex:
    """The forms' automaton, and the forms each term is accepted in per language."""

    def __init__(self, terms):
        self.terms: list[Term] = list(terms)
        self.accepted: dict[str, list[frozenset[str]]] = {
            language: [frozenset(map(_key, term.forms(language))) for term in self.terms]
            for language in Language.values
        }
        owners: dict[str, list[int]] = {}
        for index, term in enumerate(self.terms):
            for form in term.all_forms():
                if key := _key(form):
                    owners.setdefault(key, [])
                    if index not in owners[key]:
                        owners[key].append(index)
        # A form ending with a letter takes an English plural's "s" or "es" in; where a plural
        # is spelt like another form, the form that sorts first has it.
        spellings: dict[str, tuple[str, tuple[int, ...]]] = {}
        for key, indexes in owners.items():
            owner = (key, tuple(indexes))
            for suffix in ("", "s", "es") if is_letter(key[-1]) else ("",):
                spellings[key + suffix] = min(spellings.get(key + suffix, owner), owner)
        self.forms = LongestForms(spellings.items())
        self.empty = not owners
        self._parts: dict[tuple[str, int], list[str]] = {}

    def parts(self, language: str, term: int) -> list[str]:
        """The ends of the term's accepted forms in ``language``, made at their first need."""
        key = (language, term)
        if key not in self._parts:
            self._parts[key] = _parts(self.accepted[language][term])
        return self._parts[key]

    def uses(self, text: str) -> list[Use]:
        """The uses of terms in ``text`` (one line of prose), in order, none overlapping: leftmost
        longest, in time linear in the text."""
        if self.empty or not text:
            return []
        found, taken_until = [], 0
        for start, forms in self.forms.find(_fold(text)):
            if start >= taken_until:
                length, (key, terms) = next(iter(forms))
                found.append(Use(start, start + length, key, terms))
                taken_until = start + length
        return found


def _parts(accepted):
    """The ends of a term's accepted forms, longest first: the last characters of a Chinese form
    (束 of 线程束), the last words of an English one ("memory" of "shared memory")."""
    parts = set()
    for form in accepted:
        if CJK_RE.match(form[-1]):
            end = len(form)
            while end > 0 and CJK_RE.match(form[end - 1]):
                end -= 1
            parts.update(form[start:] for start in range(max(end, 1), len(form)))
        else:
            words = form.split(" ")
            parts.update(" ".join(words[start:]) for start in range(1, len(words)))
    parts -= set(accepted)
    return sorted(parts, key=lambda part: (-len(part), part))


def _find(part, folded):
    start = folded.find(part)
    while start != -1:
        if (end := _word_end(folded, start, start + len(part), part)) is not None:
            return start, end
        start = folded.find(part, start + 1)
    return None
