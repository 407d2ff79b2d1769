"""The home page, a note's page, and its staff and share-link previews."""

from functools import partial

from django.http import Http404
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.utils.translation import get_language
from django.views import generic

from blog.caching import memoised, parts, site_settings
from blog.models import Note, Tag
from blog.models.citation import citation_of, note_path
from blog.models.corrections import (
    counterpart_correction,
    latest_correction,
    with_latest_corrections,
)
from blog.models.credits import authors_of
from blog.models.series import part_numbers
from blog.models.share_links import check_share_token
from blog.public.related import related_notes
from blog.public.translation_notice import parallel_path, translation_notice
from blog.public.views.base import (
    CachePolicyMixin,
    PublishedNoteMixin,
    can_preview,
)
from blog.public.views.citation import cite_box
from blog.text.bilingual import html_lang
from blog.text.site_url import absolute_url
from blog.text.validators import safe_url

# What a note's page reads of the note, of its series, and of its translation (the link, the
# "Also in" line and the notice that it changed).
PAGE_FIELDS = (
    "title", "slug", "language", "status", "published_at", "updated_at", "series",
    "series_position", "translation", "source_title", "source_author", "source_url",
    "source_date", "translator", "coauthors", "cover", "cover_alt", "cover_html", "card",
    "body_html", "toc_html", "excerpt", "word_count", "reading_minutes", "block_hashes",
    "synced_hashes", "text_changed_at",
)  # fmt: skip
SERIES_FIELDS = ("title_zh", "title_en", "slug", "card_zh", "card_en")
# The head's meta tags (includes/note_head.html) and the article, series box and related notes
# (includes/note_content.html), which a published note's kept page data holds rendered, and
# the fields only the article reads.
HEAD_TEMPLATE = "includes/note_head.html"
ARTICLE_TEMPLATE = "includes/note_content.html"
ARTICLE_FIELDS = ("body_html", "toc_html", "cover_html")
LINK_FIELDS = (
    "title", "slug", "language", "status", "published_at", "updated_at", "translation",
    "block_hashes", "synced_hashes", "text_changed_at",
)  # fmt: skip


class HomeView(PublishedNoteMixin, generic.ListView):
    template_name = "blog/note_list.html"


def series_parts(note):
    """The published parts of the note's series, in order, in one query, a translated pair as one
    part in the note's language. A previewed note is slotted in at its position; parts are numbered
    by :mod:`blog.models.series`."""
    parts = list(
        Note.objects.published()
        .in_interface(note.language)
        .filter(series_id=note.series_id)
        .only("pk", "title", "slug", "language", "series_id", "series_position", "published_at")
    )
    if all(part.pk != note.pk for part in parts):
        parts.append(note)
    parts.sort(
        key=lambda n: (n.series_position is None, n.series_position or 0, n.published_at or 0, n.pk)
    )
    index = next(i for i, part in enumerate(parts) if part.pk == note.pk)
    numbers = part_numbers([part.series_position for part in parts])
    return {
        "series": note.series,
        "parts": parts,
        "number": note.series_position,
        "total": numbers.total,
        "count": numbers.count,
        "missing": numbers.missing,
        "previous": parts[index - 1] if index > 0 else None,
        "next": parts[index + 1] if index + 1 < len(parts) else None,
    }


def people(names):
    """schema.org Persons: one as an object, several as a list."""
    found = [{"@type": "Person", "name": str(name)} for name in names]
    return found[0] if len(found) == 1 else found


def linked_note(other):
    """The other note of a translated pair, as a work JSON-LD links to."""
    return {
        "@type": "BlogPosting",
        "name": other.title,
        "url": absolute_url(note_path(other)),
        "inLanguage": html_lang(other.language),
    }


def note_jsonld(note, tags, site, url, counterpart=None):
    """The note as a BlogPosting (Google's Article): by the site's author and co-authors, with its
    translator and licence as its citation credits them (:mod:`blog.models.citation`), and the
    work it translates (a translated article's source, or the published original of a pair) or
    its published translation."""
    citation = citation_of(note, site)
    data = {
        "@context": "https://schema.org",
        "@type": "BlogPosting",
        "headline": note.title,
        "description": note.excerpt,
        "inLanguage": html_lang(note.language),
        "url": url,
        "mainEntityOfPage": url,
        "wordCount": note.word_count,
        "timeRequired": f"PT{note.reading_minutes}M",
    }
    if note.published_at:
        data["datePublished"] = note.published_at.isoformat()
    if note.updated_at:
        data["dateModified"] = note.updated_at.isoformat()
    if writers := authors_of(note, site.author):
        data["author"] = people(writers)
    if citation.translators:
        data["translator"] = people(citation.translators)
    if citation.licence_url or citation.licence:
        data["license"] = citation.licence_url or citation.licence
    if tags:
        data["keywords"] = [tag.display_name for tag in tags]
    if note.cover:
        data["image"] = absolute_url(note.cover.url)
    if note.series_id:
        data["isPartOf"] = {
            "@type": "CreativeWorkSeries",
            "name": note.series.display_name,
            "url": absolute_url(note.series.get_absolute_url()),
        }
    if note.is_translated_article:
        original = {"@type": "CreativeWork"}
        if note.source_title:
            original["name"] = note.source_title
        if note.source_author:
            original["author"] = {"@type": "Person", "name": note.source_author}
        if safe_url(note.source_url):
            original["url"] = note.source_url
        data["translationOfWork"] = original
    elif counterpart is not None and note.translation_id == counterpart.pk:
        data["translationOfWork"] = linked_note(counterpart)  # the translation holds the link
    elif counterpart is not None:
        data["workTranslation"] = linked_note(counterpart)
    return data


class NoteDetailView(CachePolicyMixin, generic.DetailView):
    """A published note; staff with the note permissions also see drafts and scheduled notes
    (with a banner and never-cache headers). Anyone else gets a 404 for those."""

    model = Note
    template_name = "blog/note_detail.html"
    context_object_name = "note"

    def get_queryset(self):
        # Only the columns the page shows: a note has ~35 (its source, derived text, parallel
        # blocks…), and compiling every one of three notes' columns was a third of a cold page.
        # With the newest correction of the note and of its translation, in the same query.
        notes = Note.objects.select_related("series", "translation", "translated_from").only(
            *PAGE_FIELDS,
            *(f"series__{name}" for name in SERIES_FIELDS),
            *(f"translation__{name}" for name in LINK_FIELDS),
            *(f"translated_from__{name}" for name in LINK_FIELDS),
        )
        return with_latest_corrections(notes)

    def get_object(self, queryset=None):
        slug = self.kwargs["slug"]
        kept = memoised(
            f"note-page:{get_language()}:{slug}",
            partial(self.published_page, slug),
            keep=lambda page: page is not None,  # made-up slugs add no entries
        )
        if kept is not None:
            note, self.shown = kept
            return note
        # Only now is the session read: published pages never vary on the cookie.
        if can_preview(self.request.user):
            note = self.get_queryset().filter(slug=slug).first()
            if note is not None:
                self.private = True
                return note
        raise Http404("No published note here.")

    def published_page(self, slug):
        """What the page of the published note at ``slug`` shows but the site's frame, kept once per
        content version and interface language: most of the page's template time. None: no published
        note there."""
        note = self.get_queryset().published().filter(slug=slug).first()
        if note is None:
            return None
        shown = self.shown_beside(note)
        shown["jsonld"] = self.jsonld(note, shown["tags"], shown["counterpart"])
        # The "Cite" box and the citation meta tags, rendered into the kept head and article.
        context = {"note": note, "noindex": False, **shown, **cite_box(note)}
        shown["head"] = render_to_string(HEAD_TEMPLATE, context, request=self.request)
        shown["article"] = render_to_string(ARTICLE_TEMPLATE, context)
        # The article holds the rendered text: kept in the note too, it would double what
        # each page keeps (Django would read a dropped field again if it were asked for).
        for name in ARTICLE_FIELDS:
            note.__dict__.pop(name, None)
        return note, shown

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        note = self.object
        shown = getattr(self, "shown", None) or self.shown_beside(note)
        context.update(
            shown,
            preview_status=self.preview_status(note),
            noindex=not note.is_published(),
        )
        if "jsonld" not in context:
            context["jsonld"] = self.jsonld(note, context["tags"], context["counterpart"])
        self.depend_on_what_is_shown(note, context)
        return context

    def jsonld(self, note, tags, counterpart):
        url = absolute_url(self.request.path)
        return note_jsonld(note, tags, site_settings(), url, counterpart)

    def shown_beside(self, note):
        """The note's tags, its published translation (with the notice that it changed and the
        parallel view), its series' parts and related notes."""
        tags = self.tags_of(note)
        counterpart = note.counterpart
        if counterpart is not None and not counterpart.is_published():
            counterpart = None
        exclude = {note.pk} | ({counterpart.pk} if counterpart else set())
        return {
            "tags": tags,
            "counterpart": counterpart,
            # Under the title when the other version changed since this one was brought in line
            # (with the other's correction, if it is one this note may lack).
            "translation_notice": translation_notice(
                note, counterpart, correction=counterpart_correction(note)
            ),
            "corrections": self.corrections_of(note),
            "parallel_url": parallel_path(note, counterpart),
            "series_box": series_parts(note) if note.series_id else None,
            "related": self.related(note, tags, exclude),
        }

    @staticmethod
    def corrections_of(note):
        """The note's corrections, newest first: one query, only for a note that has one (the
        page's query read its newest)."""
        if latest_correction(note) is None:
            return []
        return list(note.corrections.only("text", "made_at", "note_id"))

    @staticmethod
    def tags_of(note):
        """The note's tags by slug (the same order on every database), in one plain query:
        taggit's prefetch of them cost 1 ms more a page, most of a cold note's database work."""
        return list(Tag.objects.filter(tagged_notes__content_object=note).order_by("slug"))

    @staticmethod
    def depend_on_what_is_shown(note, context):
        """The parts the page shows: the note, its translation, related notes and series parts, and
        the lists it chose them from."""
        shown = [note, context["counterpart"], *context["related"]]
        if context["series_box"]:
            shown += context["series_box"]["parts"]
            parts.depend_on(parts.series(note.series_id))
        parts.depend_on(
            *(parts.note(each.pk) for each in shown if each is not None),
            *(parts.tag(tag.pk) for tag in context["tags"]),
        )

    def related(self, note, tags, exclude):
        """Related notes, once per content version for a published note; a draft's preview always
        asks, as its tags move no version."""
        find = partial(related_notes, note, [tag.pk for tag in tags], exclude)
        if not note.is_published():
            return find()
        return memoised(f"related:{note.pk}", find)

    def preview_status(self, note):
        if note.is_published():
            return None
        return "scheduled" if note.is_scheduled else "draft"


class NoteShareView(NoteDetailView):
    """A secret share link: the note as readers will see it, never cached or indexed. A bad or stale
    token is a 404; a note published since redirects to its page."""

    private = True

    def get_object(self, queryset=None):
        note = self.get_queryset().filter(slug=self.kwargs["slug"]).first()
        if note is None or not check_share_token(note, self.kwargs["token"]):
            raise Http404("This share link is not valid.")
        return note

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context.update(noindex=True, share_link=True)
        return context

    def get(self, request, *args, **kwargs):
        self.object = self.get_object()
        if self.object.is_published():
            # Published since the link was made: send the reader to the public page.
            return redirect(self.object)
        return self.render_to_response(self.get_context_data(object=self.object))
