"""Public views, one module per concern; ``blog.public.views.<Name>`` stays importable.

Decisions that hold for every view here:

* Notes come from ``Note.objects.published()`` only; staff with the note (or page) change or
  view permission also see unpublished items at their URL, with a banner, never cached.
* Public responses carry ``Cache-Control: public, max-age=BIJI_PAGE_MAX_AGE`` and never read
  the session on the happy path, so they do not vary on the cookie.
* ``?page=`` follows ``Paginator.get_page``: junk gives the first page, past-the-end numbers
  the last one (``last`` works too); a tag or series without published notes is a 404.
* Canonical URLs are the page itself on ``SITE_URL`` (the interface language is part of the
  URL). hreflang alternates link the interface languages, except on a note with a published
  translation, where they link the note and its translation, each in its own language.
* Every page stays within five SQL queries whatever the data size (tests/test_query_budget.py).
"""

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
