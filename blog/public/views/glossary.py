"""The glossary (术语表): terms under their index letter, and a page per term, read in three queries
per language once per content state."""

from dataclasses import dataclass, field

from django.db.models import Q, Value
from django.http import Http404
from django.utils.html import strip_tags
from django.utils.text import Truncator
from django.utils.translation import get_language
from django.views import generic

from blog.caching import memoised, parts
from blog.models import Language, Term, TermUse
from blog.models.glossary import split_variants
from blog.public.views.base import CachePolicyMixin, listed_notes
from blog.text.bilingual import html_lang
from blog.text.collation import OTHER_INITIAL, index_initial, index_key
from blog.text.slug_urls import slug_path

# How many of the notes that use a term the glossary page lists; the term's page lists all.
NOTES_SHOWN = 5


@dataclass(frozen=True, eq=False)
class NoteLink:
    """A note as the glossary lists it: one object per note, shared by every term it uses
    (compared and hashed as the object, which is cheap for a hundred thousand uses)."""

    pk: int
    title: str
    slug: str
    language: str
    lang: str  # the language as HTML's lang attribute writes it

    @property
    def url(self):
        # When shown, not when read: the glossary page shows a few of the notes it reads.
        return slug_path("blog:note-detail", self.slug)


@dataclass
class Entry:
    """A term as one interface shows it: its name there, then the other language's."""

    slug: str
    name: str
    name_lang: str
    other_name: str
    other_lang: str
    variants: list  # [(form, lang)]
    keep_in_english: bool
    definition: str  # HTML
    definition_lang: str
    other_definition: str  # HTML, the other language's ("" when it is the one shown)
    other_definition_lang: str
    initial: str
    explained_in: list = field(default_factory=list)
    used_in: list = field(default_factory=list)

    @property
    def url(self):
        return slug_path("blog:glossary-term", self.slug)

    @property
    def both_names(self):
        return " / ".join(filter(None, (self.name, self.other_name)))

    @property
    def description(self):
        """The definition as plain text, short enough for a page's description."""
        text = " ".join(strip_tags(self.definition).split())
        return Truncator(text).chars(160)

    @property
    def notes(self):
        return [*self.explained_in, *self.used_in]

    @property
    def shown_used_in(self):
        """The notes that use it as the glossary page lists them: the newest few."""
        return self.used_in[:NOTES_SHOWN]

    @property
    def more_notes(self):
        """How many of the notes that use it the glossary page leaves to the term's page."""
        return max(0, len(self.used_in) - NOTES_SHOWN)


@dataclass(frozen=True)
class Group:
    initial: str
    entries: list

    @property
    def anchor(self):
        letter = "other" if self.initial == OTHER_INITIAL else self.initial.lower()
        return f"initial-{letter}"


def glossary_entries(language):
    """Every term as the interface ``language`` shows it, in index order (memoised)."""
    return memoised(f"glossary:{language}", lambda: _read_entries(language))


def _read_entries(language):
    entries = {term.pk: _entry(term, language) for term in Term.objects.all()}
    if entries:
        _add_notes(entries)
    # Sorted by the name the interface files it under; ties (the same name) by slug.
    return sorted(entries.values(), key=lambda entry: (index_key(entry.name), entry.slug))


def _entry(term, language):
    other = Language.ENGLISH if language == Language.CHINESE else Language.CHINESE
    own_name = term.chinese if language == Language.CHINESE else term.english
    other_name = term.english if language == Language.CHINESE else term.chinese
    own_definition, other_definition = (
        (term.definition_zh_html, term.definition_en_html)
        if language == Language.CHINESE
        else (term.definition_en_html, term.definition_zh_html)
    )
    name = own_name or other_name
    # The interface language's spellings first.
    variants = [(form, html_lang(language)) for form in _variants(term, language)]
    variants += [(form, html_lang(other)) for form in _variants(term, other)]
    return Entry(
        slug=term.slug,
        name=name,
        name_lang=html_lang(language if own_name else other),
        other_name=other_name if own_name else "",
        other_lang=html_lang(other),
        variants=variants,
        keep_in_english=term.keep_in_english,
        definition=own_definition or other_definition,
        definition_lang=html_lang(language if own_definition else other),
        other_definition=other_definition if own_definition else "",
        other_definition_lang=html_lang(other),
        initial=index_initial(name),
    )


def _variants(term, language):
    """The other accepted forms of ``language`` (the term's name there left out)."""
    field = "chinese" if language == Language.CHINESE else "english"
    name = getattr(term, field)
    forms = split_variants(getattr(term, f"{field}_variants"))
    return [form for form in forms if form.casefold() != name.casefold()]


def _add_notes(entries):
    """Each entry's notes, as the interface lists them: two queries for all the terms."""
    explaining = Term.explained_in.through.objects.values_list("term_id", "note_id")
    links = list(
        TermUse.objects.values_list("term_id", "note_id")
        .annotate(explains=Value(False))
        .union(explaining.annotate(explains=Value(True)), all=True)
    )
    used = TermUse.objects.values("note_id")
    explained = explaining.values("note_id")
    # A pair is one entry: the listed note stands for itself and for its other note.
    shown = {}
    notes = (
        listed_notes()
        .filter(
            Q(pk__in=used)
            | Q(pk__in=explained)
            | Q(translation_id__in=used)
            | Q(translation_id__in=explained)
            | Q(translated_from__in=used)
            | Q(translated_from__in=explained)
        )
        .values_list("pk", "title", "slug", "language", "translation_id", "translated_from")
    )
    order = {}
    for pk, title, slug, language, translation_id, translated_from in notes:
        link = NoteLink(pk, title, slug, language, html_lang(language))
        order[pk] = len(order)
        for note_id in (pk, translation_id, translated_from):
            if note_id is not None:
                shown[note_id] = link
    for term_id, note_id, explains in links:
        link, entry = shown.get(note_id), entries.get(term_id)
        if link is None or entry is None:
            continue
        (entry.explained_in if explains else entry.used_in).append(link)
    for entry in entries.values():
        # Each pair once, newest first (the lists' order); explaining it is the stronger tie.
        explained_in = sorted(set(entry.explained_in), key=lambda link: order[link.pk])
        entry.explained_in = explained_in
        entry.used_in = sorted(set(entry.used_in) - set(explained_in), key=lambda n: order[n.pk])


def grouped(entries):
    """Entries under their initials, in order (the entries are sorted already)."""
    groups = []
    for entry in entries:
        if not groups or groups[-1].initial != entry.initial:
            groups.append(Group(entry.initial, []))
        groups[-1].entries.append(entry)
    return groups


def show(notes):
    """Name the parts a glossary page shows: the glossary, which notes the lists hold (a note
    published or unpublished), and ``notes``, whose titles it shows."""
    parts.depend_on(parts.GLOSSARY, parts.NOTES, *(parts.note(link.pk) for link in notes))


class GlossaryView(CachePolicyMixin, generic.TemplateView):
    """Every term, grouped by initial, with an index of the initials at the top."""

    template_name = "blog/glossary.html"

    def get_context_data(self, **kwargs):
        entries = glossary_entries(get_language())
        show(link for entry in entries for link in (*entry.explained_in, *entry.shown_used_in))
        return super().get_context_data(groups=grouped(entries), term_count=len(entries), **kwargs)


class TermDetailView(CachePolicyMixin, generic.TemplateView):
    """One term: its forms, both definitions, every note that explains or uses it."""

    template_name = "blog/glossary_term.html"

    def get_context_data(self, **kwargs):
        slug = self.kwargs["slug"]
        entry = next((e for e in glossary_entries(get_language()) if e.slug == slug), None)
        if entry is None:
            raise Http404("No such term.")
        show(entry.notes)
        return super().get_context_data(term=entry, **kwargs)
