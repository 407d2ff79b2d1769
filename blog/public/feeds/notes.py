"""Full-content RSS 2.0 and Atom 1.0 feeds per scope. A feed's bytes depend on the database alone
(URLs on ``SITE_URL``, a fixed language), so a cached feed and its ETag suit everyone; entry ids are
tag URIs that survive a new title or slug."""

import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.db.models import Max, QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import feedgenerator, translation
from django.utils.html import escape
from django.utils.translation import gettext_lazy as _

from blog.caching import parts, site_settings
from blog.fediverse.ids import ACTIVITY_JSON, linked_actor
from blog.models import Language, Note, Series, SiteSettings, Tag
from blog.models.corrections import (
    counterpart_correction,
    latest_correction,
    with_latest_corrections,
)
from blog.models.credits import coauthor_names
from blog.public.feeds.corrections import correction_html
from blog.public.feeds.websub import hub
from blog.public.translation_notice import translation_notice
from blog.rendering.feed_html import feed_html
from blog.text.bidi import strip_explicit_bidi
from blog.text.site_url import absolute_url

FEED_SIZE = 20
CONTENT_NS = "http://purl.org/rss/1.0/modules/content/"
DC_NS = "http://purl.org/dc/elements/1.1/"
# Not allowed in XML 1.0; Django's writer raises on them (one pasted into a title = a 500).
XML_INVALID = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
# An empty feed still needs a date (Atom <updated>); "now" would change the ETag every request.
EMPTY_FEED_DATE = datetime(2000, 1, 1, tzinfo=UTC)
# What an entry does not show of its note, and of the other version of a pair (the translation
# notice, blog.public.translation_notice, reads its dates, status, slug and block hashes).
UNUSED = ("body", "plain_text", "toc_html", "parallel_blocks")
COUNTERPART = ("translation", "translated_from")
UNUSED_OF_COUNTERPART = (*UNUSED, "body_html", "summary", "excerpt", "synced_hashes", "title")


def xml_text(text):
    return XML_INVALID.sub("", str(text or ""))


def note_tag_uri(note):
    host = urlsplit(settings.SITE_URL).hostname
    authority = settings.BIJI_FEED_ID_AUTHORITY or host
    return f"tag:{authority},{note.created_at.astimezone(UTC).date().isoformat()}:note:{note.pk}"


def xml_title(text):
    # A title is plain text to a feed reader: no control that would reverse it.
    return xml_text(strip_explicit_bidi(str(text or "")))


def tag_category(tag):
    # English first, no empty or repeated name: a tag still waiting for its English name is
    # "调度", not " / 调度".
    return xml_title(" / ".join(name for name in dict.fromkeys((tag.name, tag.name_zh)) if name))


class BijiFeedMixin:
    """What both writers add to Django's: a stable date, the author on every entry, and the
    WebSub hub (``hub``, from :meth:`NoteFeed.feed_extra_kwargs`) beside the self link."""

    link_element = None  # the element a link to another resource is written as

    def add_root_elements(self, handler):
        super().add_root_elements(handler)
        if self.feed.get("hub"):
            handler.addQuickElement(
                self.link_element, None, {"rel": "hub", "href": self.feed["hub"]}
            )
        if actor := self.feed.get("fediverse_actor"):  # the feed's fediverse actor (rel="me")
            for attributes in ({"rel": "me"}, {"rel": "alternate", "type": ACTIVITY_JSON}):
                handler.addQuickElement(self.link_element, None, {**attributes, "href": actor})

    def latest_post_date(self):
        return super().latest_post_date() if self.items else EMPTY_FEED_DATE

    def add_item(self, *args, author_name=None, **kwargs):
        # The blog has one author: each entry names the feed's (read once per request in
        # get_object), so no item method needs the site settings.
        super().add_item(*args, author_name=author_name or self.feed["author_name"], **kwargs)

    @staticmethod
    def credited(item):
        """The entry's co-authors and translator (NoteFeed.credits), but the site's author."""
        return [name for name in item.get("credited", ()) if name != item["author_name"]]


class ContentRssFeed(BijiFeedMixin, feedgenerator.Rss201rev2Feed):
    link_element = "atom:link"  # RSS has no link relations: Atom's, as for rel="self"

    def rss_attributes(self):
        return {**super().rss_attributes(), "xmlns:content": CONTENT_NS}

    def add_item_elements(self, handler, item):
        super().add_item_elements(handler, item)
        # Django's writer names the site's author in a dc:creator; the note's co-authors and
        # its translator each in one more, written as that one.
        for name in self.credited(item):
            handler.addQuickElement("dc:creator", name, {"xmlns:dc": DC_NS})
        handler.addQuickElement("content:encoded", item["content"])


class ContentAtomFeed(BijiFeedMixin, feedgenerator.Atom1Feed):
    link_element = "link"

    def item_attributes(self, item):
        # A mixed feed holds both languages; each entry says which one it is in.
        return {"xml:lang": item["language"]}

    def add_item_elements(self, handler, item):
        super().add_item_elements(handler, item)
        # The site's author is the entry's author; its co-authors and translator contribute.
        for name in self.credited(item):
            handler.startElement("contributor", {})
            handler.addQuickElement("name", name)
            handler.endElement("contributor")
        handler.addQuickElement("content", item["content"], {"type": "html"})


@dataclass(frozen=True)
class Scope:
    """One request's feed: the ``obj`` Django passes to the feed-level methods. The Feed instance is
    shared by every request, so per-request data lives here, never on ``self``."""

    site: SiteSettings
    language: str  # the feed's own language, or LANGUAGE_CODE for mixed feeds
    feed_url: str
    notes: QuerySet  # the published notes in scope, unordered and unsliced
    subject: Tag | Series | None = None  # what a tag or series feed is about


class NoteFeed(Feed):
    """The latest published notes of a scope, full content. Subclasses narrow the scope and
    name it in ``title_text`` and ``description_text`` (interpolated with :meth:`names`)."""

    feed_type = ContentRssFeed
    title_text = None  # None: the site's title alone
    description_text = _("The latest notes from %(site)s.")

    # From the URL's arguments alone, before anything is loaded: Last-Modified, the response's
    # Content-Language and get_object all use these, so they always describe the same feed.

    def note_filter(self, **url_kwargs):
        return {}

    def feed_language(self, **url_kwargs):
        return settings.LANGUAGE_CODE

    def scope_notes(self, **url_kwargs):
        # The one published rule: no drafts, nothing scheduled.
        return Note.objects.published().filter(**self.note_filter(**url_kwargs))

    def last_modified(self, request, **url_kwargs):
        """Newest publication or edit in the scope, or None when empty, in one query that runs
        before ``get_object``, so it loads nothing else."""
        notes = self.scope_notes(**url_kwargs)
        dates = notes.aggregate(edited=Max("updated_at"), published=Max("published_at"))
        return max(filter(None, dates.values()), default=None)

    # Django's Feed API.

    def get_object(self, request, **url_kwargs):
        return Scope(
            site=site_settings(),  # once per request, not once per item
            language=self.feed_language(**url_kwargs),
            feed_url=absolute_url(request.path),
            notes=self.scope_notes(**url_kwargs),
        )

    def get_feed(self, obj, request):
        # Strings and reversed links in the feed's language, not the reader's (see above).
        with translation.override(obj.language):
            return super().get_feed(obj, request)

    def items(self, scope):
        # Series and the other version of a pair joined, tags in one more query: the count
        # never grows with the items. The Markdown source and search text are large and unused
        # here; of the other version only what the translation notice reads is loaded. pk
        # breaks ties, so the order (and the ETag) is stable.
        # The newest correction of each note and of its other version, in the same query.
        notes = with_latest_corrections(
            scope.notes.for_listing()
            .select_related(*COUNTERPART)
            .defer(
                *UNUSED,
                *(f"{side}__{field}" for side in COUNTERPART for field in UNUSED_OF_COUNTERPART),
            )
        )
        notes = list(notes.order_by("-published_at", "-pk")[:FEED_SIZE])
        # An entry shows the notice once its other version's text changes: it depends on it.
        others = (note.counterpart for note in notes)
        parts.depend_on(
            *self.scope_parts(scope),
            *(parts.note(note.pk) for note in notes),
            *(parts.note(other.pk) for other in others if other is not None),
        )
        return notes

    def scope_parts(self, scope):
        """The parts (:mod:`blog.caching.parts`) saying which notes the scope holds."""
        return (parts.NOTES,)

    # Feed level. Strings are interpolated here, inside get_feed's translation.override.

    def names(self, scope):
        return {"site": scope.site.title}

    def title(self, scope):
        return xml_title(
            self.title_text % self.names(scope) if self.title_text else scope.site.title
        )

    def description(self, scope):
        return xml_text(self.description_text % self.names(scope))

    def link(self, scope):
        # Reversed inside get_feed's override: the English feed links to the /en/ pages.
        return absolute_url(reverse("blog:home"))

    def feed_url(self, scope):
        return scope.feed_url

    # The Atom feed id is its self URL, not its page: the all and Chinese feeds share a page.
    feed_guid = feed_url

    def feed_extra_kwargs(self, scope):
        return {"hub": hub(), "fediverse_actor": linked_actor()}

    def author_name(self, scope):
        return xml_text(scope.site.author or scope.site.title)

    # Item level: plain methods, no templates, no request, no queries.

    def item_title(self, note):
        # Plain text, escaped once by the XML writer (Django's default escapes it twice).
        return xml_title(note.title)

    def item_description(self, note):
        # RSS <description> and Atom <summary type="html"> are HTML; the excerpt is text.
        return xml_text(escape(note.excerpt)) or None

    def item_link(self, note):
        # A note's page in its own language's interface: /en/notes/… for an English note.
        with translation.override(note.language):
            return absolute_url(note.get_absolute_url())

    def item_guid(self, note):
        return note_tag_uri(note)

    item_guid_is_permalink = False

    def item_pubdate(self, note):
        return note.published_at

    def item_updateddate(self, note):
        # Never before publication: a scheduled note was saved before it went live. A correction
        # dates the entry (an imported one may be newer than the note's last edit).
        correction = latest_correction(note)
        corrected = correction.made_at if correction is not None else note.published_at
        return max(note.updated_at, note.published_at, corrected)

    def item_categories(self, note):
        return sorted(tag_category(tag) for tag in note.tags.all())

    def item_extra_kwargs(self, note):
        # The newest correction first, then the notice, in the note's language (the entry's
        # xml:lang), links absolute.
        correction = correction_html(note, latest_correction(note))
        notice = translation_notice(
            note, note.counterpart, in_feed=True, correction=counterpart_correction(note)
        )
        body = feed_html(note.body_html, self.item_link(note))
        return {
            "content": xml_text(correction + notice + body),
            "language": note.language,
            **self.credits(note),
        }

    def credits(self, note):
        """Who the entry credits besides the site's author (the writers add that one): the
        note's co-authors, then its translator."""
        names = [*coauthor_names(note), note.translator.strip()]
        return {"credited": [xml_text(name) for name in dict.fromkeys(names) if name]}


class LatestNotesFeed(NoteFeed):
    def description(self, scope):
        # The author's own description, when written, describes the whole blog best.
        own = scope.site.description or scope.site.tagline
        return xml_text(own) if own else super().description(scope)


class TagNotesFeed(NoteFeed):
    title_text = _("%(site)s · %(tag)s")
    description_text = _("The latest notes tagged “%(tag)s” on %(site)s.")

    def note_filter(self, slug):
        return {"tags__slug": slug}

    def get_object(self, request, slug):
        tag = get_object_or_404(Tag, slug=slug)
        return replace(super().get_object(request, slug=slug), subject=tag)

    def names(self, scope):
        return {**super().names(scope), "tag": scope.subject.both_names}

    def scope_parts(self, scope):
        return (parts.tag(scope.subject.pk),)

    def link(self, scope):
        return absolute_url(scope.subject.get_absolute_url())


class SeriesNotesFeed(NoteFeed):
    title_text = _("%(site)s · %(series)s")
    description_text = _("The latest parts of the series “%(series)s” on %(site)s.")

    def note_filter(self, slug):
        return {"series__slug": slug}

    def get_object(self, request, slug):
        series = get_object_or_404(Series, slug=slug)
        return replace(super().get_object(request, slug=slug), subject=series)

    def names(self, scope):
        return {**super().names(scope), "series": scope.subject.both_names}

    def scope_parts(self, scope):
        return (parts.series(scope.subject.pk),)

    def link(self, scope):
        return absolute_url(scope.subject.get_absolute_url())


class LanguageNotesFeed(NoteFeed):
    """A reader's feed in one language, with the lists' language rule (``in_interface``), described
    in that language."""

    title_text = _("%(site)s · %(language)s")
    description_text = _("The latest notes in %(language)s on %(site)s.")

    def scope_notes(self, language, others=True):
        # Last-Modified covers the other-language notes whatever the settings say: a date
        # that is sometimes newer than needed costs a 200, never a stale 304.
        return Note.objects.published().in_interface(language, others=others)

    def feed_language(self, language):
        return language

    def get_object(self, request, language):
        if language not in Language.values:
            raise Http404("No feed for this language.")
        scope = super().get_object(request, language=language)
        notes = self.scope_notes(language, others=scope.site.show_other_languages)
        return replace(scope, notes=notes)

    def names(self, scope):
        return {**super().names(scope), "language": Language(scope.language).label}

    def feed_extra_kwargs(self, scope):
        return {**super().feed_extra_kwargs(scope), "fediverse_actor": linked_actor(scope.language)}


class LatestNotesAtomFeed(LatestNotesFeed):
    feed_type = ContentAtomFeed


class TagNotesAtomFeed(TagNotesFeed):
    feed_type = ContentAtomFeed


class SeriesNotesAtomFeed(SeriesNotesFeed):
    feed_type = ContentAtomFeed


class LanguageNotesAtomFeed(LanguageNotesFeed):
    feed_type = ContentAtomFeed
