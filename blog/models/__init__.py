from .notes import Language, Note, NoteQuerySet, Status
from .site import NavigationLink, Page, SiteSettings
from .taxonomy import Series, Tag, TaggedNote

__all__ = [
    "Language",
    "NavigationLink",
    "Note",
    "NoteQuerySet",
    "Page",
    "Series",
    "SiteSettings",
    "Status",
    "Tag",
    "TaggedNote",
]
