from .content import ContentVersion
from .notes import Language, Note, NoteQuerySet, Status
from .site import NavigationLink, Page, SiteSettings
from .taxonomy import Series, Tag, TaggedNote

__all__ = [
    "ContentVersion",
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
