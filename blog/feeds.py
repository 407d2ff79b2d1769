"""Full-content RSS 2.0 and Atom 1.0 feeds: everything, per tag, per series, per language.

:class:`NoteFeed` does the work; the URL map's classes set ``kind`` and, for Atom, ``feed_type``.

* Every URL, including links and images in the content, is built on ``settings.SITE_URL``,
  never the request's host: a cached feed is right whoever fetched it.
* Entry ids are tag URIs, ``tag:<SITE_URL host>,<created date>:note:<pk>``, unchanged by edits
  of the title or slug. ``settings.BIJI_FEED_ID_AUTHORITY`` may pin the host if the blog moves.
* A tag is ONE category with both names, English first: "Scheduling / 调度". One category per
  tag keeps readers' tag lists right; the fixed order gives it the same string in every feed.
* A feed is written in a fixed language (a language feed in its own, others in LANGUAGE_CODE),
  not the reader's Accept-Language: the bytes depend on the database only; the ETag is stable.
* Items come from ``item_*`` methods, never templates, which run context processors per item.
* Last-Modified, the newest published_at/updated_at in the scope (one aggregate query),
  answers If-Modified-Since before the feed is built; the ETag hashes the content. Renaming only
  a tag or the site settings moves neither date; ``max-age`` bounds that staleness.
"""

import copy
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urljoin, urlsplit

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.db.models import Max
from django.http import Http404, HttpResponse, HttpResponseNotModified
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils import feedgenerator, translation
from django.utils.cache import get_conditional_response, patch_cache_control, set_response_etag
from django.utils.html import escape
from django.utils.http import http_date, parse_http_date_safe
from django.utils.translation import gettext_lazy as _

from .models import Language, Note, Series, SiteSettings, Tag
from .rendering import absolutize_urls

FEED_SIZE = 20
CONTENT_NS = "http://purl.org/rss/1.0/modules/content/"
CACHE_SECONDS = 600
# Not allowed in XML 1.0; Django's writer raises on them (one pasted into a title = a 500).
XML_INVALID = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
# An empty feed still needs a date (Atom <updated>); "now" would change the ETag every request.
EMPTY_FEED_DATE = datetime(2000, 1, 1, tzinfo=UTC)

# Per kind of feed; interpolated with the site title and the tag, series or language name.
TITLES = {
    "tag": _("%(site)s · %(tag)s"),
    "series": _("%(site)s · %(series)s"),
    "language": _("%(site)s · %(language)s"),
}
DESCRIPTIONS = {
    "all": _("The latest notes from %(site)s."),
    "tag": _("The latest notes tagged “%(tag)s” on %(site)s."),
    "series": _("The latest parts of the series “%(series)s” on %(site)s."),
    "language": _("The latest notes in %(language)s on %(site)s."),
}


def xml_text(text):
    return XML_INVALID.sub("", str(text or ""))


def absolute(path):
    # urljoin, not concatenation: right whether SITE_URL is an origin or has a path prefix.
    return urljoin(settings.SITE_URL + "/", path)


def note_tag_uri(note):
    host = urlsplit(settings.SITE_URL).hostname
    authority = getattr(settings, "BIJI_FEED_ID_AUTHORITY", "") or host
    return f"tag:{authority},{note.created_at.astimezone(UTC).date().isoformat()}:note:{note.pk}"


def tag_category(tag):
    names = [tag.name] + ([tag.name_zh] if tag.name_zh and tag.name_zh != tag.name else [])
    return xml_text(" / ".join(names))


class StableDateMixin:
    def latest_post_date(self):
        return super().latest_post_date() if self.items else EMPTY_FEED_DATE


class ContentRssFeed(StableDateMixin, feedgenerator.Rss201rev2Feed):
    def rss_attributes(self):
        return {**super().rss_attributes(), "xmlns:content": CONTENT_NS}

    def add_item_elements(self, handler, item):
        super().add_item_elements(handler, item)
        handler.addQuickElement("content:encoded", item["content"])


class ContentAtomFeed(StableDateMixin, feedgenerator.Atom1Feed):
    def item_attributes(self, item):
        # A mixed feed holds both languages; each entry says which one it is in.
        return {"xml:lang": item["language"]}

    def add_item_elements(self, handler, item):
        super().add_item_elements(handler, item)
        handler.addQuickElement("content", item["content"], {"type": "html"})


@dataclass(frozen=True)
class Scope:
    """What one request's feed covers (the ``obj`` of Django's Feed methods)."""

    language: str  # the feed's own language, or LANGUAGE_CODE for mixed feeds
    feed_url: str
    tag: Tag | None = None
    series: Series | None = None


class NoteFeed(Feed):
    """The latest published notes of a scope, full content. Subclasses set ``kind``."""

    kind = "all"  # "all", "tag", "series" or "language"
    feed_type = ContentRssFeed

    def __call__(self, request, slug=None, language=None):
        # This instance is the view, shared by every request: per-request state (the site
        # settings, read once instead of once per item) lives on a copy.
        feed = copy.copy(self)
        feed.site = SiteSettings.load()[0]
        scope = feed.get_object(request, slug=slug, language=language)
        newest = feed.last_modified(scope)
        if_modified_since = parse_http_date_safe(request.headers.get("If-Modified-Since"))
        # When If-None-Match is sent too, HTTP lets the ETag decide, which needs the content.
        unchanged = newest and if_modified_since and newest <= if_modified_since
        if unchanged and "If-None-Match" not in request.headers:
            response = HttpResponseNotModified()  # without building the feed
        else:
            with translation.override(scope.language):
                generator = feed.get_feed(scope, request)
            response = HttpResponse(content_type=generator.content_type)
            generator.write(response, "utf-8")
            response.headers["Content-Language"] = scope.language
            set_response_etag(response)
            response = get_conditional_response(
                request, etag=response["ETag"], last_modified=newest, response=response
            )
        if newest:
            response.headers["Last-Modified"] = http_date(newest)
        patch_cache_control(response, public=True, max_age=CACHE_SECONDS)
        return response

    def get_object(self, request, slug=None, language=None):
        scope = {"language": settings.LANGUAGE_CODE, "feed_url": absolute(request.path)}
        if self.kind == "tag":
            scope["tag"] = get_object_or_404(Tag, slug=slug)
        elif self.kind == "series":
            scope["series"] = get_object_or_404(Series, slug=slug)
        elif self.kind == "language":
            if language not in Language.values:
                raise Http404("No feed for this language.")
            scope["language"] = language
        return Scope(**scope)

    def notes(self, scope):
        notes = Note.objects.published()  # the one published rule: no drafts, nothing scheduled
        if scope.tag:
            notes = notes.filter(tags=scope.tag)
        if scope.series:
            notes = notes.filter(series=scope.series)
        if self.kind == "language":
            notes = notes.filter(language=scope.language)
        return notes

    def last_modified(self, scope):
        """Newest publication or edit in the scope, in whole seconds, or None when empty.

        ``published_at`` counts too: a scheduled note was last edited before it went live.
        """
        dates = self.notes(scope).aggregate(edited=Max("updated_at"), published=Max("published_at"))
        newest = max(filter(None, dates.values()), default=None)
        return int(newest.timestamp()) if newest else None

    def items(self, scope):
        # Series joined and tags in one more query: the count never grows with the items.
        # The Markdown source and search text are large and unused here. pk breaks ties,
        # so the order (and the ETag) is stable.
        notes = self.notes(scope).for_listing().defer("body", "plain_text", "toc_html")
        return notes.order_by("-published_at", "-pk")[:FEED_SIZE]

    # Feed level. Strings are interpolated here, inside __call__'s translation.override.

    def names(self, scope):
        names = {"site": self.site.title}
        if scope.tag:
            names["tag"] = scope.tag.both_names
        if scope.series:
            names["series"] = scope.series.both_names
        if self.kind == "language":
            names["language"] = Language(scope.language).label
        return names

    def title(self, scope):
        names = self.names(scope)
        return xml_text(TITLES[self.kind] % names if self.kind in TITLES else names["site"])

    def description(self, scope):
        # The author's own description, when written, describes the whole blog best.
        own = self.site.description or self.site.tagline
        if self.kind == "all" and own:
            return xml_text(own)
        return xml_text(DESCRIPTIONS[self.kind] % self.names(scope))

    def link(self, scope):
        # Reversed inside the override: the English feed links to the /en/ pages.
        target = scope.tag or scope.series
        return absolute(target.get_absolute_url() if target else reverse("blog:home"))

    def feed_url(self, scope):
        return scope.feed_url

    # The Atom feed id is its self URL, not its page: the all and Chinese feeds share a page.
    feed_guid = feed_url

    def author_name(self, scope):
        return xml_text(self.site.author or self.site.title)

    # Item level: plain methods, no templates, no request.

    def item_title(self, note):
        # Plain text, escaped once by the XML writer (Django's default escapes it twice).
        return xml_text(note.title)

    def item_description(self, note):
        # RSS <description> and Atom <summary type="html"> are HTML; the excerpt is text.
        return xml_text(escape(note.excerpt)) or None

    def item_link(self, note):
        # A note's page in its own language's interface: /en/notes/… for an English note.
        with translation.override(note.language):
            return absolute(note.get_absolute_url())

    def item_guid(self, note):
        return note_tag_uri(note)

    item_guid_is_permalink = False

    def item_author_name(self, note):
        return self.author_name(None)

    def item_pubdate(self, note):
        return note.published_at

    def item_updateddate(self, note):
        # Never before publication: a scheduled note was saved before it went live.
        return max(note.updated_at, note.published_at)

    def item_categories(self, note):
        return sorted(tag_category(tag) for tag in note.tags.all())

    def item_extra_kwargs(self, note):
        return {
            "content": xml_text(absolutize_urls(note.body_html, settings.SITE_URL)),
            "language": note.language,
        }


class LatestNotesRss(NoteFeed):
    kind = "all"


class TagNotesRss(NoteFeed):
    kind = "tag"


class SeriesNotesRss(NoteFeed):
    kind = "series"


class LanguageNotesRss(NoteFeed):
    kind = "language"


def atom_twin(rss_feed):
    """The Atom subclass of an RSS feed class: only ``feed_type`` differs."""
    name = rss_feed.__name__.replace("Rss", "Atom")
    return type(name, (rss_feed,), {"feed_type": ContentAtomFeed, "__module__": __name__})


LatestNotesAtom = atom_twin(LatestNotesRss)
TagNotesAtom = atom_twin(TagNotesRss)
SeriesNotesAtom = atom_twin(SeriesNotesRss)
LanguageNotesAtom = atom_twin(LanguageNotesRss)
