"""Feeds live outside i18n_patterns: a subscriber's URL never depends on the interface language."""

from django.urls import path

from . import feeds

app_name = "feeds"

urlpatterns = [
    path("feed/", feeds.LatestNotesRss(), name="all-rss"),
    path("feed/atom/", feeds.LatestNotesAtom(), name="all-atom"),
    path("tags/<slug:slug>/feed/", feeds.TagNotesRss(), name="tag-rss"),
    path("tags/<slug:slug>/feed/atom/", feeds.TagNotesAtom(), name="tag-atom"),
    path("series/<slug:slug>/feed/", feeds.SeriesNotesRss(), name="series-rss"),
    path("series/<slug:slug>/feed/atom/", feeds.SeriesNotesAtom(), name="series-atom"),
    path("lang/<str:language>/feed/", feeds.LanguageNotesRss(), name="language-rss"),
    path("lang/<str:language>/feed/atom/", feeds.LanguageNotesAtom(), name="language-atom"),
]
