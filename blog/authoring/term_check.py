"""A translation's glossary terms, checked against the other note of its pair: the editor's
"Term check" panel and the change list's count. Warnings only: nothing here refuses a save.

For each term the other note uses in a paragraph, the part of this note beside it (the parallel
view's alignment; the whole note where nothing is beside it) must use the term in a form the
glossary accepts in this note's language. If not, a warning: **missing**, or **under another
form**: a form the term has in the other language, or, where no accepted form is, an end of one
(束 of 线程束, "memory" of "shared memory"). A synonym reads as missing: the glossary does not
know it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, Max

from blog.authoring.term_index import GlossaryIndex, Use, _find, _fold
from blog.authoring.term_prose import one_line, prose
from blog.models import Language, Term
from blog.text.alignment import ParallelBlock, align, passages
from blog.text.blocks import CODE, MATH, RULE, TOC, Block, split_blocks

MISSING, OTHER_FORM = "missing", "other-form"

SKIPPED_KINDS = frozenset({CODE, MATH, RULE, TOC})
EXCERPT_CONTEXT = 60  # characters shown on each side of a term in a warning's paragraph

_indexes: dict[str, tuple[tuple, GlossaryIndex]] = {}  # alias → (version, index): replaced whole


def glossary_index(using="default") -> GlossaryIndex:
    """The glossary's index, built again only when a term was added, changed or deleted since:
    one query asks."""
    state = Term.objects.using(using).aggregate(count=Count("pk"), latest=Max("updated_at"))
    version = (state["count"], state["latest"])
    built = _indexes.get(using)
    if built is None or built[0] != version:
        terms = Term.objects.using(using).order_by("slug") if version[0] else []
        built = _indexes[using] = (version, GlossaryIndex(terms))
    return built[1]


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
    """The warnings for ``text`` in ``language`` against ``other_text`` in ``other_language``, its
    original or translation, in the other note's order."""
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
    """True when ``blocks`` use ``term`` in an accepted form; else the form they use instead (block
    number, start, end in its prose), or None."""
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
    """The paragraph as written (``line``: :meth:`_Note.line`) around the first ``mark`` in it; its
    start when ``mark`` is not there as such."""
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
