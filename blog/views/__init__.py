"""Public views, one module per concern; ``blog.views.<Name>`` stays importable."""

from .archive import ArchiveIndexView, MonthArchiveView, YearArchiveView
from .notes import HomeView, NoteDetailView, NoteShareView
from .pages import PageDetailView, robots_txt
from .taxonomy import SeriesDetailView, SeriesListView, TagDetailView, TagListView

__all__ = [
    "ArchiveIndexView",
    "HomeView",
    "MonthArchiveView",
    "NoteDetailView",
    "NoteShareView",
    "PageDetailView",
    "SeriesDetailView",
    "SeriesListView",
    "TagDetailView",
    "TagListView",
    "YearArchiveView",
    "robots_txt",
]
