"""A translation's glossary terms, checked against the other note of its pair while the author
writes: the editor's "Term check" panel (:mod:`.term_check_view`) and the change list's count
(:mod:`.term_warnings`). Warnings only: nothing here refuses a save.

For each glossary term the other note uses (any of the term's forms, in either language), the
part of this note that translates the paragraph where the term is must use the term in a form
the glossary accepts in this note's language (:meth:`blog.models.Term.forms`). If it does not,
a warning, one per term and paragraph of the other note:

* **missing**: the term is not there in any form;
* **under another form**: the term is there in a form the glossary does not accept here. Two
  kinds of it can be told from the glossary alone: a form the term has in the other language
  ("warp" left in English in a Chinese note, for a term not kept in English); and a part of an
  accepted form, its end — Chinese and English compounds end with their head word: 束 for
  线程束, 内存 for 共享内存, "memory" for "shared memory". Only where no accepted form is,
  so it names what the author wrote instead (束 of 结束 too: the paragraph shown says which).
  Any other rendering (a synonym) reads as missing: the glossary does not know it.

Which part of this note translates a paragraph: the blocks the parallel view sets beside it
(:mod:`blog.text.alignment`), one block for one where the structures agree, else the run of
unmatched blocks around it; for a block with nothing beside it (a section not translated yet)
the whole note. Both notes are read as Markdown blocks (:func:`blog.text.blocks.split_blocks`):
code blocks and formulas are skipped, and inside a block so are inline code, inline math,
keyboard input, link addresses, URLs and HTML tags. Headings and link texts count: a term in a
heading translated two ways is the worst kind of slip.

Terms match as the render step marks them (:mod:`blog.rendering.terms`): English forms
case-insensitively on word boundaries (a plural's "s" or "es" taken in: "warps"), Chinese forms
anywhere in text without spaces (线程束 in 「每个线程束都」); the longest form wins where
several start at one place, so a use inside a longer term's form is not one of its own. One
Aho-Corasick automaton holds every form of every term, built once per glossary version and
process.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import unescape

from django.db.models import Count, Max

from blog.models import Language, Term
from blog.rendering.mathml import INLINE_MATH_RE
from blog.text.alignment import ParallelBlock, align, passages
from blog.text.blocks import CODE, MATH, RULE, TOC, Block, split_blocks
from blog.text.cjk import CJK_CHARS, CJK_PUNCTUATION, CJK_RE
from blog.text.longest_forms import LongestForms, is_letter

MISSING, OTHER_FORM = "missing", "other-form"

SKIPPED_KINDS = frozenset({CODE, MATH, RULE, TOC})
EXCERPT_CONTEXT = 60  # characters shown on each side of a term in a warning's paragraph

# --- a block's prose ----------------------------------------------------------------------------

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


# --- matching -----------------------------------------------------------------------------------


def _fold(text: str) -> str:
    """``text`` lower-cased, its length unchanged (positions in it are positions in ``text``)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


def _key(form: str) -> str:
    return _fold(" ".join(form.split()))


def _word_end(text: str, start: int, end: int, form: str) -> int | None:
    """Where the use of ``form`` at ``text[start:end]`` ends, or None when it is no use: a
    form's Latin ends stand on word boundaries (an English plural's "s" or "es" taken in:
    "warps", "SMs"); its Chinese ends need none."""
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
    """Every form of every term in one automaton, and the forms each term is accepted in per
    language."""

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
        """The ends of the term's accepted forms in ``language`` (:func:`_parts`), made at
        their first need, once per index."""
        key = (language, term)
        if key not in self._parts:
            self._parts[key] = _parts(self.accepted[language][term])
        return self._parts[key]

    def uses(self, text: str) -> list[Use]:
        """The uses of terms in ``text`` (one line of prose), in order, none overlapping:
        leftmost longest, in time linear in the text (:mod:`blog.text.longest_forms`)."""
        if self.empty or not text:
            return []
        found, taken_until = [], 0
        for start, forms in self.forms.find(_fold(text)):
            if start >= taken_until:
                length, (key, terms) = next(iter(forms))
                found.append(Use(start, start + length, key, terms))
                taken_until = start + length
        return found


_indexes: dict[str, tuple[tuple, GlossaryIndex]] = {}  # alias → (version, index): replaced whole


def glossary_index(using="default") -> GlossaryIndex:
    """The glossary's index, built again only when a term was added, changed or deleted since
    (one query asks: the number of terms and the latest change)."""
    state = Term.objects.using(using).aggregate(count=Count("pk"), latest=Max("updated_at"))
    version = (state["count"], state["latest"])
    built = _indexes.get(using)
    if built is None or built[0] != version:
        terms = Term.objects.using(using).order_by("slug") if version[0] else []
        built = _indexes[using] = (version, GlossaryIndex(terms))
    return built[1]


# --- the check ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Excerpt:
    """A paragraph as written, around a marked piece of it (``mark`` may be empty)."""

    before: str
    mark: str
    after: str

    def __str__(self):
        return f"{self.before}{self.mark}{self.after}"


@dataclass(frozen=True)
class TermWarning:
    term: Term
    kind: str  # MISSING or OTHER_FORM
    expected: tuple[str, ...]  # the forms the glossary accepts in this note's language
    used: str  # the term as the other note writes it there
    found: str  # OTHER_FORM: the form written here instead ("" for MISSING)
    other_block: int  # which block of the other note (0 for the first)
    other_paragraph: Excerpt
    here_paragraph: Excerpt | None  # the block beside it here; None: none, or several

    def as_dict(self, language):
        return {
            "term": self.term.slug,
            "name": self.term.name(language),
            "kind": self.kind,
            "expected": list(self.expected),
            "used": self.used,
            "found": self.found,
            "other_block": self.other_block,
            "other_paragraph": str(self.other_paragraph),
            "here_paragraph": str(self.here_paragraph) if self.here_paragraph else "",
        }


@dataclass
class _Note:
    """A note's blocks, each block's prose and the uses of terms in it."""

    language: str
    blocks: list[Block]
    prose: dict[int, str] = field(default_factory=dict)
    uses: dict[int, list[Use]] = field(default_factory=dict)
    folded: dict[int, str] = field(default_factory=dict)  # each block's prose, folded
    uses_of: dict[int, dict[int, list[Use]]] = field(default_factory=dict)  # block → term → uses
    lines: dict[int, tuple[str, str]] = field(default_factory=dict)  # block → (one_line, folded)

    @classmethod
    def read(cls, text, language, index):
        note = cls(language, split_blocks(text))
        for number, block in enumerate(note.blocks):
            if block.kind not in SKIPPED_KINDS:
                note.prose[number] = prose(block)
                note.folded[number] = _fold(note.prose[number])
                note.uses[number] = index.uses(note.prose[number])
                uses_of = note.uses_of[number] = {}
                for use in note.uses[number]:
                    for term in use.terms:
                        uses_of.setdefault(term, []).append(use)
        return note

    def line(self, number) -> tuple[str, str]:
        """A block as written, on one line, and folded: read once for all its warnings."""
        if number not in self.lines:
            text = one_line(self.blocks[number].text)
            self.lines[number] = text, _fold(text)
        return self.lines[number]


def check_terms(text, language, other_text, other_language, index=None) -> list[TermWarning]:
    """The warnings for a note in ``language`` whose text is ``text``, translated from (or
    into) ``other_text`` in ``other_language``: in the other note's order."""
    if language == other_language or language not in Language.values:
        return []
    index = index if index is not None else glossary_index()
    if index.empty:
        return []
    here = _Note.read(text, language, index)
    other = _Note.read(other_text, other_language, index)
    regions = _regions(other.blocks, here.blocks)
    accepted = index.accepted[language]
    warnings = []
    # Each place of this note is looked at once per term: a term used in many paragraphs
    # without a region of their own is looked for in the whole note once, not once each.
    answers: dict[tuple[tuple[int, ...], int], object] = {}
    for number, uses in other.uses.items():
        seen = set()
        for use in uses:
            for term in use.terms:
                if term in seen:
                    continue
                seen.add(term)
                region = regions.get(number)
                blocks = tuple(region if region else sorted(here.prose))
                if (blocks, term) not in answers:
                    parts = index.parts(language, term)
                    answers[blocks, term] = _accepted_or_other(
                        here, blocks, term, accepted[term], parts
                    )
                found = answers[blocks, term]
                if found is True:
                    continue
                warnings.append(
                    _warning(index.terms[term], language, here, other, number, use, region, found)
                )
    return warnings


def count_warnings(text, language, other_text, other_language, index=None) -> int:
    return len(check_terms(text, language, other_text, other_language, index))


def _regions(other_blocks, here_blocks) -> dict[int, list[int]]:
    """For each block of the other note, the blocks of this note set beside it ([] for none)."""
    rows = align(_shape(other_blocks), _shape(here_blocks))
    regions = {}
    for passage in passages(rows):
        beside = [int(block.hash) for block in passage.right]
        for block in passage.left:
            regions[int(block.hash)] = beside
    return regions


def _shape(blocks):
    # What the alignment reads of a block: its kind and level (its number rides as its hash).
    return [ParallelBlock(block.kind, str(n), "", block.level) for n, block in enumerate(blocks)]


def _accepted_or_other(here, blocks, term, accepted, parts):
    """True when ``blocks`` use ``term`` in an accepted form; else the form they use instead
    (block number, start, end in its prose), or None. ``parts``: :meth:`GlossaryIndex.parts`."""
    other_form = None
    for number in blocks:
        for use in here.uses_of.get(number, {}).get(term, ()):
            if use.key in accepted:
                return True
            other_form = other_form or (number, use.start, use.end)
    if other_form:
        return other_form
    for part in parts:
        for number in blocks:
            if (span := _find(part, here.folded.get(number, ""))) is not None:
                return (number, *span)
    return None


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


def _warning(term, language, here, other, number, use, region, found):
    other_prose = other.prose[number]
    used = other_prose[use.start : use.end]
    here_paragraph = None
    if found is not None:
        block, start, end = found
        here_paragraph = _excerpt(here.line(block), here.prose[block][start:end])
    elif region and len(region) == 1:
        here_paragraph = _excerpt(here.line(region[0]), "")
    return TermWarning(
        term=term,
        kind=OTHER_FORM if found is not None else MISSING,
        expected=tuple(term.forms(language)),
        used=used,
        found=here.prose[found[0]][found[1] : found[2]] if found is not None else "",
        other_block=number,
        other_paragraph=_excerpt(other.line(number), used),
        here_paragraph=here_paragraph,
    )


def _excerpt(line, mark, context=EXCERPT_CONTEXT) -> Excerpt:
    """The paragraph as written (``line``: on one line, and folded: :meth:`_Note.line`) around
    the first ``mark`` in it; its start when ``mark`` is not there as such (split by Markdown,
    or empty)."""
    text, folded = line
    start = folded.find(_fold(mark)) if mark else -1
    if start == -1:
        cut = text[: 2 * context]
        return Excerpt("", "", cut + ("…" if len(text) > len(cut) else ""))
    end = start + len(mark)
    before, after = text[max(0, start - context) : start], text[end : end + context]
    return Excerpt(
        ("…" if start > context else "") + before,
        text[start:end],
        after + ("…" if end + context < len(text) else ""),
    )
