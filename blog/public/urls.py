"""Public pages, mounted under i18n_patterns: /… in Chinese, /en/… in English."""

from django.urls import path

from blog.models import content_paths
from blog.public import views
from blog.public.views import citation, subscribe

app_name = "blog"

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("notes/<slug:slug>/", views.NoteDetailView.as_view(), name="note-detail"),
    path("notes/<slug:slug>/parallel/", views.NoteParallelView.as_view(), name="note-parallel"),
    # A note's citation, one file per format (blog.public.views.citation).
    path("notes/<slug:slug>/cite.bib", citation.cite_as("bib"), name="note-cite-bib"),
    path("notes/<slug:slug>/cite.json", citation.cite_as("json"), name="note-cite-json"),
    path("notes/<slug:slug>/cite.ris", citation.cite_as("ris"), name="note-cite-ris"),
    path(
        "notes/<slug:slug>/share/<str:token>/",
        views.NoteShareView.as_view(),
        name="note-share",
    ),
    path("tags/", views.TagListView.as_view(), name="tag-list"),
    path("tags/<slug:slug>/", views.TagDetailView.as_view(), name="tag-detail"),
    path("series/", views.SeriesListView.as_view(), name="series-list"),
    path("series/<slug:slug>/", views.SeriesDetailView.as_view(), name="series-detail"),
    path("archive/", views.ArchiveIndexView.as_view(), name="archive"),
    path("archive/<int:year>/", views.YearArchiveView.as_view(), name="archive-year"),
    path(
        "archive/<int:year>/<int:month>/",
        views.MonthArchiveView.as_view(),
        name="archive-month",
    ),
    path("pages/<slug:slug>/", views.PageDetailView.as_view(), name="page-detail"),
    path("search/", views.SearchView.as_view(), name="search"),
    path("glossary/", views.GlossaryView.as_view(), name="glossary"),
    path("glossary/<slug:slug>/", views.TermDetailView.as_view(), name="glossary-term"),
    path("subscribe/", subscribe.SubscribeView.as_view(), name="subscribe"),
    path(
        "subscribe/confirm/<str:token>/",
        subscribe.ConfirmView.as_view(),
        name="subscribe-confirm",
    ),
    path("unsubscribe/<str:token>/", subscribe.UnsubscribeView.as_view(), name="unsubscribe"),
]

# The layers below ask for these by kind: they name no URL of this module.
content_paths.provide(
    note=("blog:note-detail", "blog:note-share"),
    tag="blog:tag-detail",
    series="blog:series-detail",
    page="blog:page-detail",
    glossary="blog:glossary",
)
