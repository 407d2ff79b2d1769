"""Public views, one module per concern: published content only, ``Cache-Control: public`` without
reading the session, at most five SQL queries a page (tests/test_query_budget.py)."""

from blog.public.views.archive import ArchiveIndexView, MonthArchiveView, YearArchiveView
from blog.public.views.glossary import GlossaryView, TermDetailView
from blog.public.views.notes import HomeView, NoteDetailView, NoteShareView
from blog.public.views.pages import PageDetailView, robots_txt
from blog.public.views.parallel import NoteParallelView
from blog.public.views.search import SearchView
from blog.public.views.taxonomy import SeriesDetailView, SeriesListView, TagDetailView, TagListView

__all__ = [
    "ArchiveIndexView",
    "GlossaryView",
    "HomeView",
    "MonthArchiveView",
    "NoteDetailView",
    "NoteParallelView",
    "NoteShareView",
    "PageDetailView",
    "SearchView",
    "SeriesDetailView",
    "SeriesListView",
    "TagDetailView",
    "TagListView",
    "TermDetailView",
    "YearArchiveView",
    "robots_txt",
]
