"""The sitemap: an index of one sitemap per section, each paged at :attr:`SiteURLSitemap.limit` URLs
so every page is bounded, absolute on ``SITE_URL``, with hreflang alternates."""

import functools
from urllib.parse import urlsplit

from django.contrib.sitemaps import Sitemap
from django.contrib.sitemaps.views import SitemapIndexItem, sitemap, x_robots_tag
from django.db.models import Max
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import translation
from django.utils.functional import cached_property
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

from blog.caching import memoised, parts
from blog.models import Note, Page, Series, Tag, Term
from blog.text.site_url import absolute_url


def newest(dates):
    return max(filter(None, dates), default=None)


class SiteURLSitemap(Sitemap):
    """Locations are exactly :func:`absolute_url` of each item's path, the ``SITE_URL`` prefix
    included once; subclasses give the path in :meth:`path`."""

    # URLs per sitemap page: well under the protocol's 50,000, so that building one page
    # stays cheap (a page is rendered in one go on a cache miss).
    limit = 5000

    @property
    def protocol(self):
        return urlsplit(absolute_url("/")).scheme

    def get_domain(self, site=None):
        return urlsplit(absolute_url("/")).netloc

    def location(self, item):
        parts = urlsplit(absolute_url(self.path(item)))
        return parts._replace(scheme="", netloc="").geturl()

    def path(self, item):
        return item.get_absolute_url()

    def page_lastmods(self):
        """The newest ``lastmod`` of each page's URLs, page by page (none: nothing to list)."""
        items = list(self._items())
        return [
            newest(self._get("lastmod", item) for item in items[start : start + self.limit])
            for start in range(0, len(items), self.limit)
        ]


class BilingualSitemap(SiteURLSitemap):
    i18n = True
    alternates = True
    x_default = True


class NoteSitemap(SiteURLSitemap):
    changefreq = "monthly"
    priority = 0.8

    def items(self):
        return Note.objects.published().only("slug", "language", "updated_at").order_by("pk")

    def path(self, note):
        with translation.override(note.language):
            return note.get_absolute_url()

    def lastmod(self, note):
        return note.updated_at

    def page_lastmods(self):
        # The dates alone, in the pages' order: one light query instead of the notes.
        dates = list(self.items().values_list("updated_at", flat=True))
        return [
            max(dates[start : start + self.limit]) for start in range(0, len(dates), self.limit)
        ]


class TagSitemap(BilingualSitemap):
    changefreq = "weekly"
    priority = 0.4

    def items(self):
        return (
            Tag.objects.filter(tagged_notes__content_object__in=Note.objects.published())
            .annotate(latest=Max("tagged_notes__content_object__updated_at"))
            .order_by("slug")
        )

    def lastmod(self, tag):
        return tag.latest


class SeriesSitemap(BilingualSitemap):
    changefreq = "weekly"
    priority = 0.6

    def items(self):
        return (
            Series.objects.filter(notes__in=Note.objects.published())
            .annotate(latest=Max("notes__updated_at"))
            .order_by("slug")
        )

    def lastmod(self, series):
        return max(filter(None, (series.latest, series.updated_at)), default=None)


class PageSitemap(BilingualSitemap):
    changefreq = "monthly"
    priority = 0.5

    def items(self):
        return Page.objects.published().order_by("slug")

    def lastmod(self, page):
        return page.updated_at


class SectionSitemap(BilingualSitemap):
    """The home page and the indexes of tags, series and the archive."""

    changefreq = "daily"
    priority = 0.7

    def items(self):
        return ["blog:home", "blog:series-list", "blog:tag-list", "blog:archive"]

    def path(self, name):
        return reverse(name)

    def lastmod(self, name):
        return self.newest_note_change

    @cached_property
    def newest_note_change(self):
        """When the notes these lists show last changed: the newest edit or publication of a
        published note (stored dates, so a restored blog gives the same sitemap)."""

        def compute():
            dates = Note.objects.published().aggregate(Max("updated_at"), Max("published_at"))
            return newest(dates.values())

        return memoised("sitemap-sections-lastmod", compute)


class GlossarySitemap(BilingualSitemap):
    """The glossary page and each term's page: one sitemap page whatever the glossary holds, named
    in the index without a ``lastmod``, which would cost a query."""

    changefreq = "monthly"
    priority = 0.4
    limit = 50_000

    @cached_property
    def terms(self):
        return list(Term.objects.only("slug", "updated_at").order_by("slug"))

    def items(self):
        return ["blog:glossary", *self.terms]

    def path(self, item):
        if isinstance(item, str):
            return reverse(item)
        return reverse("blog:glossary-term", kwargs={"slug": item.slug})

    def lastmod(self, item):
        if isinstance(item, str):
            return newest(term.updated_at for term in self.terms)
        return item.updated_at

    def page_lastmods(self):
        return [None]


SITEMAPS = {
    "sections": SectionSitemap,
    "notes": NoteSitemap,
    "series": SeriesSitemap,
    "tags": TagSitemap,
    "pages": PageSitemap,
    "glossary": GlossarySitemap,
}


def show_the_sitemaps(view):
    """``view`` names the parts every sitemap shows: the notes' URLs and dates (moved by
    every edit), and which tags and series have published notes."""

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        parts.depend_on(parts.SITEMAP, parts.TAGS, parts.SERIES_INDEX)
        return view(request, *args, **kwargs)

    return wrapped


# Each section's sitemap, in pages: Django's view.
section = show_the_sitemaps(cache_control(public=True, max_age=3600)(sitemap))


def page_lastmods(sitemaps):
    """``{section: [lastmod of page 1, of page 2, …]}``, once per content version."""
    return memoised(
        "sitemap-pages",
        lambda: {section: sitemap().page_lastmods() for section, sitemap in sitemaps.items()},
    )


@show_the_sitemaps
@require_safe
@cache_control(public=True, max_age=3600)
@x_robots_tag
def index(request, sitemaps=SITEMAPS):
    """``/sitemap.xml``: every page of every section's sitemap with its ``lastmod``, on ``SITE_URL``
    rather than the request's host (as Django's view does)."""
    entries = []
    for section, lastmods in page_lastmods(sitemaps).items():
        location = absolute_url(reverse("sitemap-section", kwargs={"section": section}))
        for number, lastmod in enumerate(lastmods, start=1):
            url = location if number == 1 else f"{location}?p={number}"
            entries.append(SitemapIndexItem(url, lastmod))
    return TemplateResponse(
        request, "sitemap_index.xml", {"sitemaps": entries}, content_type="application/xml"
    )
