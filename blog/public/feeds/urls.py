"""Feeds live outside i18n_patterns, wrapped in ``cache_control``, ``condition`` (Last-Modified
before the feed is built) and, through the settings, ``ConditionalGetMiddleware``."""

from django.conf import settings
from django.urls import path
from django.views.decorators.cache import cache_control
from django.views.decorators.http import condition

from blog.caching import memoised
from blog.public.feeds import notes as feeds
from blog.public.feeds.websub import link_header
from blog.text.site_url import absolute_url

app_name = "feeds"


def cached(feed):
    """``feed`` (a Feed instance) as a view with Last-Modified, ETag and Cache-Control."""

    def view(request, **url_kwargs):
        response = feed(request, **url_kwargs)
        # Django's Feed dates a response by its newest item (the epoch-2000 placeholder for an
        # empty feed); drop it so condition() sets the scope's date, the one it compares with
        # If-Modified-Since, and none at all for an empty feed.
        del response.headers["Last-Modified"]
        response.headers["Content-Language"] = feed.feed_language(**url_kwargs)
        # The same self URL as the feed's own (Scope.feed_url).
        if links := link_header(absolute_url(request.path)):
            response.headers["Link"] = links
        return response

    def last_modified(request, **url_kwargs):
        # An aggregate over the scope's notes: once per content version and URL.
        return memoised(
            f"feed-date:{request.path}", lambda: feed.last_modified(request, **url_kwargs)
        )

    view = condition(last_modified_func=last_modified)(view)
    return cache_control(public=True, max_age=settings.BIJI_FEED_MAX_AGE)(view)


urlpatterns = [
    path("feed/", cached(feeds.LatestNotesFeed()), name="all-rss"),
    path("feed/atom/", cached(feeds.LatestNotesAtomFeed()), name="all-atom"),
    path("tags/<slug:slug>/feed/", cached(feeds.TagNotesFeed()), name="tag-rss"),
    path("tags/<slug:slug>/feed/atom/", cached(feeds.TagNotesAtomFeed()), name="tag-atom"),
    path("series/<slug:slug>/feed/", cached(feeds.SeriesNotesFeed()), name="series-rss"),
    path("series/<slug:slug>/feed/atom/", cached(feeds.SeriesNotesAtomFeed()), name="series-atom"),
    path("lang/<str:language>/feed/", cached(feeds.LanguageNotesFeed()), name="language-rss"),
    path(
        "lang/<str:language>/feed/atom/",
        cached(feeds.LanguageNotesAtomFeed()),
        name="language-atom",
    ),
]
