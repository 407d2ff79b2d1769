"""sitemap.xml: published notes, tags and series with published notes, published pages and
the section indexes. URLs are absolute on ``settings.SITE_URL`` (:func:`blog.site_url.absolute_url`,
the joiner the pages and feeds use), whatever Host asked.

A note is listed once, in the interface of its own language (its translation is listed as a
note of its own); indexes, tags, series and pages are listed in every interface language with
hreflang alternates.
"""

from urllib.parse import urlsplit

from django.contrib.sitemaps import Sitemap
from django.db.models import Max
from django.urls import reverse
from django.utils import translation

from .models import Note, Page, Series, Tag
from .site_url import absolute_url


class SiteURLSitemap(Sitemap):
    """Locations are exactly :func:`absolute_url` of each item's path.

    Django writes ``protocol://domain`` + ``location(item)``: the scheme and host come from
    SITE_URL, and :meth:`location` returns the rest of ``absolute_url(path)``, the SITE_URL
    path prefix included (once, whether or not ``reverse()`` already added it). Subclasses
    give the path in :meth:`path`.
    """

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


SITEMAPS = {
    "sections": SectionSitemap,
    "notes": NoteSitemap,
    "series": SeriesSitemap,
    "tags": TagSitemap,
    "pages": PageSitemap,
}
